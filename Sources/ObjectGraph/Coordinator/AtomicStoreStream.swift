import Foundation

/// The objects of a whole store handed to a ``StreamingAtomicStore`` a batch at a time.
public struct AtomicStoreStream {
    /// The store's UUID.
    public var identifier: String
    /// The metadata to write.
    public var metadata: [String: PropertyList]
    /// The highest primary key among the objects (0 when there are none).
    public var highestKey: Int64
    /// How many objects the stream gives in all.
    public var count: Int
    /// How many objects of each entity the stream gives (for a store that writes each entity's count first).
    public var counts: [String: Int]
    /// The next batch of objects, in the store's ``StreamingAtomicStore/streamOrder`` (by key: ascending order of
    /// their keys in the copy, ``key``); `nil` once every object has been given.
    public var next: () throws(StoreError) -> [ObjectSnapshot]?
    /// The key an object has in the written store, for the objects the stream gives and the objects their
    /// relationships point to (a copy that renumbers keys says so here instead of making new IDs for every reference).
    public var key: (ManagedObjectID) throws(StoreError) -> Int64
    /// Whether the stream gives an object (so that a store can tell a relationship naming one from one naming an
    /// object that is not there); `nil` when the stream cannot say.
    public var holds: ((ManagedObjectID) -> Bool)?

    /// A stream of a store's objects.
    /// - Parameters:
    ///   - identifier: the store's UUID.
    ///   - metadata: the metadata to write.
    ///   - highestKey: the highest primary key among the objects.
    ///   - count: how many objects there are.
    ///   - counts: how many of each entity.
    ///   - key: the key an object has in the written store (by default its own).
    ///   - holds: whether the stream gives an object, when it can say.
    ///   - next: gives the next batch, in the store's order, or `nil` at the end.
    public init(
        identifier: String, metadata: [String: PropertyList], highestKey: Int64, count: Int, counts: [String: Int],
        key: @escaping (ManagedObjectID) throws(StoreError) -> Int64 = { $0.primaryKey },
        holds: ((ManagedObjectID) -> Bool)? = nil, next: @escaping () throws(StoreError) -> [ObjectSnapshot]?
    ) {
        self.identifier = identifier
        self.metadata = metadata
        self.highestKey = highestKey
        self.count = count
        self.counts = counts
        self.key = key
        self.holds = holds
        self.next = next
    }
}
