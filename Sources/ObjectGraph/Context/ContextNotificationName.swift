/// The notifications a context posts.
public enum ContextNotificationName: String, Sendable, Hashable {
    /// At the end of an event (``ManagedObjectContext/processPendingChanges()``): what was inserted, updated,
    /// deleted and refreshed since the last one, coalesced.
    case objectsDidChange
    /// Before a save writes anything.
    case willSave
    /// After a save: the saved inserted, updated and deleted objects.
    case didSave
}
