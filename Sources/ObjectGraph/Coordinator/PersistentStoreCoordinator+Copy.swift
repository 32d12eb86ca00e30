public import Foundation

extension PersistentStoreCoordinator {
    // MARK: - Copies and migration

    /// Writes a complete copy of a store, with `changes` laid over it, to a new file of any type: what save a copy
    /// (and autosave-elsewhere) needs, the document itself staying where it is.
    ///
    /// The copy is written to a temporary file beside `url` and renamed into place only when complete (a SQLite copy
    /// is checkpointed and closed first, so it is one whole file; a stale `-wal`/`-shm` of the old file goes
    /// first), so `url` never holds half a store. The coordinator's lock is held throughout, so no save of another
    /// context lands halfway. Between stores of the same type that can copy themselves (SQLite), the store's own
    /// copy is used (`VACUUM INTO`: every table and metadata key kept, externally stored data put beside the copy);
    /// otherwise every object is read and written. The copy keeps the store's UUID.
    ///
    /// - Parameters:
    ///   - store: the store to copy (one of this coordinator's).
    ///   - changes: unsaved changes of a context to write into the copy (``ManagedObjectContext/unsavedChanges()``).
    ///   - url: the file to write; a symbolic link is followed.
    ///   - type: the store type of the copy.
    ///   - options: options for the copy's store (as in ``StoreDescription/options``).
    ///   - progress: hears how many objects were read of how many, as the copy goes (a copy a store makes of itself
    ///     reports nothing).
    /// - Returns: the IDs objects have in the copy, where they differ: new objects' permanent IDs, and any objects the
    ///   copy had to renumber (a store with one key counter, like the XML store, holding keys that repeat across
    ///   entities).
    /// - Throws: ``StoreError`` when the copy cannot be read or written; `url` is then left as it was.
    @discardableResult
    public func writeCopy(
        of store: any PersistentStore, applying changes: UnsavedChanges = UnsavedChanges(), to url: URL, type: String,
        options: [String: String] = [:], progress: ((Int, Int) -> Void)? = nil
    ) throws(StoreError) -> [ManagedObjectID: ManagedObjectID] {
        try state.withLock { (state) throws(StoreError) -> [ManagedObjectID: ManagedObjectID] in
            guard let entry = state.entries.first(where: { $0.store === store }) else {
                throw StoreError(.unsupported, "the store is not added to this coordinator")
            }
            return try writeCopy(
                of: entry, applying: changes, to: url, type: type, options: options, progress: progress)
        }
    }

    /// Writes a complete copy of a store to a new file of any type, as ``writeCopy(of:applying:to:type:options:progress:)``
    /// does, for a caller that keeps neither the store nor its objects (a conversion): the objects' new IDs are
    /// not worked out, so a copy from an incremental store (SQLite) to a ``StreamingAtomicStore`` (XML) goes a batch
    /// at a time and never holds the store whole.
    /// - Parameters:
    ///   - store: the store to copy (one of this coordinator's).
    ///   - url: the file to write; a symbolic link is followed.
    ///   - type: the store type of the copy.
    ///   - options: options for the copy's store.
    ///   - progress: hears how many objects were read of how many, as the copy goes.
    /// - Throws: ``StoreError`` when the copy cannot be read or written; `url` is then left as it was.
    package func exportCopy(
        of store: any PersistentStore, to url: URL, type: String, options: [String: String] = [:],
        progress: ((Int, Int) -> Void)? = nil
    ) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            guard let entry = state.entries.first(where: { $0.store === store }) else {
                throw StoreError(.unsupported, "the store is not added to this coordinator")
            }
            _ = try writeCopy(
                of: entry, applying: UnsavedChanges(), to: url, type: type, options: options, progress: progress,
                keepingIDs: false)
        }
    }

    /// Writes a copy of a store (with `changes` laid over it) to `url` as `writeCopy(of:applying:to:type:options:)`
    /// does, then puts a store opened on the copy in the old store's place and closes the old one: what save as
    /// needs. The old file is left as it was.
    /// - Parameters:
    ///   - store: the store to copy.
    ///   - url: the file to write.
    ///   - type: the store type of the copy.
    ///   - options: options for the new store.
    ///   - changes: unsaved changes to write into the copy.
    /// - Throws: ``StoreError`` when the copy cannot be written or opened; the old store then stays.
    /// - Returns: the new store, and the IDs objects have in it where they differ (see `writeCopy(of:applying:to:type:options:)`).
    public func replacePersistentStore(
        _ store: any PersistentStore, withCopyAt url: URL, type: String, options: [String: String] = [:],
        applying changes: UnsavedChanges = UnsavedChanges()
    ) throws(StoreError) -> (store: any PersistentStore, objectIDs: [ManagedObjectID: ManagedObjectID]) {
        guard let storeType = StoreType.named(type) else {
            throw StoreError(.unsupported, path: url.path, "unknown store type '\(type)'")
        }
        let (replacement, mapping) = try state.withLock {
            (state) throws(StoreError) -> (StoreEntry, [ManagedObjectID: ManagedObjectID]) in
            guard let index = state.entries.firstIndex(where: { $0.store === store }) else {
                throw StoreError(.unsupported, "the store is not added to this coordinator")
            }
            let mapping = try writeCopy(
                of: state.entries[index], applying: changes, to: url, type: type, options: options)
            return (try swap(&state, at: index, forStoreAt: url, type: storeType, options: options), mapping)
        }
        store.close()
        return (replacement.store, mapping)
    }

    /// Puts the store file at `url` — a copy of `store` written by `writeCopy(of:applying:to:type:options:)`,
    /// with the same UUID — in `store`'s place, and closes `store` (for a copy that was moved after it was
    /// written, as a document package is).
    /// - Parameters:
    ///   - store: the store to replace.
    ///   - url: the copy.
    ///   - type: its store type.
    ///   - options: options for the new store.
    /// - Returns: the new store.
    /// - Throws: ``StoreError`` when the file cannot be opened or holds another store.
    @discardableResult
    public func swapPersistentStore(
        _ store: any PersistentStore, forStoreAt url: URL, type: String, options: [String: String] = [:]
    ) throws(StoreError) -> any PersistentStore {
        guard let storeType = StoreType.named(type) else {
            throw StoreError(.unsupported, path: url.path, "unknown store type '\(type)'")
        }
        let replacement = try state.withLock { (state) throws(StoreError) -> StoreEntry in
            guard let index = state.entries.firstIndex(where: { $0.store === store }) else {
                throw StoreError(.unsupported, "the store is not added to this coordinator")
            }
            return try swap(&state, at: index, forStoreAt: url, type: storeType, options: options)
        }
        store.close()
        return replacement.store
    }

    /// Opens the store at `url` with the UUID of the store at `index` and puts it there (under the lock).
    private func swap(
        _ state: inout CoordinatorState, at index: Int, forStoreAt url: URL, type storeType: StoreType,
        options: [String: String]
    ) throws(StoreError) -> StoreEntry {
        let store = state.entries[index].store
        var newOptions = options
        newOptions["storeIdentifier"] = store.identifier
        let opened = try storeType.make(
            StoreDescription(
                type: storeType.name, url: url, configurationName: store.description.configurationName,
                options: newOptions))
        let entry = try StoreEntry(store: opened, model: model)
        guard opened.identifier == store.identifier else {
            opened.close()
            throw StoreError(
                .corrupt, path: url.path,
                "the copy has store UUID \(opened.identifier), not \(store.identifier): it was changed while written")
        }
        state.entries[index] = entry
        state.rowCache.removeRows(ofStore: store.identifier)
        return entry
    }

    /// Writes every object of `store` to a new store of `type` at `url` and puts the new store in its place, with the
    /// same UUID (Core Data's `migratePersistentStore`). The old file is left as it was and the old store is closed.
    ///
    /// Objects keep their IDs unless the new store has to renumber them (see
    /// `writeCopy(of:applying:to:type:options:)`): pass the contexts using the coordinator, and their objects
    /// follow — registered objects take their new IDs, unchanged ones are read again from the new store, and
    /// changed ones keep their changes with the new store's versions, so their next save does not see a conflict
    /// that is not there.
    /// - Parameters:
    ///   - store: one of the coordinator's stores.
    ///   - url: the new file.
    ///   - type: its store type.
    ///   - options: options for the new store.
    ///   - contexts: the contexts whose objects follow the store.
    /// - Returns: the new store.
    /// - Throws: ``StoreError`` when the copy cannot be written; the old store then stays.
    @discardableResult
    public func migratePersistentStore(
        _ store: any PersistentStore, to url: URL, type: String, options: [String: String] = [:],
        contexts: [ManagedObjectContext] = []
    ) throws(StoreError) -> any PersistentStore {
        let (replacement, mapping) = try replacePersistentStore(store, withCopyAt: url, type: type, options: options)
        for context in contexts { try context.storeWasReplaced(mapping: mapping) }
        return replacement
    }

    /// The version of an object its store holds now (bypassing the row cache); `nil` when the object is gone.
    func storedVersion(of id: ManagedObjectID) throws(StoreError) -> Int64? {
        try state.withLock { (state) throws(StoreError) -> Int64? in try state.currentVersion(of: id) }
    }

    /// Writes the copy (under the coordinator's lock, which the caller holds).
    /// `keepingIDs`: the caller needs the objects' new IDs (else a copy may stream and return none).
    private func writeCopy(
        of entry: StoreEntry, applying changes: UnsavedChanges, to url: URL, type: String, options: [String: String],
        progress: ((Int, Int) -> Void)? = nil, keepingIDs: Bool = true
    ) throws(StoreError) -> [ManagedObjectID: ManagedObjectID] {
        guard let storeType = StoreType.named(type) else {
            throw StoreError(.unsupported, path: url.path, "unknown store type '\(type)'")
        }
        let source = entry.store
        let destination = SafeReplacement.destination(for: url)
        if destination.standardizedFileURL
            == source.description.url.map(SafeReplacement.destination(for:))?
            .standardizedFileURL
        {
            throw StoreError(.unsupported, path: url.path, "is the store's own file; a copy cannot replace it")
        }
        let temporary = SafeReplacement.temporaryURL(beside: destination)
        var options = options
        options["storeIdentifier"] = source.identifier
        options["readOnly"] = nil
        var target: (any PersistentStore)?
        do {
            let mapping: [ManagedObjectID: ManagedObjectID]
            let written: any PersistentStore
            if let copying = source as? any WholeStoreCopying, source.description.type == type {
                options.merge(try copying.copyWhole(to: temporary, destination: destination)) { $1 }
                written = try storeType.make(
                    StoreDescription(
                        type: type, url: temporary, configurationName: source.description.configurationName,
                        options: options))
                target = written
                let copy = try StoreEntry(store: written, model: model)
                mapping = try apply(changes, to: copy)
            } else {
                written = try storeType.make(
                    StoreDescription(
                        type: type, url: temporary, configurationName: source.description.configurationName,
                        options: options))
                target = written
                var metadata = source.metadata
                metadata["NSStoreType"] = .string(type)
                written.metadata = metadata
                if !keepingIDs, changes.isEmpty, let incremental = source as? any IncrementalStore,
                    let streaming = written as? any StreamingAtomicStore
                {
                    try streamCopy(of: entry, from: incremental, to: streaming, progress: progress)
                    mapping = [:]
                } else {
                    let scope = (written as? any AtomicStore)?.primaryKeyScope ?? .perRootEntity
                    let snapshots: [ObjectSnapshot]
                    (snapshots, mapping) = try laidOver(
                        entry.allSnapshots(model: model, progress: progress), changes, scope: scope,
                        identifier: source.identifier)
                    // A store that keeps one side of a to-many and its inverse (SQLite) would take it for both.
                    if written is any IncrementalStore {
                        try InverseAgreement.check(snapshots, model: model, target: type)
                    }
                    let copy = try StoreEntry(store: written, model: model, load: false)
                    let (transaction, apply) = try copy.prepare(
                        inserted: snapshots, updated: [], deleted: [], model: model)
                    try transaction.commit()
                    apply()
                }
            }
            target = nil
            try written.finishAndClose()
            try SafeReplacement.replace(destination, with: temporary)
            return mapping
        } catch {
            target?.close()
            SafeReplacement.removeTemporary(temporary)
            throw error.replacingPath(temporary.path, with: destination.path)
        }
    }

    /// Copies every object of an incremental store into a streaming atomic store a batch at a time: the objects are
    /// numbered and ordered from their keys alone (``CopyOrder``), then read a thousand at a time and written with
    /// their new keys, so only one batch is held at once.
    private func streamCopy(
        of entry: StoreEntry, from source: any IncrementalStore, to target: any StreamingAtomicStore,
        progress: ((Int, Int) -> Void)?
    ) throws(StoreError) {
        let order = try CopyOrder(of: entry, in: source, scope: target.primaryKeyScope, order: target.streamOrder)
        var position = 0
        var uncached = RowCache()
        let stream = AtomicStoreStream(
            identifier: source.identifier, metadata: target.metadata, highestKey: order.highestKey,
            count: order.count, counts: order.counts, key: order.newKey, holds: order.holds
        ) { () throws(StoreError) -> [ObjectSnapshot]? in
            guard position < order.count else { return nil }
            let ids = order.objectIDs(from: position, upTo: 1_000)
            let snapshots = try entry.wholeSnapshots(of: ids, from: source, rowCache: &uncached)
            guard snapshots.count == ids.count else {
                throw StoreError(
                    .conflict, path: source.description.url?.path,
                    "\(ids.count - snapshots.count) of its objects went away while the store was copied")
            }
            position += ids.count
            progress?(position, order.count)
            return snapshots
        }
        let transaction = try target.prepareWrite(stream, model: model)
        try transaction.commit()
    }

    /// Writes `changes` into a copy opened as `copy`: new objects get keys there.
    private func apply(_ changes: UnsavedChanges, to copy: StoreEntry) throws(StoreError)
        -> [ManagedObjectID: ManagedObjectID]
    {
        guard !changes.isEmpty else { return [:] }
        var byRoot: [String: [ManagedObjectID]] = [:]
        for snapshot in changes.inserted {
            byRoot[model.rootEntity(of: snapshot.objectID.entityName), default: []].append(snapshot.objectID)
        }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for (root, ids) in byRoot.sorted(by: { $0.key < $1.key }) {
            let keys = try copy.allocateKeys(root: root, count: ids.count)
            for (id, key) in zip(ids, keys) {
                mapping[id] = ManagedObjectID(
                    entityName: id.entityName, storeIdentifier: copy.store.identifier, primaryKey: key)
            }
        }
        let inserted = changes.inserted.map { $0.mappingIDs(mapping) }
        let updated = changes.updated.map { update in
            var moved = update
            moved.snapshot = update.snapshot.mappingIDs(mapping)
            return moved
        }
        let (transaction, apply) = try copy.prepare(
            inserted: inserted, updated: updated, deleted: changes.deleted, model: model)
        try transaction.commit()
        apply()
        return mapping
    }

    /// Every stored object with `changes` laid over it: changed properties replaced, deleted objects left out, new
    /// objects added with keys after the highest in use (one counter for a `.store` scope), renumbered where the
    /// scope needs keys unique across entities.
    private func laidOver(
        _ stored: [ObjectSnapshot], _ changes: UnsavedChanges, scope: PrimaryKeyScope, identifier: String
    ) throws(StoreError) -> ([ObjectSnapshot], [ManagedObjectID: ManagedObjectID]) {
        var snapshots = stored
        // Where each object is, for the updates to find it (nothing to find in a copy without changes).
        var position: [ManagedObjectID: Int] = [:]
        if !changes.updated.isEmpty {
            position.reserveCapacity(snapshots.count)
            for (i, snapshot) in snapshots.enumerated() { position[snapshot.objectID] = i }
        }
        for update in changes.updated {
            guard let i = position[update.snapshot.objectID] else {
                throw StoreError(
                    .conflict, "\(update.snapshot.objectID) is no longer in the store",
                    conflicts: [
                        SaveConflict(
                            objectID: update.snapshot.objectID, expectedVersion: update.expectedVersion,
                            storedSnapshot: nil)
                    ])
            }
            snapshots[i].apply(update)
        }
        let deleted = Set(changes.deleted.map(\.objectID))
        if !deleted.isEmpty { snapshots.removeAll { deleted.contains($0.objectID) } }
        var highest: [String: Int64] = [:]
        var overall: Int64 = 0
        for snapshot in stored {
            let root = model.rootEntity(of: snapshot.objectID.entityName)
            highest[root] = max(highest[root] ?? 0, snapshot.objectID.primaryKey)
            overall = max(overall, snapshot.objectID.primaryKey)
        }
        if case .store(let floor) = scope { overall = max(overall, floor) }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for snapshot in changes.inserted {
            let id = snapshot.objectID
            let root = model.rootEntity(of: id.entityName)
            let last: Int64
            if case .store = scope { last = overall } else { last = highest[root] ?? 0 }
            let (next, overflow) = last.addingReportingOverflow(1)
            guard !overflow else {
                throw StoreError(.corrupt, "the store's keys reach \(last): no room for new objects")
            }
            if case .store = scope { overall = next } else { highest[root] = next }
            mapping[id] = ManagedObjectID(
                entityName: id.entityName, storeIdentifier: identifier, primaryKey: next)
        }
        if !mapping.isEmpty {
            for i in snapshots.indices { snapshots[i] = snapshots[i].mappingIDs(mapping) }
            snapshots += changes.inserted.map { $0.mappingIDs(mapping) }
        }
        guard case .store(let floor) = scope else { return (snapshots, mapping) }
        let (renumbered, moved) = try Self.renumbered(snapshots, startingAfter: floor)
        guard !moved.isEmpty else { return (snapshots, mapping) }
        var combined = moved
        for (temporary, assigned) in mapping {
            combined[temporary] = moved[assigned] ?? assigned
            // The first key a new object got was never seen outside: only its final one is.
            combined[assigned] = nil
        }
        return (renumbered, combined)
    }

    /// Gives every object a key unique in the whole store (for stores with one counter, like the XML store), keeping
    /// relationships pointing at the same objects; returns the snapshots and the IDs that changed (none when the
    /// keys are already unique and above `floor`).
    ///
    /// Such a store names a destination by its key alone. A reference to an object that is not there (a relationship
    /// without an inverse whose destination was deleted) gets a key no object has and no other such reference gets
    /// (``MissingKeys``), as a streamed copy gives it.
    /// - Throws: ``StoreError`` when the keys run out.
    static func renumbered(_ snapshots: [ObjectSnapshot], startingAfter floor: Int64) throws(StoreError) -> (
        [ObjectSnapshot], [ManagedObjectID: ManagedObjectID]
    ) {
        let keys = snapshots.map(\.objectID.primaryKey)
        let kept = Set(keys)
        var ordered = snapshots
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        var missing = MissingKeys(lowest: keys.min(), highest: keys.max() ?? 0) { kept.contains($0) }
        if kept.count != keys.count || (keys.min() ?? floor + 1) <= floor {
            ordered.sort {
                ($0.objectID.entityName, $0.objectID.primaryKey) < ($1.objectID.entityName, $1.objectID.primaryKey)
            }
            guard floor <= Int64.max - Int64(ordered.count) else {
                throw StoreError(.corrupt, "the store's \(ordered.count) objects cannot be numbered after key \(floor)")
            }
            for (i, snapshot) in ordered.enumerated() {
                let id = snapshot.objectID
                mapping[id] = ManagedObjectID(
                    entityName: id.entityName, storeIdentifier: id.storeIdentifier ?? "",
                    primaryKey: floor + 1 + Int64(i))
            }
            missing = MissingKeys(renumberedAfter: floor, count: Int64(ordered.count))
        }
        let objects = Set(snapshots.lazy.map(\.objectID))
        for snapshot in snapshots {
            try snapshot.forEachDestination { (_, destination) throws(StoreError) in
                guard !objects.contains(destination), mapping[destination] == nil else { return }
                let key = try missing.key(of: destination)
                guard key != destination.primaryKey else { return }
                mapping[destination] = ManagedObjectID(
                    entityName: destination.entityName, storeIdentifier: destination.storeIdentifier ?? "",
                    primaryKey: key)
            }
        }
        guard !mapping.isEmpty else { return (snapshots, [:]) }
        return (ordered.map { $0.mappingIDs(mapping) }, mapping)
    }
}

extension ObjectSnapshot {
    /// The snapshot with its ID and every relationship's destinations replaced where `mapping` has them.
    func mappingIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) -> ObjectSnapshot {
        guard !mapping.isEmpty else { return self }
        func map(_ id: ManagedObjectID) -> ManagedObjectID { mapping[id] ?? id }
        var copy = mappingDestinations(map)
        copy.objectID = map(objectID)
        return copy
    }
}

extension StoreError {
    /// The error with a temporary file's path replaced by the path the user gave.
    func replacingPath(_ temporary: String, with path: String) -> StoreError {
        var error = self
        if error.path == temporary { error.path = path }
        error.message = error.message.replacingOccurrences(of: temporary, with: path)
        return error
    }
}
