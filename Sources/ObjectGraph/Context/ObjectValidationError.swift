/// Why a rule of the model (or an object's own validation) refused an object at save.
public struct ObjectValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule that failed.
    public enum Code: String, Sendable, Hashable {
        case required
        case belowMinimum
        case aboveMaximum
        case tooShort
        case tooLong
        case patternMismatch
        case tooFewObjects
        case tooManyObjects
        case deleteDenied
        /// A relationship still holds an object that was inserted and deleted before the save (so is saved nowhere):
        /// a No Action rule, or no inverse, left it there.
        case danglingReference
        case custom
    }

    /// What kind of error it is.
    public var code: Code
    /// The object, when known.
    public var objectID: ManagedObjectID?
    /// The entity.
    public var entityName: String
    /// The property, when the rule is about one.
    public var key: String?
    /// What is wrong.
    public var message: String

    /// Creates a validation error (use `.custom` in your own validators).
    /// - Parameters:
    ///   - code: which rule was broken.
    ///   - entityName: the object's entity.
    ///   - key: the property, if one.
    ///   - objectID: the object.
    ///   - message: what is wrong.
    public init(
        _ code: Code, entityName: String, key: String? = nil, objectID: ManagedObjectID? = nil, _ message: String
    ) {
        self.code = code
        self.entityName = entityName
        self.key = key
        self.objectID = objectID
        self.message = message
    }

    /// A readable description, as printed in messages.
    public var description: String {
        "\(entityName)\(key.map { ".\($0)" } ?? "")\(objectID.map { " (\($0))" } ?? ""): \(message)"
    }
}
