/// The object IDs of one save: `Sendable`, so a save in one context can be merged into others.
public struct SavedChanges: Sendable, Hashable {
    /// IDs of the objects inserted (permanent IDs).
    public var inserted: [ManagedObjectID]
    /// IDs of the objects changed.
    public var updated: [ManagedObjectID]
    /// IDs of the objects deleted.
    public var deleted: [ManagedObjectID]
}
