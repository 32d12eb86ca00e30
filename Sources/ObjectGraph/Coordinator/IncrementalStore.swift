import Foundation

/// A store that fetches on demand and saves changes row by row (SQLite).
public protocol IncrementalStore: PersistentStore {
    /// Opens the store; called once, when it is added.
    func load(model: ManagedObjectModel) throws(StoreError)
    /// The IDs of the objects of `entityNames` that match the request's predicate, in the request's order
    /// (without offset and limit: the coordinator applies them after merging stores and pending changes).
    func objectIDs(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ManagedObjectID]
    /// The objects ``objectIDs(for:entityNames:)`` gives, in the same order, as keys: a fetch of faults makes no ID
    /// for an object until it is asked for. `nil` when the store gives IDs only (the default), or not for this
    /// request.
    func objectKeys(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> ObjectKeys?
    /// The stored state of objects (missing ones are left out).
    func snapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot]
    /// The stored state of the objects of `entityNames` that match the request, in its order (without offset and
    /// limit), in as few requests as the store can: a store that selects rows and their values in one statement need
    /// not find the IDs first.
    func snapshots(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ObjectSnapshot]
    /// The same snapshots as ``snapshots(for:entityNames:)``, in the same order, handed to `body` one at a time as
    /// they are read: a fetch makes each object while its row is still in the cache, and holds no array of every
    /// row. Before the first, a store that knows cheaply how many there will be says so through `expecting` (a
    /// hint for making room, never a limit). `body` returns whether it keeps the snapshot after it returns: a store
    /// may write the next row over the arrays of one that is not kept. Both run while the coordinator's lock is held:
    /// they must not call the coordinator.
    func snapshots(
        for request: FetchRequest, entityNames: [String], expecting: (Int) -> Void,
        each body: (consuming ObjectSnapshot) -> Bool
    ) throws(StoreError)
    /// The destinations of a to-many relationship the store left as a fault in a snapshot.
    func destinations(of id: ManagedObjectID, relationship: String) throws(StoreError) -> [ManagedObjectID]
    /// The destinations of one to-many relationship of many objects (of one entity), in as few requests as the store
    /// can: what reading many objects whole needs, one request per batch instead of one per object.
    func destinations(of ids: [ManagedObjectID], relationship: String) throws(StoreError)
        -> [ManagedObjectID: [ManagedObjectID]]
    /// The primary keys of every stored object of exactly `entityName` (not its sub-entities), ascending: what a
    /// copy of the whole store needs to number and order the objects before it reads them a batch at a time.
    func primaryKeys(ofEntity entityName: String) throws(StoreError) -> [Int64]
    /// The current version of an object, for optimistic locking; `nil` when it no longer exists.
    func version(of id: ManagedObjectID) throws(StoreError) -> Int64?
    /// New keys for objects of a hierarchy root.
    func allocatePrimaryKeys(forRoot entityName: String, count: Int) throws(StoreError) -> [Int64]
    /// Prepares a save in one transaction. Inside it, each update and delete checks that the stored version is still
    /// the expected one; if any is not, the store rolls back and throws a ``StoreError`` with code
    /// ``StoreError/Code/conflict`` listing every conflict.
    func prepareSave(_ request: IncrementalSaveRequest) throws(StoreError) -> any StoreTransaction
}

extension IncrementalStore {
    /// `nil`: the coordinator asks ``objectIDs(for:entityNames:)``.
    /// - Parameters:
    ///   - request: the fetch request.
    ///   - entityNames: the entity and the sub-entities to include.
    /// - Returns: `nil`.
    /// - Throws: nothing here; a store's own version throws ``StoreError`` when it cannot be read.
    public func objectKeys(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> ObjectKeys? {
        nil
    }

    /// The IDs first (``objectIDs(for:entityNames:)``), then their rows (``snapshots(for:)``); stores that can do
    /// better implement it.
    /// - Parameters:
    ///   - request: the fetch request.
    ///   - entityNames: the entity and the sub-entities to include.
    /// - Returns: the matching objects' snapshots, in the request's order.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func snapshots(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ObjectSnapshot] {
        try snapshots(for: objectIDs(for: request, entityNames: entityNames))
    }

    /// Reads the whole array (``snapshots(for:entityNames:)``), says its size, then hands its snapshots over in
    /// turn; stores that read rows one at a time implement it.
    /// - Parameters:
    ///   - request: the fetch request.
    ///   - entityNames: the entity and the sub-entities to include.
    ///   - expecting: called once, with the number of snapshots, before the first.
    ///   - body: called with each matching object's snapshot, in the request's order; what it returns (whether it
    ///     keeps the snapshot) is not needed here.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func snapshots(
        for request: FetchRequest, entityNames: [String], expecting: (Int) -> Void,
        each body: (consuming ObjectSnapshot) -> Bool
    ) throws(StoreError) {
        let snapshots = try snapshots(for: request, entityNames: entityNames)
        expecting(snapshots.count)
        for snapshot in snapshots { _ = body(snapshot) }
    }

    /// The keys of the objects a fetch of exactly `entityName` finds, sorted; stores that can read the keys alone
    /// implement it.
    /// - Parameter entityName: the entity (its sub-entities are left out).
    /// - Returns: the keys, ascending.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func primaryKeys(ofEntity entityName: String) throws(StoreError) -> [Int64] {
        var exact = FetchRequest(entityName: entityName)
        exact.includesSubentities = false
        return try objectIDs(for: exact, entityNames: [entityName]).map(\.primaryKey).sorted()
    }

    /// One request per object; stores that can do better implement it.
    /// - Parameters:
    ///   - ids: the objects.
    ///   - relationship: the to-many relationship.
    /// - Returns: each object's destinations.
    /// - Throws: ``StoreError`` when a relationship cannot be read.
    public func destinations(of ids: [ManagedObjectID], relationship: String) throws(StoreError)
        -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in ids { result[id] = try destinations(of: id, relationship: relationship) }
        return result
    }
}
