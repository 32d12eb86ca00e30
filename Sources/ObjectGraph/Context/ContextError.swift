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
        case custom
    }

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
    public init(
        _ code: Code, entityName: String, key: String? = nil, objectID: ManagedObjectID? = nil, _ message: String
    ) {
        self.code = code
        self.entityName = entityName
        self.key = key
        self.objectID = objectID
        self.message = message
    }

    public var description: String {
        "\(entityName)\(key.map { ".\($0)" } ?? "")\(objectID.map { " (\($0))" } ?? ""): \(message)"
    }
}

/// A failure of a context operation: a fetch, a save, a lookup.
public enum ContextError: Error, Sendable, CustomStringConvertible {
    /// The store or the coordinator failed.
    case store(StoreError)
    /// A predicate could not be evaluated.
    case predicate(ObjectPredicateError)
    /// Objects broke the model's rules or their own validation; every failure is listed, and nothing was saved.
    case validation([ObjectValidationError])
    /// Objects changed in their store since they were read and the merge policy is ``MergePolicy/error``.
    case conflicts([SaveConflict])
    /// An object was used wrongly.
    case object(ObjectGraphError)

    public var description: String {
        switch self {
        case .store(let e): return e.description
        case .predicate(let e): return e.description
        case .object(let e): return e.description
        case .validation(let errors):
            if errors.count == 1 { return "validation failed: \(errors[0])" }
            return "validation failed (\(errors.count) problems):\n"
                + errors.map { "  - \($0)" }.joined(separator: "\n")
        case .conflicts(let conflicts):
            return
                "optimistic locking failure: \(conflicts.count) object(s) changed in the store since they were read: "
                + conflicts.map(\.objectID.description).joined(separator: ", ")
        }
    }

    /// The validation failures, when this is a validation error.
    public var validationErrors: [ObjectValidationError] {
        if case .validation(let errors) = self { return errors }
        return []
    }
}

/// What a save does when objects changed in the store since the context read them (optimistic locking).
public enum MergePolicy: String, Sendable, Hashable, CaseIterable {
    /// Fail the save with ``ContextError/conflicts(_:)`` (Core Data's default).
    case error
    /// Property by property, the store's changes win; this context's other changes are kept.
    case storeTrumps
    /// Property by property, this context's changes win; the store's other changes are kept.
    case objectTrumps
    /// This context's objects are written whole, overwriting the store.
    case overwrite
    /// This context's changes to conflicting objects are discarded in favour of the store.
    case rollback
}
