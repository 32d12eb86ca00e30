extension ManagedObject {
    /// Sets a to-one relationship, keeping the inverse relationship in step (the old destination forgets this
    /// object, the new one gains it).
    public func setObject(_ object: ManagedObject?, forKey key: String) {
        do {
            try setObject(object, forKey: key, checked: true)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    func setObject(_ object: ManagedObject?, forKey key: String, checked: Bool) throws(ObjectGraphError) {
        let index = try relationshipIndex(key, toMany: false)
        if let object { try checkDestination(object, index) }
        setToOne(index, object)
    }

    /// Replaces the contents of a to-many relationship, keeping inverses in step.
    public func setObjects(_ objects: [ManagedObject], forKey key: String) throws(ObjectGraphError) {
        let index = try relationshipIndex(key, toMany: true)
        for object in objects { try checkDestination(object, index) }
        let keep = Set(objects.map(ObjectIdentifier.init))
        for old in toManyObjects(at: index) where !keep.contains(ObjectIdentifier(old)) {
            removeFromMany(index, old)
        }
        for (position, object) in objects.enumerated() {
            addToMany(index, object, at: entity.relationships[index].isOrdered ? position : nil)
        }
    }

    /// A mutable view of a to-many relationship: adding and removing through it keeps inverses in step.
    public func mutableObjects(forKey key: String) throws(ObjectGraphError) -> MutableRelationship {
        MutableRelationship(owner: self, index: try relationshipIndex(key, toMany: true))
    }

    private func relationshipIndex(_ key: String, toMany: Bool) throws(ObjectGraphError) -> Int {
        guard let index = entity.relationshipIndex[key] else {
            throw ObjectGraphError(.unknownKey, "\(entity.name) has no relationship '\(key)'")
        }
        guard entity.relationships[index].isToMany == toMany else {
            throw ObjectGraphError(
                .wrongValueType, "\(entity.name).\(key) is a \(toMany ? "to-one" : "to-many") relationship")
        }
        return index
    }

    private func checkDestination(_ object: ManagedObject, _ index: Int) throws(ObjectGraphError) {
        let relationship = entity.relationships[index]
        guard object.entity.isKind(of: relationship.destinationEntityName) else {
            throw ObjectGraphError(
                .wrongValueType,
                "\(entity.name).\(relationship.name) holds \(relationship.destinationEntityName) objects, not \(object.entity.name)"
            )
        }
        guard object.managedObjectContext === managedObjectContext else {
            throw ObjectGraphError(.wrongContext, "\(object) belongs to another context than \(self)")
        }
    }

    // MARK: - Operations that keep inverses

    /// The slot of the inverse of relationship `index` in `object`'s entity.
    func inverseIndex(of index: Int, in object: ManagedObject) -> Int? {
        entity.relationships[index].inverseName.flatMap { object.entity.relationshipIndex[$0] }
    }

    func setToOne(_ index: Int, _ newValue: ManagedObject?) {
        let old = toOneObject(at: index)
        if old === newValue { return }
        rawSetToOne(index, newValue)
        if let old, let inverse = inverseIndex(of: index, in: old) { old.detach(self, from: inverse) }
        if let newValue, let inverse = inverseIndex(of: index, in: newValue) { newValue.attach(self, to: inverse) }
    }

    func addToMany(_ index: Int, _ object: ManagedObject, at position: Int? = nil) {
        if toManyContains(index, object) {
            if let position, case .toMany(let c) = relationshipSlots[index], c.position(of: object) != position {
                rawRemoveFromMany(index, object)
                rawInsertIntoMany(index, object, at: position)
            }
            return
        }
        rawInsertIntoMany(index, object, at: position)
        if let inverse = inverseIndex(of: index, in: object) { object.attach(self, to: inverse) }
    }

    func removeFromMany(_ index: Int, _ object: ManagedObject) {
        guard toManyContains(index, object) else { return }
        rawRemoveFromMany(index, object)
        if let inverse = inverseIndex(of: index, in: object) { object.detach(self, from: inverse) }
    }

    /// Makes relationship `index` of this object include `object` (the inverse side of a change on `object`).
    private func attach(_ object: ManagedObject, to index: Int) {
        if entity.relationships[index].isToMany {
            if !toManyContains(index, object) { rawInsertIntoMany(index, object, at: nil) }
        } else {
            let previous = toOneObject(at: index)
            if previous === object { return }
            rawSetToOne(index, object)
            // The previous partner loses this object (one-to-one and one-to-many pairs stay consistent).
            if let previous, let back = inverseIndex(of: index, in: previous) { previous.detach(self, from: back) }
        }
    }

    /// Makes relationship `index` of this object forget `object`.
    func detach(_ object: ManagedObject, from index: Int) {
        if entity.relationships[index].isToMany {
            if toManyContains(index, object) { rawRemoveFromMany(index, object) }
        } else if toOneObject(at: index) === object {
            rawSetToOne(index, nil)
        }
    }

    // MARK: - Primitive changes: tracked and undoable, no inverse maintenance

    func rawSetToOne(_ index: Int, _ newValue: ManagedObject?) {
        let old = toOneObject(at: index)
        if old === newValue { return }
        if let context = managedObjectContext {
            context.willChange(self)
            context.registerUndo(self) { object in object.rawSetToOne(index, old) }
        }
        relationshipSlots[index] = .toOne(newValue)
        managedObjectContext?.didChange(self)
        observers?.notify(
            entity.relationships[index].name, old: old.map { .object($0) } ?? .null,
            new: newValue.map { .object($0) } ?? .null)
    }

    func rawInsertIntoMany(_ index: Int, _ object: ManagedObject, at position: Int?) {
        fireFault()
        resolve(index)
        guard case .toMany(var collection) = relationshipSlots[index], !collection.contains(object) else { return }
        if let context = managedObjectContext {
            context.willChange(self)
            context.registerUndo(self) { owner in owner.rawRemoveFromMany(index, object) }
        }
        relationshipSlots[index] = .unresolvedToOne(nil)  // release the array so the append does not copy it
        if let position { collection.insert(object, at: position) } else { collection.append(object) }
        relationshipSlots[index] = .toMany(collection)
        managedObjectContext?.didChange(self)
        observers?.notify(entity.relationships[index].name, old: .null, new: .object(object))
    }

    func rawRemoveFromMany(_ index: Int, _ object: ManagedObject) {
        fireFault()
        resolve(index)
        guard case .toMany(var collection) = relationshipSlots[index], collection.contains(object) else { return }
        managedObjectContext?.willChange(self)
        relationshipSlots[index] = .unresolvedToOne(nil)
        let ordered = entity.relationships[index].isOrdered
        let position = collection.remove(object, keepingOrder: ordered)
        relationshipSlots[index] = .toMany(collection)
        if let context = managedObjectContext, let position {
            context.registerUndo(self) { owner in owner.rawInsertIntoMany(index, object, at: ordered ? position : nil) }
        }
        managedObjectContext?.didChange(self)
        observers?.notify(entity.relationships[index].name, old: .object(object), new: .null)
    }

    /// The destinations of relationship `index` as IDs (for snapshots and comparisons); a to-many fault is read first.
    func relationshipIDs(_ index: Int) -> [ManagedObjectID] {
        if case .toManyFault = relationshipSlots[index] { resolve(index) }
        switch relationshipSlots[index] {
        case .toOne(let object): return object.map { [$0.objectID] } ?? []
        case .toMany(let collection): return collection.objects.map(\.objectID)
        case .unresolvedToOne(let id): return id.map { [$0] } ?? []
        case .unresolvedToMany(let ids): return ids
        case .toManyFault: return []
        }
    }

    /// How many destinations relationship `index` has, without building the list of IDs; a to-many fault is read
    /// first.
    func relationshipCount(_ index: Int) -> Int {
        if case .toManyFault = relationshipSlots[index] { resolve(index) }
        switch relationshipSlots[index] {
        case .toOne(let object): return object == nil ? 0 : 1
        case .toMany(let collection): return collection.count
        case .unresolvedToOne(let id): return id == nil ? 0 : 1
        case .unresolvedToMany(let ids): return ids.count
        case .toManyFault: return 0
        }
    }
}

/// A mutable view of one to-many relationship of one object (Core Data's mutable set and ordered-set proxies):
/// every change keeps the inverse relationship in step and is recorded for undo.
public struct MutableRelationship {
    let owner: ManagedObject
    let index: Int

    /// The objects, in order for ordered relationships.
    public var objects: [ManagedObject] { owner.toManyObjects(at: index) }
    /// How many objects there are.
    public var count: Int { objects.count }

    /// Whether `object` is in the relationship.
    public func contains(_ object: ManagedObject) -> Bool { owner.toManyContains(index, object) }

    /// Adds an object (at the end of an ordered relationship).
    public func add(_ object: ManagedObject) { owner.addToMany(index, object) }

    /// Adds an object at a position of an ordered relationship.
    public func insert(_ object: ManagedObject, at position: Int) { owner.addToMany(index, object, at: position) }

    /// Removes an object.
    public func remove(_ object: ManagedObject) { owner.removeFromMany(index, object) }

    /// Removes every object.
    public func removeAll() {
        for object in objects { owner.removeFromMany(index, object) }
    }
}
