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

    /// A readable description, as printed in messages.
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
