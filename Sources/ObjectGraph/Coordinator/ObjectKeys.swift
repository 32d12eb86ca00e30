/// The objects of one store that a fetch matched, as primary keys and entity names in the fetch's order: what a fetch
/// of faults needs, without an ID made for every object (a context makes an object's ``ManagedObjectID`` when it is
/// first asked for). Keys of one entity in a row are kept as one run, so a list of one entity's keys is its keys and
/// one name.
public struct ObjectKeys: Sendable, Equatable {
    /// A run of keys of one entity: the entity's place in ``entityNames`` and the end of its keys in ``keys``.
    private struct Run: Sendable, Equatable {
        var entity: Int
        var end: Int
    }

    /// The UUID of the store the keys are from.
    public let storeIdentifier: String
    /// The entities of the keys, each once, in the order they first came.
    public private(set) var entityNames: [String] = []
    /// The primary keys, in the fetch's order.
    public private(set) var keys: [Int64] = []
    private var runs: [Run] = []

    /// An empty list of a store's objects.
    /// - Parameter storeIdentifier: the UUID of the store.
    public init(storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
    }

    /// The number of objects.
    public var count: Int { keys.count }

    /// Makes room for `count` more keys.
    /// - Parameter count: how many keys are about to be appended.
    public mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(keys.count + count)
    }

    /// Adds an object at the end.
    /// - Parameters:
    ///   - key: its primary key.
    ///   - entityName: its entity (compared with the last one's first: a store passing the same string for every
    ///     object of an entity pays one comparison of its storage).
    public mutating func append(_ key: Int64, entityName: String) {
        if let last = runs.last, entityNames[last.entity] == entityName {
            runs[runs.count - 1].end += 1
        } else {
            let index: Int
            if let known = entityNames.firstIndex(of: entityName) {
                index = known
            } else {
                index = entityNames.count
                entityNames.append(entityName)
            }
            runs.append(Run(entity: index, end: keys.count + 1))
        }
        keys.append(key)
    }

    /// Calls `body` with each run of keys of one entity, in order.
    /// - Parameter body: given an entity's name and the keys of a run of its objects.
    /// - Throws: what `body` throws.
    public func forEachRun<Failure: Error>(
        _ body: (_ entityName: String, _ keys: ArraySlice<Int64>) throws(Failure) -> Void
    ) throws(Failure) {
        var start = 0
        for run in runs {
            try body(entityNames[run.entity], keys[start..<run.end])
            start = run.end
        }
    }

    /// The objects' IDs, in order (one made for each).
    public var objectIDs: [ManagedObjectID] {
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(count)
        forEachRun { entityName, keys in
            for key in keys {
                ids.append(ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key))
            }
        }
        return ids
    }
}
