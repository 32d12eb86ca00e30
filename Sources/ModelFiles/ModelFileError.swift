import Foundation
public import ObjectGraph

/// An error reading or writing a model file, a property list or a keyed archive.
///
/// The description names the file and the place: `file:line:column` in XML, a byte offset in a binary property
/// list, an object path in a keyed archive.
public struct ModelFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// The path does not exist.
        case notFound
        /// The file is not in any model format we know.
        case unrecognizedFormat
        /// The file is in a known format but malformed (truncated, corrupt, wrong structure).
        case malformed
        /// The file is well-formed but describes an invalid model.
        case invalidModel
        /// The format is recognised but not supported (e.g. Xcode 3 `elements` models).
        case unsupported
        /// The file system failed.
        case io
    }

    /// The kind of failure.
    public var code: Code
    /// The file involved.
    public var path: String?
    /// Where in the file: `line:column`, `offset N`, or a key path.
    public var location: String?
    /// What went wrong and, where it helps, what to do.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of error it is.
    ///   - path: the file it is about, if known.
    ///   - location: the place in the file (a line, an offset, a key path).
    ///   - message: what went wrong.
    public init(_ code: Code, path: String? = nil, location: String? = nil, _ message: String) {
        self.code = code
        self.path = path
        self.location = location
        self.message = message
    }

    /// The same error, attributed to `path` when it names no file yet.
    /// - Parameter path: the file.
    /// - Returns: the error, naming the file.
    public func inFile(_ path: String) -> ModelFileError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }

    /// A readable description, as printed in messages.
    public var description: String {
        var place = path ?? ""
        if let location { place += place.isEmpty ? location : ":\(location)" }
        return place.isEmpty ? message : "\(place): \(message)"
    }
}

extension StoreError {
    /// A store file that could not be read: `notFound` (no file, or not a regular file), `unsupported`, or `io`.
    /// - Parameters:
    ///   - error: the model-file error.
    ///   - path: the store file.
    public init(reading error: ModelFileError, path: String) {
        let code: StoreError.Code =
            switch error.code {
            case .notFound: .notFound
            case .unsupported: .unsupported
            default: .io
            }
        self.init(code, path: path, error.message)
    }
}
