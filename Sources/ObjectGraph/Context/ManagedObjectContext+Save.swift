import Foundation

extension ManagedObjectContext {
    /// Saves every unsaved change to the stores, all or nothing.
    ///
    /// Runs delete rules, checks every rule of the model and each object's validation (a failure lists every
    /// problem and changes nothing), gives new objects permanent IDs, resolves optimistic-locking conflicts by the
    /// ``mergePolicy``, writes all stores at once, then posts did-save. A changed object writes only the properties
    /// that changed, so values this context never read stay as they are in the store. Undo history is kept:
    /// undoing after a save makes the context dirty again.
    /// - Throws: ``ContextError``: `validation`, `conflicts` (merge policy ``MergePolicy/error``), `store`, or
    ///   `object` for a failure kept since the last save (see ``pendingFailures``) or an object that cannot be read.
    public func save() throws(ContextError) {
        processPendingChanges()
        if let failure = pendingFailures.first { throw .object(failure) }
        guard hasChanges else { return }
        post(
            ContextNotification(
                name: .willSave, inserted: [], updated: [], deleted: [], refreshed: [], savedChanges: nil))
        // The change sets read once for willSave, the derived values, the checks and the writes (each read lists and
        // retains every changed object), and again whenever something in between added or removed one.
        var insertedNow = insertedObjects
        var updatedNow = updatedObjects
        var deletedNow = deletedObjects
        var mutations = changeSetMutations
        for object in insertedNow { object.willSave() }
        for object in updatedNow { object.willSave() }
        for object in deletedNow { object.willSave() }
        processPendingChanges()
        if changeSetMutations != mutations {
            insertedNow = insertedObjects
            updatedNow = updatedObjects
            deletedNow = deletedObjects
            mutations = changeSetMutations
        }
        let derived = try updateDerivedAttributes(insertedNow, updatedNow)
        // Validated just before (validateForSave, nothing changed since, no derived values set): not again.
        if validatedGeneration == changeGeneration && !derived {
            if let failure = pendingFailures.first { throw .object(failure) }
        } else {
            try checkValidation(insertedNow, updatedNow, deletedNow)
        }
        if changeSetMutations != mutations {
            insertedNow = insertedObjects
            updatedNow = updatedObjects
            deletedNow = deletedObjects
        }
        // (Counted as they are dropped: none, the usual case, lists nothing.)
        let droppedNow = droppedCount == 0 ? [] : inserted.objects.filter(\.isDeleted)
        try obtainPermanentIDs(for: insertedNow)

        var writeWhole = Set<ObjectIdentifier>()
        var changedByStores: [ManagedObjectID] = []
        for attempt in 0..<4 {
            let changes: SaveChanges
            do {
                changes = try saveChanges(insertedNow, updatedNow, deletedNow, writeWhole: writeWhole)
            } catch {
                throw .object(error)
            }
            let conflicts: [SaveConflict]
            do {
                (conflicts, changedByStores) = try persistentStoreCoordinator.save(changes)
            } catch {
                throw .store(error)
            }
            if conflicts.isEmpty { break }
            if mergePolicy == .error || attempt == 3 { throw .conflicts(conflicts) }
            do {
                try resolve(conflicts, writeWhole: &writeWhole)
            } catch {
                throw .object(error)
            }
        }

        finishSave(inserted: insertedNow, updated: updatedNow, deleted: deletedNow, dropped: droppedNow)
        // Objects a store changed by itself (Apple's derived-attribute triggers): their saved state is read again.
        for id in changedByStores {
            guard let object = registered[id], !object.isDeleted, !object.isFault else { continue }
            try refresh(object, mergeChanges: true)
        }
    }

    /// Marks written changes as saved: inserted objects are no longer new, changed ones take their new versions,
    /// deleted ones leave; then did-save hooks and the did-save notification.
    func finishSave(
        inserted insertedNow: [ManagedObject], updated updatedNow: [ManagedObject], deleted deletedNow: [ManagedObject],
        dropped droppedNow: [ManagedObject]
    ) {
        for object in insertedNow {
            object.flags.remove(.inserted)
            object.storeVersion = 1
        }
        for object in updatedNow {
            object.storeVersion = Self.nextVersion(after: expectedVersion(object))
            object.flags.remove(.changed)
        }
        for object in deletedNow + droppedNow {
            registered[object.objectID] = nil
            object.flags.subtract([.deleted, .inserted, .changed])
            markGone(object)
        }
        clearChangeSets()
        originals.removeAll()
        bumpGeneration()
        // (Each list in turn: no list of all of them made.)
        for object in insertedNow { object.didSave() }
        for object in updatedNow { object.didSave() }
        for object in deletedNow { object.didSave() }
        // The IDs' lists are made only for an observer.
        guard isObserved(.didSave) else { return }
        post(
            ContextNotification(
                name: .didSave, inserted: insertedNow, updated: updatedNow, deleted: deletedNow, refreshed: [],
                savedChanges: SavedChanges(
                    inserted: insertedNow.map(\.objectID), updated: updatedNow.map(\.objectID),
                    deleted: deletedNow.map(\.objectID))))
    }

    /// Gives inserted objects permanent IDs now (Core Data's `obtainPermanentIDs(for:)`).
    /// - Parameter objects: inserted objects (others are left as they are).
    /// - Throws: ``ContextError`` `store` when a store cannot hand out keys.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(ContextError) {
        // The objects and what the coordinator needs of each, in one pass (both made at their size at once).
        var pending: [ManagedObject] = []
        var requests: [(entityName: String, store: String?)] = []
        pending.reserveCapacity(objects.count)
        requests.reserveCapacity(objects.count)
        // Most contexts never assign objects to stores: no lookups then.
        let noneAssigned = assignedStores.isEmpty
        for object in objects where object.hasTemporaryID {
            pending.append(object)
            requests.append((object.entity.name, noneAssigned ? nil : assignedStores[ObjectIdentifier(object)]))
        }
        guard !pending.isEmpty else { return }
        let ids: [ManagedObjectID]
        do {
            ids = try persistentStoreCoordinator.obtainPermanentIDs(for: requests)
        } catch {
            throw .store(error)
        }
        for (object, id) in zip(pending, ids) {
            if let number = object.temporaryNumber { registered.remove(object, temporaryNumber: number) }
            object.objectID = id
            registered[id] = object
            if !assignedStores.isEmpty { assignedStores[ObjectIdentifier(object)] = nil }
        }
    }

    private func saveChanges(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject],
        writeWhole: Set<ObjectIdentifier>
    ) throws(ObjectGraphError) -> SaveChanges {
        var changes = SaveChanges()
        changes.inserted.reserveCapacity(inserted.count)
        for object in inserted { changes.inserted.append(try snapshot(of: object, version: 1)) }
        changes.updated.reserveCapacity(updated.count)
        for object in updated {
            changes.updated.append(try update(of: object, whole: writeWhole.contains(ObjectIdentifier(object))))
        }
        changes.deleted = deleted.map { ObjectDeletion(objectID: $0.objectID, expectedVersion: expectedVersion($0)) }
        return changes
    }

    /// The version a save gives a changed object: one more, held at the largest value a file could hold (a store
    /// may say anything in `Z_OPT`).
    static func nextVersion(after version: Int64) -> Int64 {
        version == .max ? .max : version + 1
    }

    func expectedVersion(_ object: ManagedObject) -> Int64 {
        originals[ObjectIdentifier(object)]?.version ?? object.storeVersion
    }

    /// The object's current state as a snapshot (transient properties left out).
    func snapshot(of object: ManagedObject, version: Int64) throws(ObjectGraphError) -> ObjectSnapshot {
        let layout = object.entity
        // Values over the object's buffer, lent or copied (transient ones left nil), relationships by the layout's
        // stored-property list: nothing looked up or copied by name per object.
        let values = try object.storedSlotValues()
        var relationships = [RelationshipSlotValue].filled(with: .absent, count: layout.relationships.count)
        for (i, _, isToMany) in layout.storedRelationships {
            relationships[i] = try slotValue(isToMany: isToMany, at: i, of: object)
        }
        return ObjectSnapshot(objectID: object.objectID, version: version, values: values, relationships: relationships)
    }

    /// What a snapshot holds of relationship `i` of `object`: its destinations that are not deleted.
    private func slotValue(isToMany: Bool, at i: Int, of object: ManagedObject) throws(ObjectGraphError)
        -> RelationshipSlotValue
    {
        if isToMany {
            // In one pass into a list made at its size (a filter then a map grew one list a step at a time and made a
            // second: for an object with 100,000 destinations, more than the rest of its snapshot).
            let destinations = try object.toManyObjects(at: i)
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(destinations.count)
            for destination in destinations where !destination.isDeleted { ids.append(destination.objectID) }
            return .toMany(ids)
        }
        // Kept as a key with no destination (`.some(nil)`), not left out: an update writes it.
        return .toOne(try object.toOneObject(at: i).flatMap { $0.isDeleted ? nil : $0.objectID })
    }

    private func put(
        _ name: String, isToMany: Bool, at i: Int, of object: ManagedObject, into snapshot: inout ObjectSnapshot
    ) throws(ObjectGraphError) {
        switch try slotValue(isToMany: isToMany, at: i, of: object) {
        case .toMany(let ids): snapshot.toMany[name] = ids
        case .toOne(let id): snapshot.toOne[name] = .some(id)
        case .absent, .toManyFault: break
        }
    }

    /// What a save writes for a changed object: the properties that changed since it was read (every property when
    /// `whole`, for the overwrite merge policy), with the version it was read at.
    func update(of object: ManagedObject, whole: Bool) throws(ObjectGraphError) -> ObjectUpdate {
        let expected = expectedVersion(object)
        let layout = object.entity
        // The changed properties by slot (every stored one when whole): nothing looked up by name. The first is kept
        // apart from the others: one changed property (the usual update) makes no list.
        var first: PropertySlot? = nil
        var others: [PropertySlot] = []
        if whole {
            others =
                layout.storedAttributeSlots.map { .attribute($0) }
                + layout.storedRelationships.map { .relationship($0.slot) }
        } else {
            // The original state read where it is (`modify` changes nothing here; nil when there is none).
            _ = originals.modify(ObjectIdentifier(object)) { (original) in
                Self.forEachChange(object, from: original) { property in
                    let transient =
                        switch property {
                        case .attribute(let i): layout.attributes[i].isTransient
                        case .relationship(let i): layout.relationships[i].isTransient
                        }
                    guard !transient else { return true }
                    if first == nil { first = property } else { others.append(property) }
                    return true
                }
            }
        }
        // One changed property lists the layout's set of its name: no set made and hashed.
        let count = (first == nil ? 0 : 1) + others.count
        var changed = Set<String>()
        if count == 1, let first {
            switch first {
            case .attribute(let i): changed = layout.singleNameSets[i]
            case .relationship(let i): changed = layout.singleNameSets[layout.attributes.count + i]
            }
        } else {
            changed.reserveCapacity(count)
        }
        // Attribute values go into the layout's slots (a dictionary by name cost a hashed insert here and a hashed
        // lookup in the store, per row); a value set to nil is a null slot, and `changedKeys` names it.
        var values: SlotValues? = nil
        func writeAttribute(_ property: PropertySlot) throws(ObjectGraphError) {
            guard case .attribute(let i) = property else { return }
            let value = try object.attributeValue(at: i)
            let slots = values ?? SlotValues(layout: layout)
            values = slots
            slots.set(value, at: i)
            if count > 1 { changed.insert(layout.attributes[i].name) }
        }
        if let first { try writeAttribute(first) }
        for property in others { try writeAttribute(property) }
        let version = Self.nextVersion(after: expected)
        var snapshot =
            values.map { ObjectSnapshot(objectID: object.objectID, version: version, values: $0) }
            ?? ObjectSnapshot(objectID: object.objectID, version: version)
        func writeRelationship(_ property: PropertySlot) throws(ObjectGraphError) {
            guard case .relationship(let i) = property else { return }
            let name = layout.relationships[i].name
            try put(name, isToMany: layout.relationships[i].isToMany, at: i, of: object, into: &snapshot)
            if count > 1 { changed.insert(name) }
        }
        if let first { try writeRelationship(first) }
        for property in others { try writeRelationship(property) }
        return ObjectUpdate(snapshot: snapshot, changedKeys: changed, expectedVersion: expected)
    }

    /// Applies the merge policy to conflicting objects so that the next save attempt can succeed.
    private func resolve(_ conflicts: [SaveConflict], writeWhole: inout Set<ObjectIdentifier>) throws(ObjectGraphError)
    {
        for conflict in conflicts {
            guard let object = registered[conflict.objectID] else { continue }
            guard let stored = conflict.storedSnapshot else {
                // Deleted in the store: nothing to update any more.
                updated.remove(object)
                removeDeleted(object)
                object.flags.subtract([.changed, .deleted])
                originals[ObjectIdentifier(object)] = nil
                registered[conflict.objectID] = nil
                continue
            }
            switch mergePolicy {
            case .error:
                break
            case .rollback:
                try merge(object, with: stored, keepLocalChanges: false)
            case .objectTrumps:
                try merge(object, with: stored, keepLocalChanges: true)
            case .storeTrumps:
                // The committed values before the merge: recorded, or (unchanged) the values now.
                let layout = object.entity
                let before = try object.loadedStorage()
                let recorded = originals[ObjectIdentifier(object)]
                let committed = layout.attributes.indices.map { i in
                    recorded?.attribute(i) ?? object.rawValue(at: i) ?? before.value(i, layout: layout)
                }
                try merge(object, with: stored, keepLocalChanges: true)
                // Where the store changed a property too, its value wins.
                let reference = ManagedObject(layout: object.entity, objectID: object.objectID)
                try reference.fill(from: stored)
                let (storage, referenceStorage) = (try object.writableStorage(), try reference.loadedStorage())
                for i in layout.attributes.indices where !layout.attributes[i].isTransient {
                    let storeValue = referenceStorage.value(i, layout: layout)
                    if storeValue != committed[i] { storage.set(i, storeValue, layout: layout) }
                }
                didChange(object)
            case .overwrite:
                var state: OriginalState
                if let recorded = originals[ObjectIdentifier(object)] {
                    state = recorded
                } else {
                    // Its values loaded first, as a change would.
                    _ = try object.loadedStorage()
                    state = originalState(of: object)
                }
                state.version = stored.version
                originals[ObjectIdentifier(object)] = state
                object.storeVersion = stored.version
                writeWhole.insert(ObjectIdentifier(object))
            }
            if object.isDeleted, var state = originals[ObjectIdentifier(object)] {
                state.version = stored.version
                originals[ObjectIdentifier(object)] = state
            }
        }
    }
}

extension ManagedObjectContext {
    /// Evaluates the derived attributes of the objects a save writes from their derivation expressions (key paths
    /// through to-ones, `@count`, `@sum` and the other aggregates over to-manys, `now()`, `lowercase:`,
    /// `uppercase:`…), as Core Data computes them when saving. A SQLite store that keeps a count by its own
    /// triggers (Apple's `Z_DA_…`) writes the triggers' value instead.
    /// - Throws: ``ContextError`` naming the object and attribute when an expression can't be read or evaluated, or
    ///   gives a value that does not fit the attribute: the save writes nothing.
    /// - Returns: whether any derived attribute was set.
    @discardableResult
    func updateDerivedAttributes(_ lists: [ManagedObject]...) throws(ContextError) -> Bool {
        var setAny = false
        var parsed: [String: ObjectExpression] = [:]
        let composites = Dictionary(
            persistentStoreCoordinator.model.composites.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // The lists gone through in turn, not joined into a new one.
        for object in lists.joined() where !object.isDeleted {
            for attribute in object.entity.derivedAttributes {
                guard let text = attribute.derivationExpression else { continue }
                let place = "\(object.objectID): derived attribute \(attribute.name) (\(text))"
                let expression: ObjectExpression
                if let known = parsed[text] {
                    expression = known
                } else {
                    do {
                        expression = try ObjectExpression(format: text)
                    } catch {
                        throw .object(
                            ObjectGraphError(.wrongValueType, "\(place): \(error)", objectID: object.objectID))
                    }
                    parsed[text] = expression
                }
                let result: PredicateValue
                do {
                    result = try expression.value(with: .object(object))
                } catch {
                    throw .object(ObjectGraphError(.wrongValueType, "\(place): \(error)", objectID: object.objectID))
                }
                var value = AttributeValue.null
                if !result.isNull {
                    guard let constant = result.constant else {
                        throw .object(
                            ObjectGraphError(
                                .wrongValueType, "\(place): the expression gives an object, not a value",
                                objectID: object.objectID))
                    }
                    do {
                        value = try AttributeValue.converted(
                            AttributeValue(constant: constant), to: attribute, composites: composites)
                    } catch {
                        throw .object(
                            ObjectGraphError(.wrongValueType, "\(place): \(error)", objectID: object.objectID))
                    }
                }
                setAny = true
                do {
                    try object.setPrimitiveValue(value, forKey: attribute.name)
                } catch {
                    throw .object(ObjectGraphError(.wrongValueType, "\(place): \(error)", objectID: object.objectID))
                }
            }
        }
        return setAny
    }
}
