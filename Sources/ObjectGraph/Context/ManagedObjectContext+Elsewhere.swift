import Foundation

extension ManagedObjectContext {
    /// The unsaved changes as values (after ending the current event), without saving or validating anything.
    /// - Returns: the inserted objects' snapshots, updates with their changed keys, and deletions.
    /// - Throws: ``ContextError`` `object` for a failure kept since the last save (``pendingFailures``) or a value
    ///   that cannot be read.
    public func unsavedChanges() throws(ContextError) -> UnsavedChanges {
        processPendingChanges()
        if let failure = pendingFailures.first { throw .object(failure) }
        var changes = UnsavedChanges()
        do {
            for object in insertedObjects { changes.inserted.append(try snapshot(of: object, version: 1)) }
            for object in updatedObjects { changes.updated.append(try update(of: object, whole: false)) }
        } catch {
            throw .object(error)
        }
        changes.deleted = deletedObjects.map {
            ObjectDeletion(objectID: $0.objectID, expectedVersion: expectedVersion($0))
        }
        return changes
    }

    /// Checks every rule a save checks (the model's rules and each object's own validation), writing nothing.
    /// - Throws: ``ContextError`` `validation` listing every failure, or `object` for a pending failure.
    public func validateForSave() throws(ContextError) {
        processPendingChanges()
        try checkValidation()
        validatedGeneration = changeGeneration
    }

    /// Throws a kept failure, or every failed rule, for the changes as they stand.
    func checkValidation() throws(ContextError) {
        try checkValidation(insertedObjects, updatedObjects, deletedObjects)
    }

    /// Throws a kept failure, or every failed rule, for these inserted, updated and deleted objects.
    func checkValidation(
        _ insertedObjects: [ManagedObject], _ updatedObjects: [ManagedObject], _ deletedObjects: [ManagedObject]
    ) throws(ContextError) {
        if let failure = pendingFailures.first { throw .object(failure) }
        let errors: [ObjectValidationError]
        do {
            errors = try validationErrors(insertedObjects, updatedObjects, deletedObjects)
        } catch {
            throw .object(error)
        }
        if !errors.isEmpty { throw .validation(errors) }
    }

    /// Deletes an object, choosing whether its relationships' delete rules run (a recovered change set already
    /// holds what they did). Undoable, like ``delete(_:)``.
    /// - Parameters:
    ///   - object: an object of this context.
    ///   - applyingDeleteRules: whether its relationships' delete rules run.
    /// - Throws: ``ObjectGraphError`` when the object belongs to another context or cannot be read.
    public func delete(_ object: ManagedObject, applyingDeleteRules: Bool) throws(ObjectGraphError) {
        try delete(object, propagate: applyingDeleteRules)
    }

    /// Gives objects new IDs (after their store was written somewhere else with new keys): registered objects,
    /// relationships not yet turned into objects, recorded originals and fault batches all follow. IDs not in
    /// `mapping` stay as they are.
    /// - Parameter mapping: old ID → new ID.
    public func remapObjectIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        func map(_ id: ManagedObjectID) -> ManagedObjectID { mapping[id] ?? id }
        var objects = Array(registered.values)
        for object in inserted.objects where registered[object.objectID] !== object { objects.append(object) }
        var remapped = ObjectRegistry()
        remapped.reserve(registered.count)
        for object in objects {
            object.objectID = map(object.objectID)
            for i in object.relationshipSlots.indices {
                switch object.relationshipSlots[i] {
                case .unresolvedToOne(let id?): object.relationshipSlots[i] = .unresolvedToOne(map(id))
                case .unresolvedToMany(let ids): object.relationshipSlots[i] = .unresolvedToMany(ids.map(map))
                default: break
                }
            }
        }
        for object in registered.values { remapped[object.objectID] = object }
        registered = remapped
        originals.updateEach { $0.mapRelationshipIDs(map) }
        var batches: [ManagedObjectID: FaultBatch] = [:]
        var seen: [ObjectIdentifier: FaultBatch] = [:]
        for (id, batch) in faultBatches {
            let moved = seen[ObjectIdentifier(batch)] ?? FaultBatch(batch.ids.map(map))
            seen[ObjectIdentifier(batch)] = moved
            batches[map(id)] = moved
        }
        faultBatches = batches
    }

    /// Follows the store under the context to the new file that replaced it (``PersistentStoreCoordinator/migratePersistentStore(_:to:type:options:contexts:)``):
    /// objects take the IDs `mapping` gives, unchanged objects are read again from the new store, and changed or
    /// deleted ones keep their changes with the versions the new store holds (so their next save checks against
    /// the right version).
    /// - Parameter mapping: old ID → the ID the object has in the new store.
    /// - Throws: ``StoreError`` when a changed object's version cannot be read.
    public func storeWasReplaced(mapping: [ManagedObjectID: ManagedObjectID]) throws(StoreError) {
        remapObjectIDs(mapping)
        refaultSavedObjects()
        for object in updated.objects + deleted.objects where !object.isInserted {
            guard let version = try persistentStoreCoordinator.storedVersion(of: object.objectID) else { continue }
            object.storeVersion = version
            originals[ObjectIdentifier(object)]?.version = version
        }
    }

    /// Treats every unsaved change as saved, because it was written elsewhere: to a new file that now holds the
    /// document (save as). `mapping` gives the IDs the objects have there (new objects' permanent IDs, and any keys
    /// the new file renumbered). Objects are then read again from the store, which must hold that file now; undo
    /// history is kept, as after a save. Posts did-save.
    /// - Parameter mapping: old ID → the ID the object has in the new file.
    public func adoptSavedChanges(mapping: [ManagedObjectID: ManagedObjectID]) {
        processPendingChanges()
        let insertedNow = insertedObjects
        let updatedNow = updatedObjects
        let deletedNow = deletedObjects
        let droppedNow = inserted.objects.filter(\.isDeleted)
        remapObjectIDs(mapping)
        for object in insertedNow { assignedStores[ObjectIdentifier(object)] = nil }
        finishSave(inserted: insertedNow, updated: updatedNow, deleted: deletedNow, dropped: droppedNow)
        refaultSavedObjects()
    }

    /// Turns every registered object back into a fault, so that values and versions are read again from the stores
    /// (after the store under the context was replaced by another file). Only for a context without unsaved changes.
    public func refaultSavedObjects() {
        faultBatches.removeAll()
        for object in registered.values where !object.isFault && !object.hasChanges { object.turnIntoFault() }
    }
}
