import Foundation

/// A store that reads its whole graph at once and writes it whole on every save (XML, binary, in-memory).
public protocol AtomicStore: PersistentStore {
    /// How new objects get their keys (default: per root entity).
    var primaryKeyScope: PrimaryKeyScope { get }
    /// Whether the file keeps each object's version, so that a version read back is the one saved (default: no,
    /// as in Apple's XML stores, whose objects read back at version 1 however often they were saved).
    var keepsVersions: Bool { get }
    /// Reads every object. Called once, when the store is added.
    func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents
    /// Prepares writing the whole store (e.g. to a temporary file beside the real one); the coordinator commits
    /// once every store of the save has prepared.
    func prepareWrite(_ contents: AtomicStoreContents, model: ManagedObjectModel) throws(StoreError)
        -> any StoreTransaction
}

extension AtomicStore {
    /// By default keys are numbered per root entity, as in SQLite stores.
    public var primaryKeyScope: PrimaryKeyScope { .perRootEntity }
    /// By default a file keeps no versions.
    public var keepsVersions: Bool { false }
}
