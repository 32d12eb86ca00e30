import Foundation

/// One deleted object in a save, with the version it was read at.
public struct ObjectDeletion: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID
    /// The version the object was read at: the store must still hold it, or no longer hold the object.
    public var expectedVersion: Int64

    /// Creates a deletion.
    /// - Parameters:
    ///   - objectID: the object to delete.
    ///   - expectedVersion: the version the context read it at.
    public init(objectID: ManagedObjectID, expectedVersion: Int64) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
    }
}
