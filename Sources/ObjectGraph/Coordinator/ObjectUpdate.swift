import Foundation

/// One changed object in a save: what changed, and the version it was read at.
public struct ObjectUpdate: Sendable, Hashable {
    /// The changed properties and only those (an attribute set to null appears as ``AttributeValue/null``), with
    /// the object's new version.
    public var snapshot: ObjectSnapshot
    /// The names of the changed properties.
    public var changedKeys: Set<String>
    /// The version the object was read at: the store must still hold it (optimistic locking).
    public var expectedVersion: Int64

    /// Creates an update.
    /// - Parameters:
    ///   - snapshot: the object's values after the change.
    ///   - changedKeys: the properties that changed.
    ///   - expectedVersion: the version the context read it at.
    public init(snapshot: ObjectSnapshot, changedKeys: Set<String>, expectedVersion: Int64) {
        self.snapshot = snapshot
        self.changedKeys = changedKeys
        self.expectedVersion = expectedVersion
    }
}
