import BinaryStore
import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import XMLStore

/// Why a document could not be opened or written, with the exit status `docutil` uses for it.
public struct DocumentError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; each code has the exit status `docutil` uses for it.
    public enum Code: Int32, Sendable {
        /// The operation is refused as asked (closing a document with unsaved changes without discarding them).
        case refused = 64
        case badData = 65
        case noInput = 66
        case unsupported = 69
        case cannotCreate = 73
        case io = 74
        /// The document changed on disk since it was read, or another process has it open for writing.
        case conflict = 75
    }

    /// What kind of error it is.
    public var code: Code
    /// What went wrong, for people.
    public var message: String

    /// An error of a kind, with its message.
    /// - Parameters:
    ///   - code: What kind of error it is.
    ///   - message: What went wrong, for people.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    init(_ error: StoreError) {
        switch error.code {
        case .notFound: self.init(.noInput, error.description)
        case .corrupt, .incompatibleModel, .conflict: self.init(.badData, error.description)
        case .unsupported: self.init(.unsupported, error.description)
        case .io, .readOnly: self.init(.io, error.description)
        }
    }

    init(_ error: ModelFileError) {
        switch error.code {
        case .notFound: self.init(.noInput, error.description)
        case .unsupported: self.init(.unsupported, error.description)
        case .io: self.init(.io, error.description)
        default: self.init(.badData, error.description)
        }
    }
}
