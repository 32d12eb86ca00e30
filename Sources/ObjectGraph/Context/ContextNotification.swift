/// A context notification, delivered synchronously to observers in the context's isolation domain.
public struct ContextNotification {
    /// Which notification it is.
    public let name: ContextNotificationName
    /// Objects inserted.
    public let inserted: [ManagedObject]
    /// Objects changed.
    public let updated: [ManagedObject]
    /// Objects deleted.
    public let deleted: [ManagedObject]
    /// Objects refreshed from their store.
    public let refreshed: [ManagedObject]
    /// For ``ContextNotificationName/didSave``: the IDs of what was saved, to hand to other contexts
    /// (``ManagedObjectContext/mergeChanges(fromContextDidSave:)``).
    public let savedChanges: SavedChanges?
}
