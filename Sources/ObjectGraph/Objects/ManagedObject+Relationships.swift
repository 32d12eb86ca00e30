extension ManagedObject {
    /// Sets a to-one relationship, keeping the inverse relationship in step (the old destination forgets this
    /// object, the new one gains it).
    /// - Parameters:
    ///   - object: the new destination, or `nil`.
    ///   - key: a to-one relationship.
    /// - Throws: ``ObjectGraphError`` for an unknown key, a destination of the wrong entity or context, an object no
    ///   longer among the context's objects (`invalidatedObject`), or an object (this one, or a destination whose
    ///   inverse must change) that cannot be read from its store.
    public func setObject(_ object: ManagedObject?, forKey key: String) throws(ObjectGraphError) {
        let index = try relationshipIndex(key, toMany: false)
        if let object { try checkDestination(object, index) }
        try setToOne(index, object)
    }

    /// Replaces the contents of a to-many relationship, keeping inverses in step.
    /// - Parameters:
    ///   - objects: the new destinations, in order for an ordered relationship.
    ///   - key: a to-many relationship.
    /// - Throws: ``ObjectGraphError`` for an unknown key, a destination of the wrong entity or context, an object no
    ///   longer among the context's objects (`invalidatedObject`), or an object that cannot be read from its store.
    public func setObjects(_ objects: [ManagedObject], forKey key: String) throws(ObjectGraphError) {
        let index = try relationshipIndex(key, toMany: true)
        for object in objects { try checkDestination(object, index) }
        let keep = Set(objects.map(ObjectIdentifier.init))
        for old in try toManyObjects(at: index) where !keep.contains(ObjectIdentifier(old)) {
            try removeFromMany(index, old)
        }
        for (position, object) in objects.enumerated() {
            try addToMany(index, object, at: entity.relationships[index].isOrdered ? position : nil)
        }
    }

    /// A mutable view of a to-many relationship: adding and removing through it keeps inverses in step.
    /// - Parameter key: a to-many relationship.
    /// - Returns: the view.
    /// - Throws: ``ObjectGraphError`` `unknownKey` when the key is not a to-many relationship.
    public func mutableObjects(forKey key: String) throws(ObjectGraphError) -> MutableRelationship {
        MutableRelationship(owner: self, index: try relationshipIndex(key, toMany: true))
    }

    private func relationshipIndex(_ key: String, toMany: Bool) throws(ObjectGraphError) -> Int {
        guard let index = entity.relationshipIndex[key] else {
            throw unknownKey(key, relationship: toMany ? "to-many" : "to-one")
        }
        guard entity.relationships[index].isToMany == toMany else {
            throw ObjectGraphError(
                .wrongValueType, "\(entity.name).\(key) is a \(toMany ? "to-one" : "to-many") relationship")
        }
        return index
    }

    func checkDestination(_ object: ManagedObject, _ index: Int) throws(ObjectGraphError) {
        let relationship = entity.relationships[index]
        guard object.entity.isKind(of: relationship.destinationEntityName) else {
            throw ObjectGraphError(
                .wrongValueType,
                "\(entity.name).\(relationship.name) holds \(relationship.destinationEntityName) objects, not \(object.entity.name)"
            )
        }
        guard object.linkedContext === linkedContext else {
            throw ObjectGraphError(.wrongContext, "\(object) belongs to another context than \(self)")
        }
        // An object out of the context's objects (its insert undone, or its deletion saved) has no row a link could
        // name: refused now, where the save would refuse the link later and keep refusing until it was undone.
        // (Each tested in place: a list of the two cost an allocation per link.)
        if flags.contains(.gone) { throw Self.outOfContext(self) }
        if object.flags.contains(.gone) { throw Self.outOfContext(object) }
    }

    /// The error for linking an object out of its context's objects.
    private static func outOfContext(_ gone: ManagedObject) -> ObjectGraphError {
        ObjectGraphError(
            .invalidatedObject,
            "\(gone) is no longer among its context's objects (its insert was undone, or its deletion saved)",
            objectID: gone.objectID)
    }

    // MARK: - Operations that keep inverses

    /// The slot of the inverse of relationship `index` in `object`'s entity.
    func inverseIndex(of index: Int, in object: ManagedObject) -> Int? {
        entity.inverseNames[index].flatMap { object.entity.relationshipIndex[$0] }
    }

    func setToOne(_ index: Int, _ newValue: ManagedObject?) throws(ObjectGraphError) {
        let old = try toOneObject(at: index)
        if old === newValue { return }
        // Every object whose relationships change is read first, so that a failure leaves nothing half changed.
        if entity.inverseNames[index] != nil {
            try old?.fireFault()
            try newValue?.fireFault()
        }
        try rawSetToOne(index, newValue)
        if let old, let inverse = inverseIndex(of: index, in: old) { try old.detach(self, from: inverse) }
        if let newValue, let inverse = inverseIndex(of: index, in: newValue) { try newValue.attach(self, to: inverse) }
    }

    func addToMany(_ index: Int, _ object: ManagedObject, at position: Int? = nil) throws(ObjectGraphError) {
        if try toManyContains(index, object) {
            if let position, case .toMany(let c) = relationshipSlots[index], c.position(of: object) != position {
                try rawRemoveFromMany(index, object)
                try rawInsertIntoMany(index, object, at: position)
            }
            return
        }
        if entity.inverseNames[index] != nil { try object.fireFault() }
        try rawInsertIntoMany(index, object, at: position)
        if let inverse = inverseIndex(of: index, in: object) { try object.attach(self, to: inverse) }
    }

    func removeFromMany(_ index: Int, _ object: ManagedObject) throws(ObjectGraphError) {
        guard try toManyContains(index, object) else { return }
        if entity.inverseNames[index] != nil { try object.fireFault() }
        try rawRemoveFromMany(index, object)
        if let inverse = inverseIndex(of: index, in: object) { try object.detach(self, from: inverse) }
    }

    /// Makes relationship `index` of this object include `object` (the inverse side of a change on `object`).
    private func attach(_ object: ManagedObject, to index: Int) throws(ObjectGraphError) {
        if entity.relationshipShapes[index].isToMany {
            if try !toManyContains(index, object) { try rawInsertIntoMany(index, object, at: nil) }
        } else {
            let previous = try toOneObject(at: index)
            if previous === object { return }
            try previous?.fireFault()
            try rawSetToOne(index, object)
            // The previous partner loses this object (one-to-one and one-to-many pairs stay consistent).
            if let previous, let back = inverseIndex(of: index, in: previous) { try previous.detach(self, from: back) }
        }
    }

    /// Makes relationship `index` of this object forget `object`.
    func detach(_ object: ManagedObject, from index: Int) throws(ObjectGraphError) {
        if entity.relationshipShapes[index].isToMany {
            if try toManyContains(index, object) { try rawRemoveFromMany(index, object) }
        } else if try toOneObject(at: index) === object {
            try rawSetToOne(index, nil)
        }
    }

    // MARK: - Primitive changes: tracked and undoable, no inverse maintenance

    /// Runs an undo or redo action; a failure (an object that can no longer be read) is kept by the context so
    /// that the next save reports it instead of writing a half-undone graph.
    func undoing(_ body: () throws(ObjectGraphError) -> Void) {
        do {
            try body()
        } catch {
            linkedContext?.recordFailure(error)
        }
    }

    func rawSetToOne(_ index: Int, _ newValue: ManagedObject?) throws(ObjectGraphError) {
        let old = try toOneObject(at: index)
        if old === newValue { return }
        // Not retained: nothing here lets the context go (the observers are told after).
        let unretained = unretainedContext
        unretained?._withUnsafeGuaranteedRef { context in
            context.willChange(self, relationship: index)
            if context.recordsUndo {
                context.registerUndo(self) { object in
                    object.undoing { () throws(ObjectGraphError) in try object.rawSetToOne(index, old) }
                }
            }
        }
        relationshipSlots[index] = .toOne(newValue)
        unretained?._withUnsafeGuaranteedRef { $0.didChange(self) }
        observers?.notify(
            entity.relationships[index].name, old: old.map { .object($0) } ?? .null,
            new: newValue.map { .object($0) } ?? .null)
    }

    func rawInsertIntoMany(_ index: Int, _ object: ManagedObject, at position: Int?) throws(ObjectGraphError) {
        try fireFault()
        try resolve(index)
        guard case .toMany(var collection) = relationshipSlots[index], !collection.contains(object) else { return }
        // Not retained: nothing here lets the context go (the observers are told after).
        let unretained = unretainedContext
        unretained?._withUnsafeGuaranteedRef { context in
            context.willChange(self, relationship: index)
            if context.recordsUndo {
                context.registerUndo(self) { owner in
                    owner.undoing { () throws(ObjectGraphError) in try owner.rawRemoveFromMany(index, object) }
                }
            }
        }
        relationshipSlots[index] = .unresolvedToOne(nil)  // release the array so the append does not copy it
        if let position { collection.insert(object, at: position) } else { collection.append(object) }
        relationshipSlots[index] = .toMany(collection)
        unretained?._withUnsafeGuaranteedRef { $0.didChange(self) }
        observers?.notify(entity.relationships[index].name, old: .null, new: .object(object))
    }

    func rawRemoveFromMany(_ index: Int, _ object: ManagedObject) throws(ObjectGraphError) {
        try fireFault()
        try resolve(index)
        guard case .toMany(var collection) = relationshipSlots[index], collection.contains(object) else { return }
        // Not retained: nothing here lets the context go (the observers are told after).
        let unretained = unretainedContext
        unretained?._withUnsafeGuaranteedRef { $0.willChange(self, relationship: index) }
        relationshipSlots[index] = .unresolvedToOne(nil)
        let ordered = entity.relationships[index].isOrdered
        let position = collection.remove(object, keepingOrder: ordered)
        relationshipSlots[index] = .toMany(collection)
        unretained?._withUnsafeGuaranteedRef { context in
            guard let position, context.recordsUndo else { return }
            context.registerUndo(self) { owner in
                owner.undoing { () throws(ObjectGraphError) in
                    try owner.rawInsertIntoMany(index, object, at: ordered ? position : nil)
                }
            }
        }
        unretained?._withUnsafeGuaranteedRef { $0.didChange(self) }
        observers?.notify(entity.relationships[index].name, old: .object(object), new: .null)
    }

    /// Removes `objects` from unordered to-many relationship `index` at once: one change recorded (its original
    /// destinations listed once, the object compared with its original once) and one undo action, where removing
    /// them one by one made each of these per object. Objects not in the relationship are skipped.
    func rawRemoveFromMany(_ index: Int, all objects: [ManagedObject]) throws(ObjectGraphError) {
        try fireFault()
        try resolve(index)
        guard case .toMany(var collection) = relationshipSlots[index],
            objects.contains(where: { collection.contains($0) })
        else { return }
        // Not retained: nothing here lets the context go (the observers are told after).
        let unretained = unretainedContext
        unretained?._withUnsafeGuaranteedRef { $0.willChange(self, relationship: index) }
        relationshipSlots[index] = .unresolvedToOne(nil)
        var removed: [ManagedObject] = []
        removed.reserveCapacity(objects.count)
        for object in objects where collection.remove(object, keepingOrder: false) != nil { removed.append(object) }
        relationshipSlots[index] = .toMany(collection)
        unretained?._withUnsafeGuaranteedRef { context in
            guard context.recordsUndo else { return }
            context.registerUndo(self) { owner in
                owner.undoing { () throws(ObjectGraphError) in
                    // Put back as undoing one removal after another would: the last removed first.
                    for object in removed.reversed() { try owner.rawInsertIntoMany(index, object, at: nil) }
                }
            }
        }
        unretained?._withUnsafeGuaranteedRef { $0.didChange(self) }
        if let observers {
            let name = entity.relationships[index].name
            for object in removed { observers.notify(name, old: .object(object), new: .null) }
        }
    }

    /// The destinations of relationship `index` as IDs without reading anything from the store; `nil` for a to-many
    /// relationship that is still a fault.
    func loadedRelationshipIDs(_ index: Int) -> [ManagedObjectID]? {
        guard index < relationshipSlots.count else { return [] }
        switch relationshipSlots[index] {
        case .toOne(let object): return object.map { [$0.objectID] } ?? []
        case .toMany(let collection): return collection.objects.map(\.objectID)
        case .unresolvedToOne(let id): return id.map { [$0] } ?? []
        case .unresolvedToMany(let ids): return ids
        case .toManyFault: return nil
        }
    }

    /// How many destinations relationship `index` has, without reading anything; `nil` for a to-many fault.
    func loadedRelationshipCount(_ index: Int) -> Int? {
        guard index < relationshipSlots.count else { return 0 }
        switch relationshipSlots[index] {
        case .toOne(let object): return object == nil ? 0 : 1
        case .toMany(let collection): return collection.count
        case .unresolvedToOne(let id): return id == nil ? 0 : 1
        case .unresolvedToMany(let ids): return ids.count
        case .toManyFault: return nil
        }
    }

    /// The destinations of relationship `index` as IDs (for snapshots and comparisons); a to-many fault is read first.
    func relationshipIDs(_ index: Int) throws(ObjectGraphError) -> [ManagedObjectID] {
        if case .toManyFault = relationshipSlots[index] { try resolve(index) }
        switch relationshipSlots[index] {
        case .toOne(let object): return object.map { [$0.objectID] } ?? []
        case .toMany(let collection): return collection.objects.map(\.objectID)
        case .unresolvedToOne(let id): return id.map { [$0] } ?? []
        case .unresolvedToMany(let ids): return ids
        case .toManyFault: return []
        }
    }

    /// How many destinations relationship `index` has, without building the list of IDs; the object (when a fault)
    /// and a to-many fault are read first.
    func relationshipCount(_ index: Int) throws(ObjectGraphError) -> Int {
        // (A fault has no relationship slots to look at.)
        try fireFault()
        if case .toManyFault = relationshipSlots[index] { try resolve(index) }
        switch relationshipSlots[index] {
        case .toOne(let object): return object == nil ? 0 : 1
        case .toMany(let collection): return collection.count
        case .unresolvedToOne(let id): return id == nil ? 0 : 1
        case .unresolvedToMany(let ids): return ids.count
        case .toManyFault: return 0
        }
    }
}

extension ManagedObject {
    /// Sets a to-one of an object inserted in this context whose inverse is a to-many of another object, leaving
    /// that to-many alone when it has not been read (it then reads the new member from its store once this object
    /// is saved) — so that linking many new objects to one saved object does not read, and record the change of,
    /// its whole to-many each time. Otherwise the same as ``setObject(_:forKey:)``.
    ///
    /// For bulk imports into a store that keeps a one-to-many on the to-one side (SQLite): nothing may read the
    /// destination's to-many before the save.
    package func setObjectLeavingInverseFault(_ object: ManagedObject?, forKey key: String) throws(ObjectGraphError) {
        let index = try relationshipIndex(key, toMany: false)
        guard let object else { return try setToOne(index, nil) }
        try checkDestination(object, index)
        guard isInserted, try toOneObject(at: index) == nil, let inverse = inverseIndex(of: index, in: object),
            object.entity.relationships[inverse].isToMany,
            object.isFault || object.loadedRelationshipCount(inverse) == nil
        else { return try setToOne(index, object) }
        try rawSetToOne(index, object)
    }
}
