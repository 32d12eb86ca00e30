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
