import Foundation

/// A failure of a store or of the coordinator.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Code: String, Sendable, Hashable {
        /// The file does not exist.
        case notFound
        /// The file is not a store of this type, or is damaged.
        case corrupt
        /// The store type is not registered, or cannot do what was asked.
        case unsupported
        /// Reading or writing failed.
        case io
        /// The store is read-only.
        case readOnly
        /// The store's model does not match.
        case incompatibleModel
        /// An object changed in the store since it was fetched (optimistic locking).
        case conflict
    }

    /// What kind of error it is.
    public var code: Code
    /// The file involved, if any.
    public var path: String?
    /// What went wrong.
    public var message: String
    /// For ``Code/conflict``: the objects whose stored version differs from the one they were read at.
    public var conflicts: [SaveConflict]
    /// When a fetch failed because its predicate or sort could not be evaluated: why (the context reports it as
    /// ``ContextError/predicate(_:)``).
    public var predicateError: ObjectPredicateError?

    /// A store error.
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - path: The file it is about, if any.
    ///   - message: What went wrong.
    ///   - conflicts: For optimistic-locking failures, the objects changed elsewhere.
    public init(_ code: Code, path: String? = nil, _ message: String, conflicts: [SaveConflict] = []) {
        self.code = code
        self.path = path
        self.message = message
        self.conflicts = conflicts
        self.predicateError = nil
    }

    /// A readable description, as printed in messages.
    public var description: String { path.map { "\($0): \(message)" } ?? message }
}
