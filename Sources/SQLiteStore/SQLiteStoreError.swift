public import ObjectGraph

/// An error reading or writing a SQLite store. Keeps SQLite's result code when SQLite reported the failure.
public struct SQLiteStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        case notFound
        /// The file is not a SQLite database, or not a Core Data store.
        case notAStore
        /// The store is damaged or lacks what Core Data writes.
        case malformed
        case io
        /// A value the store cannot hold as it is (NaN, which SQLite reads back as NULL); nothing was written.
        case unsupported
    }

    /// What kind of error it is.
    public var code: Code
    /// The file the error is about.
    public var path: String
    /// What went wrong, for people.
    public var message: String
    /// SQLite's result code, if SQLite reported the failure.
    public var resultCode: Int32?

    /// A SQLite error.
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - path: The database file.
    ///   - message: What went wrong.
    ///   - resultCode: SQLite's result code, if one was returned.
    public init(_ code: Code, path: String, _ message: String, resultCode: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.resultCode = resultCode
    }

    /// The coordinator-level code for this error: damaged or mismatched files are `corrupt`, values the store
    /// cannot hold `unsupported`, the rest I/O.
    public var storeErrorCode: StoreError.Code {
        switch code {
        case .notFound: .notFound
        case .notAStore, .malformed: .corrupt
        case .io: .io
        case .unsupported: .unsupported
        }
    }

    /// A readable description, as printed in messages.
    public var description: String {
        "\(path): \(message)" + (resultCode.map { " (SQLite code \($0))" } ?? "")
    }
}
