/// A predicate that could not be evaluated or substituted.
public struct ObjectPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// A `$VARIABLE` has no value.
        case missingVariable
        /// A function name is not known, or not available on Linux.
        case unsupportedFunction
        /// A function or cast received values it cannot work with.
        case invalidArgument
        /// A format argument is missing or of the wrong kind.
        case badFormatArgument
        /// A fetch request template with that name does not exist.
        case unknownTemplate
        /// A predicate stored as text (in a model or template) does not parse.
        case syntaxError
        /// A key path names a property the entity does not have (Core Data's "keypath not found in entity").
        case unknownKey
        /// An object's value could not be read (a fault whose row is gone, or whose store failed).
        case objectUnavailable
        /// A `MATCHES` pattern (or a model's regular expression) is not a valid regular expression.
        case invalidPattern
        /// The predicate is nested too deeply or would take too long to evaluate.
        case tooComplex
        /// A predicate archived in a model file could not be decoded, so it cannot be used.
        case undecodable
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
}
