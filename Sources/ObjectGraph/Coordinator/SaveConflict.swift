import Foundation
import Synchronization

/// An object that changed in its store since the context read it.
public struct SaveConflict: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID
    /// The version the context read.
    public var expectedVersion: Int64
    /// What the store holds now (`nil` when the object was deleted there).
    public var storedSnapshot: ObjectSnapshot?

    /// Creates a conflict (stores report them from ``IncrementalStore/prepareSave(_:)``).
    /// - Parameters:
    ///   - objectID: the object.
    ///   - expectedVersion: the version the context read it at.
    ///   - storedSnapshot: its state in the store now (`nil`: deleted there).
    public init(objectID: ManagedObjectID, expectedVersion: Int64, storedSnapshot: ObjectSnapshot?) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storedSnapshot = storedSnapshot
    }
}
