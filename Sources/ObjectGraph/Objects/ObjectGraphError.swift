/// A misuse of managed objects or a context that a caller can recover from: an unknown key, a value of the wrong
/// type, an object from another context.
public struct ObjectGraphError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        case unknownEntity
        case unknownKey
        case wrongValueType
        case abstractEntity
        case wrongContext
        case deletedObject
        case noStore
        case objectNotFound
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
