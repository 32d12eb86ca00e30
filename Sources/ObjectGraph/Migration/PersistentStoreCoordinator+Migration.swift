public import Foundation

extension PersistentStoreCoordinator {
    /// Runs a migration over every object of `store` without writing anything: what a dry run shows.
    /// - Parameters:
    ///   - store: a store added to this coordinator, whose model is `manager`'s source model.
    ///   - manager: the migration to run.
    /// - Returns: what the migration would make.
    /// - Throws: ``MigrationError`` when the objects can't be migrated, ``StoreError`` when the store can't be read.
    public func migratedObjects(of store: any PersistentStore, with manager: MigrationManager) throws
        -> MigrationResult
    {
        try manager.migrate(try everySnapshot(of: store), storeIdentifier: store.identifier)
    }

    /// Every object of a store added here, with every relationship loaded.
    func everySnapshot(of store: any PersistentStore) throws(StoreError) -> [ObjectSnapshot] {
        try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot] in
            guard let entry = state.entries.first(where: { $0.store === store }) else {
                throw StoreError(.unsupported, "the store is not added to this coordinator")
            }
            return try entry.allSnapshots(model: model)
        }
    }

    /// Migrates a store to another model: reads every object of `store` (added here, with the model it was
    /// written with), runs `manager` over them, and writes the destination objects with the destination model to a
    /// new store file of `type` at `url`.
    ///
    /// The new file is written beside `url` under a temporary name and renamed into place only when complete, so
    /// `url` never holds half a store, and a failed migration leaves every file as it was. When `url` is the
    /// store's own file (a migration in place), the store is removed from this coordinator and closed just before
    /// the new file takes its place. The new store keeps the old one's UUID and its metadata (apart from the model's
    /// version hashes and identifiers, which are the destination model's), and carries the destination model.
    ///
    /// - Parameters:
    ///   - store: a store added to this coordinator, whose model is `manager`'s source model.
    ///   - manager: the migration to run.
    ///   - url: the file to write (the store's own file for a migration in place).
    ///   - type: the store type to write.
    /// - Returns: what the migration made.
    /// - Throws: ``MigrationError`` when the objects can't be migrated, ``StoreError`` when a store can't be read or
    ///   written.
    public func migratePersistentStore(
        _ store: any PersistentStore, with manager: MigrationManager, to url: URL, type: String
    ) throws -> MigrationResult {
        guard let storeType = StoreType.named(type) else {
            throw StoreError(.unsupported, path: url.path, "unknown store type '\(type)'")
        }
        let snapshots = try everySnapshot(of: store)
        let destination = SafeReplacement.destination(for: url)
        let inPlace =
            store.description.url.map { SafeReplacement.destination(for: $0).standardizedFileURL }
            == destination.standardizedFileURL
        let temporary = SafeReplacement.temporaryURL(beside: destination)
        var written: (any PersistentStore)?
        do {
            let target = try storeType.make(
                StoreDescription(
                    type: type, url: temporary, configurationName: nil,
                    options: ["storeIdentifier": store.identifier]))
            written = target
            var metadata = store.metadata
            metadata["NSStoreType"] = .string(type)
            metadata[StoreMetadata.modelKey] = nil
            target.metadata = metadata
            var sharedKeys = false
            if let atomic = target as? any AtomicStore, case .store = atomic.primaryKeyScope { sharedKeys = true }
            let result = try manager.migrate(snapshots, storeIdentifier: store.identifier, sharedKeys: sharedKeys)
            let entry = try StoreEntry(store: target, model: manager.destinationModel, load: false)
            let (transaction, apply) = try entry.prepare(
                inserted: result.snapshots, updated: [], deleted: [], model: manager.destinationModel)
            try transaction.commit()
            apply()
            written = nil
            try target.finishAndClose()
            if inPlace {
                removePersistentStore(store)
                store.close()
            }
            try SafeReplacement.replace(destination, with: temporary)
            return result
        } catch let error as StoreError {
            written?.close()
            SafeReplacement.removeTemporary(temporary)
            throw error.replacingPath(temporary.path, with: destination.path)
        } catch {
            written?.close()
            SafeReplacement.removeTemporary(temporary)
            throw error
        }
    }
}
