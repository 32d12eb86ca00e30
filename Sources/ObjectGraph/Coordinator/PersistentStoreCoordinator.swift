public import Foundation
import Synchronization

/// Makes one or more persistent stores look like one: it owns the model, adds and removes stores, routes fetches
/// to the stores that hold an entity and merges their results, gives new objects their store and permanent ID,
/// saves changes to every store at once (all or nothing), keeps a row cache, and migrates stores.
///
/// The coordinator is safe to share between contexts in different isolation domains: its state sits behind a
/// mutex and stores are only used under it.
public final class PersistentStoreCoordinator: Sendable {
    /// The model of every store.
    public let model: ManagedObjectModel
    let state = Mutex(CoordinatorState())
    /// The classes registered for entities, under their own lock: every fault a context makes asks, and must not wait
    /// for a store's work under ``state``.
    let classes = Mutex<[String: ManagedObject.Type]>([:])
    /// Whether any class was ever registered (read without the lock by every fault a context makes).
    let anyClassRegistered = Atomic<Bool>(false)

    /// Creates a coordinator for a model.
    /// - Parameter model: the model every store of the coordinator holds objects of.
    public init(model: ManagedObjectModel) {
        self.model = model
    }

    // MARK: - Stores

    /// The stores, in the order they were added.
    public var persistentStores: [any PersistentStore] {
        state.withLock { $0.entries.map(\.store) }
    }

    /// Adds a store of a registered type.
    ///
    /// - Parameters:
    ///   - type: `"InMemory"`, `"XML"`, `"Binary"`, `"SQLite"` or a type an app registered.
    ///   - configuration: the configuration whose entities the store holds (`nil`: every entity).
    ///   - url: the file, for stores that have one.
    ///   - options: store options, such as `"readOnly": "YES"`.
    /// - Returns: the store, loaded.
    /// - Throws: ``StoreError`` when the type is unknown, the configuration does not exist, or loading fails.
    @discardableResult
    public func addPersistentStore(
        type: String, configuration: String? = nil, url: URL? = nil, options: [String: String] = [:]
    ) throws(StoreError) -> any PersistentStore {
        guard let storeType = StoreType.named(type) else {
            throw StoreError(
                .unsupported, path: url?.path,
                "unknown store type '\(type)' (registered: \(StoreType.registeredNames.joined(separator: ", ")))")
        }
        guard model.entityNames(inConfiguration: configuration) != nil else {
            throw StoreError(.unsupported, "the model has no configuration '\(configuration ?? "")'")
        }
        let store = try storeType.make(
            StoreDescription(type: type, url: url, configurationName: configuration, options: options))
        return try add(store)
    }

    /// Adds a store object made elsewhere (for store types that are not registered).
    /// - Parameter store: the store, not yet loaded.
    /// - Returns: the store, loaded.
    /// - Throws: ``StoreError`` when loading fails or a store with the same UUID is already added.
    @discardableResult
    public func add(_ store: any PersistentStore) throws(StoreError) -> any PersistentStore {
        let entry = try StoreEntry(store: store, model: model)
        try state.withLock { (state) throws(StoreError) in
            if state.entries.contains(where: { $0.store.identifier == store.identifier }) {
                throw StoreError(
                    .unsupported, path: store.description.url?.path,
                    "a store with UUID \(store.identifier) is already added")
            }
            state.entries.append(entry)
        }
        return store
    }

    /// Removes a store; objects from it can no longer be fetched or saved.
    /// - Parameter store: one of the coordinator's stores.
    public func removePersistentStore(_ store: any PersistentStore) {
        state.withLock { state in
            state.entries.removeAll { $0.store === store }
            state.rowCache.removeRows(ofStore: store.identifier)
        }
    }

    /// The store with this UUID.
    /// - Parameter identifier: a store UUID.
    /// - Returns: the store, or `nil`.
    public func persistentStore(withIdentifier identifier: String) -> (any PersistentStore)? {
        state.withLock { $0.entries.first { $0.store.identifier == identifier }?.store }
    }

    /// The store with this URL.
    /// - Parameter url: a store file.
    /// - Returns: the store, or `nil`.
    public func persistentStore(for url: URL) -> (any PersistentStore)? {
        state.withLock {
            $0.entries.first { $0.store.description.url?.standardizedFileURL == url.standardizedFileURL }?.store
        }
    }

    /// Reads a store file's metadata without adding it.
    /// - Parameters:
    ///   - type: the store type; `nil` to detect it from the file.
    ///   - url: the store file.
    /// - Returns: the metadata: store type, UUID, version hashes and any keys the app wrote.
    /// - Throws: ``StoreError`` `notFound` for a missing file, `unsupported` for a file of no known type.
    public static func metadataForPersistentStore(
        ofType type: String? = nil, at url: URL
    ) throws(StoreError) -> [String: PropertyList] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.notFound, path: url.path, "no such file")
        }
        guard let storeType = type.flatMap(StoreType.named) ?? StoreType.detect(at: url) else {
            throw StoreError(.unsupported, path: url.path, "not a store of any registered type")
        }
        guard let read = storeType.readMetadata else {
            throw StoreError(.unsupported, path: url.path, "store type \(storeType.name) cannot read metadata alone")
        }
        return try read(url)
    }

    /// Registers the class for an entity's objects (instead of the generic ``ManagedObject``).
    /// - Parameters:
    ///   - type: a subclass of ``ManagedObject``.
    ///   - name: the entity whose objects it makes.
    public func registerClass(_ type: ManagedObject.Type, forEntityName name: String) {
        classes.withLock { $0[name] = type }
        anyClassRegistered.store(true, ordering: .releasing)
    }

    package func objectClass(forEntityName name: String) -> ManagedObject.Type {
        guard anyClassRegistered.load(ordering: .acquiring) else { return ManagedObject.self }
        return classes.withLock { $0[name] } ?? ManagedObject.self
    }

    /// The object ID a URI stands for, when its store is added and its entity exists.
    /// - Parameter uri: an object URI (`x-coredata://UUID/Entity/pN`).
    /// - Returns: the ID, or `nil`.
    public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        guard let id = ManagedObjectID(uriRepresentation: uri), model.entity(named: id.entityName) != nil else {
            return nil
        }
        if id.isTemporary { return id }
        return persistentStore(withIdentifier: id.storeIdentifier ?? "") == nil ? nil : id
    }

    // MARK: - Fetching

    /// The stored objects matching a request, merged over every store holding the entity and sorted — without
    /// offset and limit, which the context applies after merging its unsaved changes.
    func fetchSnapshots(_ request: FetchRequest) throws(StoreError) -> [ObjectSnapshot] {
        let entityNames =
            request.includesSubentities ? model.entityAndDescendants(of: request.entityName) : [request.entityName]
        return try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot] in
            let holding = state.entries.filter { entry in entityNames.contains { entry.entityNames.contains($0) } }
            return try Self.sortedSnapshots(request, entityNames: entityNames, from: holding, in: &state)
        }
    }

    /// Every matching snapshot of the `holding` stores, merged and (across stores) sorted; called under the lock.
    private static func sortedSnapshots(
        _ request: FetchRequest, entityNames: [String], from holding: [StoreEntry], in state: inout CoordinatorState
    ) throws(StoreError) -> [ObjectSnapshot] {
        var results: [ObjectSnapshot] = []
        for entry in holding {
            let fetched = try entry.fetch(request, entityNames: entityNames, rowCache: &state.rowCache)
            // The first store's results are taken as they are: appending would copy (and retain) every snapshot.
            if results.isEmpty { results = fetched } else { results += fetched }
        }
        if holding.count > 1, !request.sortDescriptors.isEmpty {
            let lookupState = state
            let views = results.map { snapshot in
                PredicateValue.object(SnapshotView(snapshot) { id in lookupState.snapshot(id) })
            }
            do throws(ObjectPredicateError) {
                results = try request.sortDescriptors.stablySorted(views).map { results[$0] }
            } catch {
                throw StoreError(.unsupported, "cannot sort the fetch: \(error.message)")
            }
        }
        return results
    }

    /// The snapshots ``fetchSnapshots(_:)`` returns, handed to `body` in the same order as a store reads them (from
    /// one store, or several without a sort; across stores with a sort they are read whole and sorted first), so that
    /// a fetch need not hold every row at once. `expecting` is told, before a store's first snapshot, how many it will
    /// hand over when the store knows (a hint for making room). Both run under the coordinator's lock: they must not
    /// call the coordinator.
    func fetchSnapshots(
        _ request: FetchRequest, expecting: (Int) -> Void, each body: (ObjectSnapshot, _ dropped: Bool) -> Void
    ) throws(StoreError) {
        let entityNames =
            request.includesSubentities ? model.entityAndDescendants(of: request.entityName) : [request.entityName]
        try state.withLock { (state) throws(StoreError) in
            let holding = state.entries.filter { entry in entityNames.contains { entry.entityNames.contains($0) } }
            guard holding.count <= 1 || request.sortDescriptors.isEmpty else {
                // Sorting across stores needs every row first.
                let sorted = try Self.sortedSnapshots(request, entityNames: entityNames, from: holding, in: &state)
                expecting(sorted.count)
                for snapshot in sorted { body(snapshot, false) }
                return
            }
            for entry in holding {
                try entry.fetch(
                    request, entityNames: entityNames, rowCache: &state.rowCache, expecting: expecting, each: body)
            }
        }
    }

    /// The IDs of the stored objects matching a request, without reading their rows where the store can say which
    /// match by itself (an incremental store); merged over every store holding the entity, sorted, no offset or limit.
    func fetchObjectIDs(_ request: FetchRequest) throws(StoreError) -> [ManagedObjectID] {
        var ids: [ManagedObjectID] = []
        for matches in try fetchMatches(request) {
            let found = matches.objectIDs
            // The first store's IDs are taken as they are: appending would copy (and retain) every one.
            if ids.isEmpty { ids = found } else { ids += found }
        }
        return ids
    }

    /// The stored objects matching a request as ``fetchObjectIDs(_:)`` finds them, each store's as keys where it
    /// lists them so (a fetch of faults then makes no ID per object), in order.
    func fetchMatches(_ request: FetchRequest) throws(StoreError) -> [StoreMatches] {
        let entityNames =
            request.includesSubentities ? model.entityAndDescendants(of: request.entityName) : [request.entityName]
        let holding = state.withLock { state in
            state.entries.filter { entry in entityNames.contains { entry.entityNames.contains($0) } }
        }
        // Sorting across stores needs the values: take the full path.
        if holding.count > 1, !request.sortDescriptors.isEmpty {
            return [.ids(try fetchSnapshots(request).map(\.objectID))]
        }
        var matches: [StoreMatches] = []
        for entry in holding { matches.append(try entry.fetchMatches(request, entityNames: entityNames)) }
        return matches
    }

    /// The stored state of many objects, in the order of `ids` (missing ones left out): row cache first, the rest
    /// read from each store in one request.
    func snapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot] {
        try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot] in
            // Callers fill objects from these at once: the row cache is read, not added to.
            if let first = ids.first, ids.allSatisfy({ $0.storeIdentifier == first.storeIdentifier }),
                let entry = state.entries.first(where: { $0.store.identifier == first.storeIdentifier }),
                let incremental = entry.store as? any IncrementalStore
            {
                return try entry.snapshots(of: ids, from: incremental, rowCache: &state.rowCache, caching: false)
            }
            var byStore: [String: [ManagedObjectID]] = [:]
            for id in ids { byStore[id.storeIdentifier ?? "", default: []].append(id) }
            var found: [ManagedObjectID: ObjectSnapshot] = [:]
            for (identifier, storeIDs) in byStore {
                guard let entry = state.entries.first(where: { $0.store.identifier == identifier }) else { continue }
                if let incremental = entry.store as? any IncrementalStore {
                    for snapshot in try entry.snapshots(
                        of: storeIDs, from: incremental, rowCache: &state.rowCache, caching: false)
                    {
                        found[snapshot.objectID] = snapshot
                    }
                } else {
                    for id in storeIDs { if let snapshot = entry.objects[id] { found[id] = snapshot } }
                }
            }
            return ids.compactMap { found[$0] }
        }
    }

    /// The stored objects of exactly one entity (its sub-entities left out) as each store's identifier and keys,
    /// ascending: what a caller that visits every object in order needs, without an ID made per object up front (an
    /// incremental store reads the keys alone; an atomic store's are in memory).
    /// - Parameter name: the entity.
    /// - Returns: one entry per store holding the entity.
    /// - Throws: ``StoreError`` when a store cannot read its keys.
    package func storedKeys(ofEntity name: String) throws(StoreError) -> [(store: String, keys: [Int64])] {
        try state.withLock { (state) throws(StoreError) -> [(store: String, keys: [Int64])] in
            var result: [(store: String, keys: [Int64])] = []
            for entry in state.entries where entry.entityNames.contains(name) {
                if let incremental = entry.store as? any IncrementalStore {
                    result.append((entry.store.identifier, try incremental.primaryKeys(ofEntity: name)))
                } else {
                    let keys = entry.objects.keys.lazy.filter { $0.entityName == name }.map(\.primaryKey).sorted()
                    result.append((entry.store.identifier, keys))
                }
            }
            return result
        }
    }

    /// The stored state of many objects whole (in the order of `ids`, missing ones left out): as
    /// ``snapshots(for:)``, with the to-many relationships a store left as faults read too, one request per
    /// relationship for the batch. What a context needs to make the objects and their to-manys without asking a store
    /// again — so it can be read on another thread ahead of the objects (`docutil dump` does).
    /// - Parameter ids: the objects.
    /// - Returns: their snapshots, with no to-many left as a fault.
    /// - Throws: ``StoreError`` when a store cannot read them.
    package func wholeSnapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot] {
        try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot] in
            try Self.whole(ids, in: state.entries, rows: &state.rowCache) { entry, id, _ in entry.objects[id] }
        }
    }

    /// Snapshots read by a fetch (``ManagedObjectContext/storedSnapshots(for:)``) made whole: the to-many
    /// relationships the store left as faults read, one request per relationship for the batch, no row read again.
    /// Safe to call on another thread than the context's.
    /// - Parameter snapshots: the snapshots, of objects of this coordinator's stores.
    /// - Returns: them, in their order, with no to-many left as a fault.
    /// - Throws: ``StoreError`` when a store cannot read them.
    package func wholeSnapshots(completing snapshots: [ObjectSnapshot]) throws(StoreError) -> [ObjectSnapshot] {
        // Of one incremental store (the usual case): completed where they are, nothing looked up by ID.
        if let identifier = snapshots.first?.objectID.storeIdentifier,
            snapshots.allSatisfy({ $0.objectID.storeIdentifier == identifier })
        {
            let whole = try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot]? in
                guard let entry = state.entries.first(where: { $0.store.identifier == identifier }),
                    let incremental = entry.store as? any IncrementalStore
                else { return nil }
                var whole = snapshots
                try entry.readToManyFaults(of: &whole, from: incremental)
                return whole
            }
            if let whole { return whole }
        }
        var given = RowCache()
        given.reserveCapacity(snapshots.count)
        for snapshot in snapshots { given.insert(snapshot) }
        let ids = snapshots.map(\.objectID)
        return try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot] in
            try Self.whole(ids, in: state.entries, rows: &given) { _, id, rows in rows[id] }
        }
    }

    /// `ids` made whole, store by store (in the order of `ids`, missing ones left out): rows from `rows` first, the
    /// rest read, and to-many faults read one request per relationship; an atomic store's objects (whole already)
    /// from `atomic`.
    private static func whole(
        _ ids: [ManagedObjectID], in entries: [StoreEntry], rows: inout RowCache,
        atomic: (StoreEntry, ManagedObjectID, RowCache) -> ObjectSnapshot?
    ) throws(StoreError) -> [ObjectSnapshot] {
        var byStore: [String: [ManagedObjectID]] = [:]
        for id in ids { byStore[id.storeIdentifier ?? "", default: []].append(id) }
        var found: [ManagedObjectID: ObjectSnapshot] = [:]
        for (identifier, storeIDs) in byStore {
            guard let entry = entries.first(where: { $0.store.identifier == identifier }) else { continue }
            guard let incremental = entry.store as? any IncrementalStore else {
                for id in storeIDs { if let snapshot = atomic(entry, id, rows) { found[id] = snapshot } }
                continue
            }
            let read = try entry.wholeSnapshots(of: storeIDs, from: incremental, rowCache: &rows)
            // One store (the usual case) answers in the order asked.
            if byStore.count == 1 { return read }
            for snapshot in read { found[snapshot.objectID] = snapshot }
        }
        return ids.compactMap { found[$0] }
    }

    /// The stored state of one object (row cache first).
    func snapshot(for id: ManagedObjectID) throws(StoreError) -> ObjectSnapshot? {
        try state.withLock { (state) throws(StoreError) -> ObjectSnapshot? in
            if let cached = state.snapshot(id) { return cached }
            guard let entry = state.entry(for: id), let incremental = entry.store as? any IncrementalStore else {
                return nil
            }
            let found = try incremental.snapshots(for: [id]).first
            if let found { CoordinatorState.cache([found], in: &state.rowCache) }
            return found
        }
    }

    /// The destinations of a to-many relationship that arrived as a fault.
    func destinations(of id: ManagedObjectID, relationship: String) throws(StoreError) -> [ManagedObjectID] {
        try state.withLock { (state) throws(StoreError) -> [ManagedObjectID] in
            if let cached = state.rowCache[id], let ids = cached[toMany: relationship] { return ids }
            guard let entry = state.entry(for: id) else {
                throw StoreError(.unsupported, "\(id): no store with UUID \(id.storeIdentifier ?? "none") is added")
            }
            if let incremental = entry.store as? any IncrementalStore {
                return try incremental.destinations(of: id, relationship: relationship)
            }
            return entry.objects[id]?[toMany: relationship] ?? []
        }
    }

    /// The destinations of one to-many relationship of many objects, each store asked once for its objects.
    func destinations(of ids: [ManagedObjectID], relationship: String) throws(StoreError)
        -> [ManagedObjectID: [ManagedObjectID]]
    {
        try state.withLock { (state) throws(StoreError) -> [ManagedObjectID: [ManagedObjectID]] in
            var result: [ManagedObjectID: [ManagedObjectID]] = [:]
            var byStore: [String: [ManagedObjectID]] = [:]
            for id in ids {
                if let cached = state.rowCache[id], let destinations = cached[toMany: relationship] {
                    result[id] = destinations
                } else {
                    byStore[id.storeIdentifier ?? "", default: []].append(id)
                }
            }
            for (identifier, storeIDs) in byStore {
                guard let entry = state.entries.first(where: { $0.store.identifier == identifier }) else {
                    throw StoreError(.unsupported, "no store with UUID \(identifier) is added")
                }
                if let incremental = entry.store as? any IncrementalStore {
                    for (id, destinations) in try incremental.destinations(of: storeIDs, relationship: relationship) {
                        result[id] = destinations
                    }
                } else {
                    for id in storeIDs { result[id] = entry.objects[id]?[toMany: relationship] ?? [] }
                }
            }
            return result
        }
    }

    // MARK: - Saving

    /// Gives new objects permanent IDs in the stores they are assigned to (or the first store holding the entity).
    package func obtainPermanentIDs(
        for requests: [(entityName: String, store: String?)]
    ) throws(StoreError) -> [ManagedObjectID] {
        try state.withLock { (state) throws(StoreError) -> [ManagedObjectID] in
            // Runs of requests for one entity in one store (a batch is one run, looked up once), each in its group:
            // a store and a root entity, whose keys are allocated at once, in the order of the requests.
            var groups: [(entry: StoreEntry, root: String, count: Int)] = []
            var groupIndex: [String: Int] = [:]
            var runs: [(start: Int, end: Int, group: Int)] = []
            try requests.withUnsafeBufferPointer { (requests) throws(StoreError) in
                var start = 0
                while start < requests.count {
                    let entityName = requests[start].entityName
                    let storeName = requests[start].store
                    var end = start + 1
                    while end < requests.count, requests[end].entityName == entityName,
                        requests[end].store == storeName
                    {
                        end += 1
                    }
                    guard
                        let entry = storeName.flatMap({ s in state.entries.first { $0.store.identifier == s } })
                            ?? state.entries.first(where: { $0.entityNames.contains(entityName) })
                    else {
                        throw StoreError(.unsupported, "no store holds entity \(entityName); add one first")
                    }
                    let root = model.rootEntity(of: entityName)
                    let key = entry.store.identifier + "\u{0}" + root
                    let group: Int
                    if let known = groupIndex[key] {
                        group = known
                    } else {
                        group = groups.count
                        groupIndex[key] = group
                        groups.append((entry, root, 0))
                    }
                    groups[group].count += end - start
                    runs.append((start, end, group))
                    start = end
                }
            }
            var keys: [[Int64]] = []
            keys.reserveCapacity(groups.count)
            for group in groups { keys.append(try group.entry.allocateKeys(root: group.root, count: group.count)) }
            // (The store's identifier and the entity's name read once per run, not per object.)
            var used = [Int](repeating: 0, count: groups.count)
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(requests.count)
            for run in runs {
                let store = groups[run.group].entry.store.identifier
                let entityName = requests[run.start].entityName
                keys[run.group].withUnsafeBufferPointer { keys in
                    var next = used[run.group]
                    for _ in run.start..<run.end {
                        ids.append(
                            ManagedObjectID(entityName: entityName, storeIdentifier: store, primaryKey: keys[next]))
                        next += 1
                    }
                    used[run.group] = next
                }
            }
            return ids
        }
    }

    /// Writes new objects straight to their stores, without a context (Core Data's batch insert): no object is
    /// made, registered or validated; each snapshot must carry a permanent ID from ``obtainPermanentIDs(for:)``.
    /// All or nothing, as a save.
    /// - Parameter snapshots: the new objects' values and to-one destinations.
    /// - Throws: ``StoreError`` when a store cannot write them (nothing is then written).
    package func insert(_ snapshots: [ObjectSnapshot]) throws(StoreError) {
        let (conflicts, _) = try save(SaveChanges(inserted: snapshots))
        guard conflicts.isEmpty else {
            throw StoreError(
                .conflict, "\(conflicts.count) new object(s) conflict with stored ones", conflicts: conflicts)
        }
    }

    /// The store a new object of an entity goes to by default.
    func defaultStore(forEntity name: String) -> String? {
        state.withLock { $0.entries.first { $0.entityNames.contains(name) }?.store.identifier }
    }

    /// Refuses a save that links an object to one its store cannot hold: in another store or in none (a key from a
    /// made-up ID), or with a key no store hands out (temporary, zero, negative). Stores write a destination as a key
    /// of their own: it would be read back as another object, or as a file that does not open. A destination that
    /// merely no longer exists (a relationship without an inverse, after its destination was deleted) is kept, as
    /// Core Data keeps it; `check` reports it. An update is checked only for the relationships it changes.
    static func checkDestinations(
        inserted: [ObjectSnapshot], updated: [ObjectUpdate], store identifier: String, path: String?
    ) throws(StoreError) {
        func check(_ owner: ManagedObjectID, _ name: String, _ destination: ManagedObjectID) throws(StoreError) {
            guard destination.isTemporary || destination.storeIdentifier != identifier || destination.primaryKey <= 0
            else { return }
            throw StoreError(
                .unsupported, path: path,
                "\(owner).\(name) names \(destination), which is not an object of this store (a relationship links objects of one store); not saved"
            )
        }
        // Through a buffer: each snapshot is read where it is, not copied.
        try inserted.withUnsafeBufferPointer { (inserted) throws(StoreError) in
            guard let first = inserted.baseAddress else { return }
            for i in inserted.indices {
                try ObjectSnapshot.forEachDestination(of: first + i) { (name, destination) throws(StoreError) in
                    try check(inserted[i].objectID, name, destination)
                }
            }
        }
        // The same for updates, only the relationships each changes: its snapshot read in place (at its offset in
        // the update), not copied — or through a copy, were the offset not known (it is: a stored property).
        let offset = MemoryLayout<ObjectUpdate>.offset(of: \ObjectUpdate.snapshot)
        try updated.withUnsafeBufferPointer { (updated) throws(StoreError) in
            guard let first = updated.baseAddress else { return }
            for i in updated.indices where !updated[i].changedKeys.isEmpty {
                func checkChanged(_ snapshot: UnsafePointer<ObjectSnapshot>) throws(StoreError) {
                    try ObjectSnapshot.forEachDestination(of: snapshot) { (name, destination) throws(StoreError) in
                        guard updated[i].changedKeys.contains(name) else { return }
                        try check(snapshot.pointee.objectID, name, destination)
                    }
                }
                if let offset {
                    try checkChanged(
                        UnsafeRawPointer(first + i).advanced(by: offset).assumingMemoryBound(to: ObjectSnapshot.self))
                } else {
                    try withUnsafePointer(to: updated[i].snapshot) { (snapshot) throws(StoreError) in
                        try checkChanged(snapshot)
                    }
                }
            }
        }
    }

    /// Saves changes to every store involved, all or nothing.
    ///
    /// Atomic stores are checked for conflicts under the lock before anything is written; incremental stores check
    /// inside their own transaction (so no other process can write between the check and the write).
    /// - Returns: conflicts (objects whose stored version differs from the expected one) instead of saving, when
    ///   there are any.
    func save(_ changes: SaveChanges) throws(StoreError) -> (
        conflicts: [SaveConflict], changedByStores: [ManagedObjectID]
    ) {
        try state.withLock { (state) throws(StoreError) -> ([SaveConflict], [ManagedObjectID]) in
            var conflicts: [SaveConflict] = []
            // Atomic stores' versions are checked here (incremental stores check their own, in their transaction).
            let hasAtomicStore = state.entries.contains { !($0.store is any IncrementalStore) }
            for i in changes.updated.indices where hasAtomicStore {
                let id = changes.updated[i].snapshot.objectID
                guard let entry = state.entry(for: id), !(entry.store is any IncrementalStore) else { continue }
                let current = entry.objects[id]?.version
                if current != changes.updated[i].expectedVersion {
                    conflicts.append(
                        SaveConflict(
                            objectID: id, expectedVersion: changes.updated[i].expectedVersion,
                            storedSnapshot: entry.objects[id]))
                }
            }
            for deletion in changes.deleted where hasAtomicStore {
                guard let entry = state.entry(for: deletion.objectID), !(entry.store is any IncrementalStore) else {
                    continue
                }
                let current = entry.objects[deletion.objectID]?.version
                if current != nil && current != deletion.expectedVersion {
                    conflicts.append(
                        SaveConflict(
                            objectID: deletion.objectID, expectedVersion: deletion.expectedVersion,
                            storedSnapshot: entry.objects[deletion.objectID]))
                }
            }
            if !conflicts.isEmpty { return (conflicts, []) }

            var prepared: [(StoreEntry, any StoreTransaction, () -> Void)] = []
            do throws(StoreError) {
                for entry in state.entries {
                    let identifier = entry.store.identifier
                    // A list whose changes are all this store's is used as it is (no copy).
                    func mine<T>(_ changes: [T], _ id: (borrowing T) -> ManagedObjectID) -> [T] {
                        changes.allSatisfy { id($0).storeIdentifier == identifier }
                            ? changes : changes.filter { id($0).storeIdentifier == identifier }
                    }
                    let inserted = mine(changes.inserted) { $0.objectID }
                    let updated = mine(changes.updated) { $0.snapshot.objectID }
                    let deleted = mine(changes.deleted) { $0.objectID }
                    if inserted.isEmpty && updated.isEmpty && deleted.isEmpty { continue }
                    if entry.store.description.isReadOnly {
                        throw StoreError(.readOnly, path: entry.store.description.url?.path, "the store is read-only")
                    }
                    try Self.checkDestinations(
                        inserted: inserted, updated: updated, store: identifier, path: entry.store.description.url?.path
                    )
                    let (transaction, apply) = try entry.prepare(
                        inserted: inserted, updated: updated, deleted: deleted, model: model)
                    prepared.append((entry, transaction, apply))
                }
            } catch {
                for (_, transaction, _) in prepared { transaction.rollback() }
                if error.code == .conflict && !error.conflicts.isEmpty { return (error.conflicts, []) }
                throw error
            }
            var changedByStores: [ManagedObjectID] = []
            for (_, transaction, apply) in prepared {
                try transaction.commit()
                apply()
                changedByStores += transaction.objectsChangedByStore
            }
            if !state.rowCache.isEmpty {
                for snapshot in changes.inserted { state.rowCache[snapshot.objectID] = nil }
                for update in changes.updated { state.rowCache[update.snapshot.objectID] = nil }
                for deletion in changes.deleted { state.rowCache[deletion.objectID] = nil }
                for id in changedByStores { state.rowCache[id] = nil }
            }
            return ([], changedByStores)
        }
    }
}

/// Changes the context hands to the coordinator at save: new objects with permanent IDs, what changed in changed
/// objects with the version they were read at, deleted objects with their version.
struct SaveChanges {
    var inserted: [ObjectSnapshot] = []
    var updated: [ObjectUpdate] = []
    var deleted: [ObjectDeletion] = []
}
