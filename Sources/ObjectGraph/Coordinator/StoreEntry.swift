import Foundation

/// The coordinator's mutable state, only touched under its mutex.
struct CoordinatorState {
    var entries: [StoreEntry] = []
    /// Snapshots read from incremental stores, so a fault can fire without asking the store again. Bounded: when
    /// it would outgrow ``rowCacheLimit`` it starts afresh (a row no longer cached is read again when needed), so
    /// reading a large store in batches keeps memory flat.
    var rowCache = RowCache()
    static let rowCacheLimit = 50_000

    /// Makes room in a row cache for `count` more rows, starting it afresh first if they would not fit; whether they
    /// are to be cached (not when there are more than the cache holds).
    private static func makeRoom(for count: Int, in rowCache: inout RowCache) -> Bool {
        if rowCache.count + count > rowCacheLimit { rowCache = RowCache() }
        return count <= rowCacheLimit
    }

    /// Adds snapshots to a row cache, starting it afresh first if they would not fit.
    static func cache(
        _ snapshots: some Collection<ObjectSnapshot>, in rowCache: inout RowCache
    ) {
        guard makeRoom(for: snapshots.count, in: &rowCache) else { return }
        // Room made once, not by doubling while the rows go in.
        rowCache.reserveCapacity(rowCache.count + snapshots.count)
        for snapshot in snapshots { rowCache.insert(snapshot) }
    }

    /// Adds snapshots to a row cache as ``cache(_:in:)`` does, moving them out of `snapshots` (left empty) instead of
    /// copying each; the cache indexes them when a lookup first needs them.
    static func cache(moving snapshots: inout [ObjectSnapshot], in rowCache: inout RowCache) {
        guard makeRoom(for: snapshots.count, in: &rowCache) else {
            snapshots = []
            return
        }
        rowCache.insert(moving: &snapshots)
    }

    func entry(for id: ManagedObjectID) -> StoreEntry? {
        entries.first { $0.store.identifier == id.storeIdentifier }
    }

    /// A snapshot from an atomic store's contents or from the row cache.
    func snapshot(_ id: ManagedObjectID) -> ObjectSnapshot? {
        if let cached = rowCache[id] { return cached }
        return entry(for: id)?.objects[id]
    }

    /// The version the store holds now (bypassing the row cache).
    func currentVersion(of id: ManagedObjectID) throws(StoreError) -> Int64? {
        guard let entry = entry(for: id) else { return nil }
        if let incremental = entry.store as? any IncrementalStore { return try incremental.version(of: id) }
        return entry.objects[id]?.version
    }

    func freshSnapshot(_ id: ManagedObjectID) throws(StoreError) -> ObjectSnapshot? {
        guard let entry = entry(for: id) else { return nil }
        if let incremental = entry.store as? any IncrementalStore { return try incremental.snapshots(for: [id]).first }
        return entry.objects[id]
    }
}

/// One added store and, for atomic stores, its whole contents.
///
/// `@unchecked Sendable`: entries live inside the coordinator's mutex and are only used under it.
final class StoreEntry: @unchecked Sendable {
    let store: any PersistentStore
    let entityNames: Set<String>
    /// Every object of an atomic store, by ID.
    var objects: [ManagedObjectID: ObjectSnapshot] = [:]
    /// The highest key used per hierarchy root (atomic stores).
    var maxKeys: [String: Int64] = [:]
    /// Whether `maxKeys` covers the keys references name as well as the objects' own (see `allocateKeys`).
    var referencesCounted = true
    let rootOf: [String: String]

    /// A large store's objects are let go on another thread: whoever drops the last reference to the coordinator (a
    /// command finishing, a document closing) does not wait while a hundred thousand snapshots are freed.
    deinit {
        guard objects.count >= Self.freedElsewhere else { return }
        let doomed = Doomed(objects)
        objects = [:]
        DispatchQueue.global(qos: .utility).async { doomed.objects = [:] }
    }

    /// How many objects an entry holds before its deinit frees them on another thread.
    static let freedElsewhere = 10_000

    /// Objects handed to another thread to be freed there (only that thread touches them after the handover).
    private final class Doomed: @unchecked Sendable {
        var objects: [ManagedObjectID: ObjectSnapshot]
        init(_ objects: [ManagedObjectID: ObjectSnapshot]) { self.objects = objects }
    }

    /// - Parameter load: `false` for an atomic migration target, which starts empty whatever is at its URL
    ///   (an incremental store is always opened: it reads or creates its file).
    init(store: any PersistentStore, model: ManagedObjectModel, load: Bool = true) throws(StoreError) {
        self.store = store
        entityNames = Set(model.entityNames(inConfiguration: store.description.configurationName) ?? [])
        rootOf = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, model.rootEntity(of: $0.name)) })
        if let incremental = store as? any IncrementalStore {
            try incremental.load(model: model)
        } else if !load {
            return
        } else if let atomic = store as? any AtomicStore {
            let contents = try atomic.load(model: model)
            store.metadata = contents.metadata
            objects.reserveCapacity(contents.snapshots.count)
            for snapshot in contents.snapshots {
                objects[snapshot.objectID] = snapshot
                let root = rootOf[snapshot.objectID.entityName] ?? snapshot.objectID.entityName
                maxKeys[root] = max(maxKeys[root] ?? 0, snapshot.objectID.primaryKey)
            }
            referencesCounted = false
        } else {
            throw StoreError(.unsupported, "a store must be an AtomicStore or an IncrementalStore")
        }
    }

    /// `count` new primary keys for objects under `root`: one request to an incremental store (one transaction,
    /// not one per object).
    func allocateKeys(root: String, count: Int) throws(StoreError) -> [Int64] {
        guard count > 0 else { return [] }
        if let incremental = store as? any IncrementalStore {
            let keys = try incremental.allocatePrimaryKeys(forRoot: root, count: count)
            guard keys.count == count else {
                throw StoreError(.io, "the store allocated \(keys.count) of \(count) keys")
            }
            return keys
        }
        if !referencesCounted {
            // A reference to an object no longer there (a relationship without an inverse, its destination deleted)
            // holds its key: a new object given that key would be read back as its destination. Counted once, when
            // keys are first needed (a read-only session never pays for it).
            for snapshot in objects.values {
                snapshot.forEachDestination { _, destination in
                    let root = rootOf[destination.entityName] ?? destination.entityName
                    maxKeys[root] = max(maxKeys[root] ?? 0, destination.primaryKey)
                }
            }
            referencesCounted = true
        }
        var keys: [Int64] = []
        keys.reserveCapacity(count)
        var last: Int64
        if let atomic = store as? any AtomicStore, case .store(let floor) = atomic.primaryKeyScope {
            last = max(floor, maxKeys.values.max() ?? 0)
        } else {
            last = maxKeys[root] ?? 0
        }
        let (highest, overflow) = last.addingReportingOverflow(Int64(count))
        guard !overflow else {
            throw StoreError(
                .corrupt, path: store.description.url?.path,
                "the store's keys reach \(last): no room for \(count) new keys")
        }
        for _ in 0..<count {
            last += 1
            keys.append(last)
        }
        maxKeys[root] = highest
        return keys
    }

    func fetch(
        _ request: FetchRequest, entityNames: [String], rowCache: inout RowCache
    ) throws(StoreError) -> [ObjectSnapshot] {
        if let incremental = store as? any IncrementalStore {
            let fetched = try incremental.snapshots(
                for: request, entityNames: entityNames.filter(self.entityNames.contains))
            // As when rows are read by ID: a row already in the cache is the one the objects were filled from.
            let result = rowCache.isEmpty ? fetched : fetched.map { rowCache[$0.identity] ?? $0 }
            CoordinatorState.cache(
                rowCache.isEmpty ? fetched : fetched.filter { rowCache[$0.identity] == nil }, in: &rowCache)
            return result
        }
        let kinds = Set(entityNames)
        var candidates = objects.values.filter { kinds.contains($0.objectID.entityName) }
        // In key order, as a SQLite store answers: the entities of a hierarchy share one sequence of keys (its
        // table's), so a fetch of several comes back in the order the objects were made, and ties of a sort in that
        // order too (by entity first, a fetch of a hierarchy and its ties came back in another order than SQLite's).
        candidates.sort {
            ($0.objectID.primaryKey, $0.objectID.entityName) < ($1.objectID.primaryKey, $1.objectID.entityName)
        }
        guard request.predicate != nil || !request.sortDescriptors.isEmpty else { return candidates }
        let lookup: (ManagedObjectID) -> ObjectSnapshot? = { [objects] id in objects[id] }
        var unbounded = request
        unbounded.fetchLimit = 0
        unbounded.fetchOffset = 0
        unbounded.resultType = .managedObject
        let views = candidates.map { PredicateValue.object(SnapshotView($0, lookup: lookup)) }
        let result: FetchResult
        do {
            result = try InMemoryFetch.execute(unbounded, over: views)
        } catch {
            var failure = StoreError(.corrupt, path: store.description.url?.path, error.message)
            failure.predicateError = error
            throw failure
        }
        guard case .objects(let matched) = result else { return [] }
        return matched.compactMap {
            if case .object(let view as SnapshotView) = $0 { return view.snapshot }
            return nil
        }
    }

    /// What ``fetch(_:entityNames:rowCache:)`` returns, handed to `body` one snapshot at a time as an incremental
    /// store reads its rows, after `expecting` is told how many there will be when the store knows. The row cache is
    /// kept as that method keeps it: a fetch of more rows than the cache holds starts it afresh and adds none. The
    /// store is told a row is kept only when the cache keeps it: a `body` that keeps a snapshot itself is safe
    /// (copy-on-write), but costs the next row a copy of its arrays. `body` is told whether the snapshot is dropped
    /// once it returns (neither cached nor kept by the store): an object filled from it may then take its values.
    func fetch(
        _ request: FetchRequest, entityNames: [String], rowCache: inout RowCache,
        expecting: (Int) -> Void, each body: (ObjectSnapshot, _ dropped: Bool) -> Void
    ) throws(StoreError) {
        guard let incremental = store as? any IncrementalStore else {
            let snapshots = try fetch(request, entityNames: entityNames, rowCache: &rowCache)
            expecting(snapshots.count)
            for snapshot in snapshots { body(snapshot, false) }
            return
        }
        // The rows to cache, kept in a list while they would fit (known at once when the store says how many rows
        // come) and put in the cache by ID at the end: the cache then makes room for them once, where inserting each
        // as it came grew a dictionary of unknown size step by step (half of caching a row was rehashing).
        var uncached: [ObjectSnapshot] = []
        var overflowed = false
        let cached = rowCache
        let nothingCached = cached.isEmpty
        try incremental.snapshots(
            for: request, entityNames: entityNames.filter(self.entityNames.contains),
            expecting: { count in
                if count > CoordinatorState.rowCacheLimit {
                    overflowed = true
                } else {
                    uncached.reserveCapacity(count)
                }
                expecting(count)
            }
        ) { (fresh: consuming ObjectSnapshot) in
            // As when rows are read by ID: a row already in the cache is the one the objects were filled from. (A row
            // the store hands over by key is looked up and kept by key: no ID is made for it.)
            if !nothingCached, let known = cached[fresh.identity] {
                body(known, false)
                return false
            }
            if !overflowed {
                if uncached.count < CoordinatorState.rowCacheLimit {
                    // Kept: an object filled from it copies its values. (Then moved into the list, not copied.)
                    fresh.slotted?.mayBeAdopted = false
                    body(fresh, false)
                    uncached.append(consume fresh)
                    return true
                }
                overflowed = true
                uncached = []
            }
            body(fresh, true)
            return false
        }
        if overflowed {
            rowCache = RowCache()
        } else {
            CoordinatorState.cache(moving: &uncached, in: &rowCache)
        }
    }

    /// The snapshots of `ids` (in that order, missing ones left out): from the row cache, the rest read from the store
    /// in one request and, with `caching`, kept in the cache within its bound (a caller that fills objects from them
    /// at once has no use for the cache, and skips its cost).
    func snapshots(
        of ids: [ManagedObjectID], from incremental: any IncrementalStore,
        rowCache: inout RowCache, caching: Bool = true
    ) throws(StoreError) -> [ObjectSnapshot] {
        let missing = rowCache.isEmpty ? ids : ids.filter { rowCache[$0] == nil }
        let fetched = try incremental.snapshots(for: missing)
        let result: [ObjectSnapshot]
        if missing.count == ids.count, fetched.count == ids.count, zip(fetched, ids).allSatisfy({ $0.objectID == $1 }) {
            // The store answered in the order asked, for every ID: nothing to look up.
            result = fetched
        } else {
            var read: [ManagedObjectID: ObjectSnapshot] = [:]
            read.reserveCapacity(fetched.count)
            for snapshot in fetched { read[snapshot.objectID] = snapshot }
            result = ids.compactMap { rowCache[$0] ?? read[$0] }
        }
        // After the result is taken: caching may start the cache afresh.
        if caching { CoordinatorState.cache(fetched, in: &rowCache) }
        return result
    }

    /// The objects a request matches, without reading their rows from an incremental store: as keys where the store
    /// lists them so, else as IDs.
    func fetchMatches(_ request: FetchRequest, entityNames: [String]) throws(StoreError) -> StoreMatches {
        if let incremental = store as? any IncrementalStore {
            let entityNames = entityNames.filter(self.entityNames.contains)
            if let keys = try incremental.objectKeys(for: request, entityNames: entityNames) { return .keys(keys) }
            return .ids(try incremental.objectIDs(for: request, entityNames: entityNames))
        }
        var unused = RowCache()
        return .ids(try fetch(request, entityNames: entityNames, rowCache: &unused).map(\.objectID))
    }

    /// Prepares this store's part of a save; the returned closure updates the contents kept here after commit.
    func prepare(
        inserted: [ObjectSnapshot], updated: [ObjectUpdate], deleted: [ObjectDeletion], model: ManagedObjectModel
    ) throws(StoreError) -> (any StoreTransaction, () -> Void) {
        if let incremental = store as? any IncrementalStore {
            let transaction = try incremental.prepareSave(
                IncrementalSaveRequest(inserted: inserted, updated: updated, deleted: deleted))
            return (transaction, {})
        }
        guard let atomic = store as? any AtomicStore else { throw StoreError(.unsupported, "unknown store kind") }
        var next = objects
        for snapshot in inserted { next[snapshot.objectID] = snapshot }
        for update in updated {
            guard var stored = next[update.snapshot.objectID] else {
                throw StoreError(
                    .conflict, path: store.description.url?.path,
                    "\(update.snapshot.objectID) is no longer in the store",
                    conflicts: [
                        SaveConflict(
                            objectID: update.snapshot.objectID, expectedVersion: update.expectedVersion,
                            storedSnapshot: nil)
                    ])
            }
            stored.apply(update)
            next[update.snapshot.objectID] = stored
        }
        for deletion in deleted { next[deletion.objectID] = nil }
        var keys = maxKeys
        for snapshot in inserted {
            let root = rootOf[snapshot.objectID.entityName] ?? snapshot.objectID.entityName
            keys[root] = max(keys[root] ?? 0, snapshot.objectID.primaryKey)
        }
        // Unordered: a store that writes a file orders the objects itself.
        let contents = AtomicStoreContents(
            identifier: store.identifier, metadata: store.metadata, snapshots: Array(next.values))
        let transaction = try atomic.prepareWrite(contents, model: model)
        return (
            transaction,
            { [self] in
                objects = next
                maxKeys = keys
            }
        )
    }

    /// The stored state of objects of an incremental store whole (in the order of `ids`, missing ones left out):
    /// rows in `rowCache` first (nothing is added to it), and the to-many relationships the store left as faults read
    /// too, one request per relationship for the batch (a copy, or a dump, needs every link).
    func wholeSnapshots(
        of ids: [ManagedObjectID], from incremental: any IncrementalStore,
        rowCache: inout RowCache
    ) throws(StoreError) -> [ObjectSnapshot] {
        var snapshots = try snapshots(of: ids, from: incremental, rowCache: &rowCache, caching: false)
        try readToManyFaults(of: &snapshots, from: incremental)
        return snapshots
    }

    /// Reads the to-many relationships `snapshots` (of objects of this incremental store) left as faults: one
    /// request per relationship for all of them.
    func readToManyFaults(of snapshots: inout [ObjectSnapshot], from incremental: any IncrementalStore)
        throws(StoreError)
    {
        var pending: [String: [Int]] = [:]
        // Each snapshot read where it is (iterating the array copied every one whole).
        snapshots.withUnsafeBufferPointer { snapshots in
            guard let first = snapshots.baseAddress else { return }
            for i in snapshots.indices {
                ObjectSnapshot.forEachToManyFault(of: first + i) { name in pending[name, default: []].append(i) }
            }
        }
        for (name, positions) in pending.sorted(by: { $0.key < $1.key }) {
            let found = try incremental.destinations(of: positions.map { snapshots[$0].objectID }, relationship: name)
            for i in positions {
                guard let destinations = found[snapshots[i].objectID] else {
                    throw StoreError(
                        .io, path: store.description.url?.path, "cannot read \(name) of \(snapshots[i].objectID)")
                }
                snapshots[i].setDestinations(destinations, ofToMany: name)
            }
        }
    }

    /// Every object of the store, for migration; `progress` hears of each thousand objects read (done, total).
    func allSnapshots(model: ManagedObjectModel, progress: ((Int, Int) -> Void)? = nil) throws(StoreError)
        -> [ObjectSnapshot]
    {
        if let incremental = store as? any IncrementalStore {
            var uncached = RowCache()
            var ids: [ManagedObjectID] = []
            for name in entityNames.sorted() {
                var exact = FetchRequest(entityName: name)
                exact.includesSubentities = false
                ids += try incremental.objectIDs(for: exact, entityNames: [name])
            }
            var all: [ObjectSnapshot] = []
            all.reserveCapacity(ids.count)
            var start = 0
            while start < ids.count {
                let batch = Array(ids[start..<min(start + 1_000, ids.count)])
                all += try wholeSnapshots(of: batch, from: incremental, rowCache: &uncached)
                start += batch.count
                progress?(start, ids.count)
            }
            return all
        }
        progress?(objects.count, objects.count)
        return objects.values.sorted {
            ($0.objectID.entityName, $0.objectID.primaryKey) < ($1.objectID.entityName, $1.objectID.primaryKey)
        }
    }
}

/// The objects of one store (or, for a fetch sorted across stores, of several) that a fetch matched, in its order.
enum StoreMatches {
    /// As keys (``ObjectKeys``): no ID made.
    case keys(ObjectKeys)
    /// As IDs.
    case ids([ManagedObjectID])

    /// How many objects.
    var count: Int {
        switch self {
        case .keys(let keys): keys.count
        case .ids(let ids): ids.count
        }
    }

    /// Their IDs.
    var objectIDs: [ManagedObjectID] {
        switch self {
        case .keys(let keys): keys.objectIDs
        case .ids(let ids): ids
        }
    }
}
