import Foundation

/// An atomic store that can also write a whole store from objects handed to it a batch at a time, so that a copy
/// of a large store (`docutil convert` of a SQLite document to XML) is never held whole in memory.
public protocol StreamingAtomicStore: AtomicStore {
    /// The order the store writes objects in, so the stream gives them in it.
    var streamOrder: AtomicStreamOrder { get }
    /// Writes every object `stream` gives, in the order it gives them, and prepares to put the result in place;
    /// nothing on disk changes until the transaction commits.
    /// - Parameters:
    ///   - stream: the store's identifier, metadata and highest key, and its objects batch by batch.
    ///   - model: the model the objects belong to.
    /// - Returns: the transaction that puts the written store in place on commit.
    /// - Throws: ``StoreError`` when a value cannot be written or the stream fails; nothing is put in place then.
    func prepareWrite(_ stream: AtomicStoreStream, model: ManagedObjectModel) throws(StoreError)
        -> any StoreTransaction
}

extension StreamingAtomicStore {
    /// By default, objects go in order of their keys across the whole store.
    public var streamOrder: AtomicStreamOrder { .byKey }
}

/// The order a ``StreamingAtomicStore`` takes objects in.
public enum AtomicStreamOrder: Sendable {
    /// Ascending keys across the whole store (keys are unique in the store).
    case byKey
    /// Entity by entity in order of entity name, ascending keys within each.
    case byEntity
}
