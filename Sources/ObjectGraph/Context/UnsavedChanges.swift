import Foundation

/// Every unsaved change of a context, as values: what a save would write. New objects are whole snapshots under
/// their temporary IDs; changed objects carry only what changed (and the version they were read at); deleted
/// objects their IDs. Relationships name new objects by their temporary IDs.
///
/// This is what a document writes when the changes go somewhere other than its store: a copy of the document with
/// them laid over it (save a copy, save as), or an autosave journal.
public struct UnsavedChanges: Sendable, Hashable {
    /// New objects, whole, under their temporary IDs.
    public var inserted: [ObjectSnapshot]
    /// Changed objects: the changed properties only.
    public var updated: [ObjectUpdate]
    /// Deleted objects.
    public var deleted: [ObjectDeletion]

    /// Creates a set of changes.
    /// - Parameters:
    ///   - inserted: snapshots of inserted objects.
    ///   - updated: updates of changed objects.
    ///   - deleted: deletions.
    public init(inserted: [ObjectSnapshot] = [], updated: [ObjectUpdate] = [], deleted: [ObjectDeletion] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
