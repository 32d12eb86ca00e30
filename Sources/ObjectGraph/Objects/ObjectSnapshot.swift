/// The stored state of one object: its attribute values and the IDs its relationships point to, as a store holds
/// them. Snapshots are values and `Sendable`: stores, the coordinator's row cache and contexts exchange them.
public struct ObjectSnapshot: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID {
        // Inlinable: stores read it for every row they write.
        @inlinable get { identity.objectID }
        set { identity = .id(newValue) }
    }
    /// The object's ID, or its store, entity and key (a store's fetch that hands each row over and lets it go makes
    /// no ID per row: the context makes its objects from keys).
    @usableFromInline package var identity: Identity
    /// The optimistic-locking version (Core Data's `Z_OPT`): 1 when first saved, +1 on every save that changes it.
    public var version: Int64
    /// Attribute values by attribute name (transient attributes are never stored; a nil value is left out).
    ///
    /// A snapshot a store read by its entity's slots keeps its values that way until this dictionary is asked for or
    /// changed; ``subscript(attribute:)`` reads either form without making the dictionary.
    public var attributes: [String: AttributeValue] {
        get { slotted?.dictionary ?? named }
        set {
            slotted = nil
            named = newValue
        }
        _modify {
            if let slotted {
                named = slotted.dictionary
                self.slotted = nil
            }
            yield &named
        }
    }
    /// The values by name (when not held by slot).
    private var named: [String: AttributeValue] {
        get { byName?.attributes ?? [:] }
        set { changeByName { $0.attributes = newValue } }
        _modify {
            var parts = takeByName()
            defer { byName = parts }
            yield &parts.attributes
        }
    }
    /// The values by the slots of an entity layout, when a store read them that way: what filling an object of that
    /// layout copies without looking anything up by name.
    package private(set) var slotted: SlotValues?
    /// To-one relationships by name: the destination, or `nil`.
    ///
    /// Like ``attributes``, relationships a store read by its entity's slots stay that way until one of ``toOne``,
    /// ``toMany`` or ``toManyFaults`` is changed; ``subscript(toOne:)`` and ``subscript(toMany:)`` read either form
    /// without making dictionaries.
    public var toOne: [String: ManagedObjectID?] {
        get { slottedRelationships?.dictionaries.toOne ?? namedToOne }
        set {
            unslotRelationships()
            namedToOne = newValue
        }
        _modify {
            unslotRelationships()
            yield &namedToOne
        }
    }
    /// To-many relationships by name: the destinations, in order for ordered relationships.
    public var toMany: [String: [ManagedObjectID]] {
        get { slottedRelationships?.dictionaries.toMany ?? namedToMany }
        set {
            unslotRelationships()
            namedToMany = newValue
        }
        _modify {
            unslotRelationships()
            yield &namedToMany
        }
    }
    /// To-many relationships the store did not load: they fault separately, on first use
    /// (`IncrementalStore.destinations(of:relationship:)`).
    public var toManyFaults: Set<String> {
        get { slottedRelationships?.dictionaries.faults ?? namedFaults }
        set {
            unslotRelationships()
            namedFaults = newValue
        }
        _modify {
            unslotRelationships()
            yield &namedFaults
        }
    }
    private var namedToOne: [String: ManagedObjectID?] {
        get { byName?.toOne ?? [:] }
        set { changeByName { $0.toOne = newValue } }
        _modify {
            var parts = takeByName()
            defer { byName = parts }
            yield &parts.toOne
        }
    }
    private var namedToMany: [String: [ManagedObjectID]] {
        get { byName?.toMany ?? [:] }
        set { changeByName { $0.toMany = newValue } }
        _modify {
            var parts = takeByName()
            defer { byName = parts }
            yield &parts.toMany
        }
    }
    private var namedFaults: Set<String> {
        get { byName?.faults ?? [] }
        set { changeByName { $0.faults = newValue } }
        _modify {
            var parts = takeByName()
            defer { byName = parts }
            yield &parts.faults
        }
    }
    /// The relationships by the slots of an entity layout, when a store read them that way: what filling an object of
    /// that layout copies without a dictionary per object.
    package private(set) var slottedRelationships: SlotRelationships?
    /// Attributes whose stored values did not fit their type and were kept as they are, because the store was
    /// opened to read leniently (`docutil dump --lenient`): the object keeps them raw instead of failing to load.
    public var rawKeys: Set<String> {
        get { byName?.rawKeys ?? [] }
        set {
            guard !newValue.isEmpty || byName != nil else { return }
            changeByName { $0.rawKeys = newValue }
        }
    }
    /// Whether ``rawKeys`` is empty (without making a set).
    package var hasRawKeys: Bool { !(byName?.rawKeys.isEmpty ?? true) }

    /// What a snapshot holds by name, kept apart: a snapshot a store read by slot has none of it, and is copied and
    /// destroyed with one empty optional instead of five containers (a tenth of the cost of handing a row over).
    struct NamedParts {
        var attributes: [String: AttributeValue] = [:]
        var toOne: [String: ManagedObjectID?] = [:]
        var toMany: [String: [ManagedObjectID]] = [:]
        var faults: Set<String> = []
        var rawKeys: Set<String> = []
    }
    /// The parts held by name, `nil` while there are none.
    private var byName: NamedParts?

    /// The parts held by name, taken out (so that changing them copies nothing shared), or new ones.
    private mutating func takeByName() -> NamedParts {
        guard let parts = byName else { return NamedParts() }
        byName = nil
        return parts
    }

    /// Changes the parts held by name, made when there are none.
    private mutating func changeByName(_ change: (inout NamedParts) -> Void) {
        var parts = takeByName()
        change(&parts)
        byName = parts
    }

    /// What a snapshot knows its object by: its ID, or its store and entity (an ``ObjectIDPrefix``) and its key, the
    /// ID not made yet.
    ///
    /// One reference and a number, not an enum: a snapshot holding an enum with two payloads was copied and destroyed
    /// through its type's value witnesses instead of field by field (a save of 100,000 updates took 7% longer).
    @usableFromInline package struct Identity: @unchecked Sendable {
        /// The ID (when ``storedKey`` is ``byID``), else the prefix (both `Sendable` classes).
        @usableFromInline let reference: AnyObject
        /// The key, or ``byID``.
        @usableFromInline let storedKey: Int64
        /// The ``storedKey`` of an identity by ID (a key that is this is kept by ID).
        @usableFromInline static let byID = Int64.min

        @usableFromInline init(reference: AnyObject, storedKey: Int64) {
            self.reference = reference
            self.storedKey = storedKey
        }

        /// The identity of the object with `id`.
        package static func id(_ id: ManagedObjectID) -> Identity { Identity(reference: id, storedKey: byID) }

        /// The identity of the object with `key` in the store and entity of `prefix`.
        package static func key(_ prefix: ObjectIDPrefix, _ key: Int64) -> Identity {
            key == byID ? .id(prefix.objectID(key)) : Identity(reference: prefix, storedKey: key)
        }

        /// The ID, when the identity is by ID.
        @inlinable package var madeID: ManagedObjectID? {
            storedKey == Self.byID ? unsafeDowncast(reference, to: ManagedObjectID.self) : nil
        }

        /// The store, entity and key, when the identity is by key.
        package var keyed: (prefix: ObjectIDPrefix, key: Int64)? {
            storedKey == Self.byID ? nil : (unsafeDowncast(reference, to: ObjectIDPrefix.self), storedKey)
        }

        /// The object's key in its store (no ID made).
        package var primaryKey: Int64 { madeID?.primaryKey ?? storedKey }

        /// The object's ID (made, when the identity is by key).
        @inlinable package var objectID: ManagedObjectID {
            if let madeID { return madeID }
            return idFromKey()
        }

        /// The ID of an identity by key, made.
        @usableFromInline package func idFromKey() -> ManagedObjectID {
            unsafeDowncast(reference, to: ObjectIDPrefix.self).objectID(storedKey)
        }
    }

    /// Whether two snapshots are of the same object, compared without making an ID.
    private static func sameObject(_ lhs: Identity, _ rhs: Identity) -> Bool {
        if let a = lhs.madeID, let b = rhs.madeID { return a == b }
        // One is known by key: the same row's store, entity and key (a temporary ID is no row's).
        guard let a = RowCache.Key(lhs), let b = RowCache.Key(rhs) else { return false }
        return a == b
    }

    /// Moves relationships held by slot into the dictionaries, before one of them is changed.
    private mutating func unslotRelationships() {
        guard let slotted = slottedRelationships else { return }
        (namedToOne, namedToMany, namedFaults) = slotted.dictionaries
        slottedRelationships = nil
    }

    /// The destination of to-one relationship `name`: `nil` when the snapshot holds no such to-one, `.some(nil)`
    /// when it points nowhere (``toOne``'s entry, without making the dictionary).
    /// - Parameter name: the relationship's name.
    public subscript(toOne name: String) -> ManagedObjectID?? {
        withUnsafePointer(to: self) { Self.toOne(name, of: $0) }
    }

    /// ``subscript(toOne:)`` of the snapshot at `snapshot`, read where it is (see ``attribute(_:of:)``).
    /// - Parameters:
    ///   - name: the relationship's name.
    ///   - snapshot: the snapshot.
    /// - Returns: as the subscript.
    package static func toOne(_ name: String, of snapshot: UnsafePointer<ObjectSnapshot>) -> ManagedObjectID?? {
        guard let slotted = snapshot.pointee.slottedRelationships else { return snapshot.pointee.namedToOne[name] }
        guard let slot = slotted.layout.relationshipSlot(named: name), slot < slotted.values.count,
            case .toOne(let id) = slotted.values[slot]
        else { return nil }
        return .some(id)
    }

    /// The destinations of to-many relationship `name`, `nil` when the snapshot holds none for it (``toMany``'s entry,
    /// without making the dictionary).
    /// - Parameter name: the relationship's name.
    public subscript(toMany name: String) -> [ManagedObjectID]? {
        guard let slotted = slottedRelationships else { return namedToMany[name] }
        guard let slot = slotted.layout.relationshipSlot(named: name), slot < slotted.values.count,
            case .toMany(let ids) = slotted.values[slot]
        else { return nil }
        return ids
    }

    /// Whether to-many relationship `name` was left for a separate read (it is in ``toManyFaults``).
    /// - Parameter name: the relationship's name.
    /// - Returns: `true` when it is a fault.
    public func isToManyFault(_ name: String) -> Bool {
        guard let slotted = slottedRelationships else { return namedFaults.contains(name) }
        guard let slot = slotted.layout.relationshipSlot(named: name), slot < slotted.values.count,
            case .toManyFault = slotted.values[slot]
        else { return false }
        return true
    }

    /// Calls `body` with the name of each to-many relationship left for a separate read, without making a set.
    package func forEachToManyFault(_ body: (String) -> Void) {
        withUnsafePointer(to: self) { Self.forEachToManyFault(of: $0, body) }
    }

    /// ``forEachToManyFault(_:)`` of the snapshot at `snapshot`, read where it is (see ``forEachDestination(of:_:)``).
    package static func forEachToManyFault(of snapshot: UnsafePointer<ObjectSnapshot>, _ body: (String) -> Void) {
        guard let slotted = snapshot.pointee.slottedRelationships else {
            for name in snapshot.pointee.namedFaults { body(name) }
            return
        }
        for (slot, value) in slotted.values.enumerated() where slot < slotted.layout.relationships.count {
            if case .toManyFault = value { body(slotted.layout.relationships[slot].name) }
        }
    }

    /// Calls `body` with each to-many relationship the snapshot holds destinations for (``toMany``'s entries, in no
    /// particular order), without making the dictionary.
    package func forEachToMany<E: Error>(_ body: (String, [ManagedObjectID]) throws(E) -> Void) throws(E) {
        guard let slotted = slottedRelationships else {
            for (name, ids) in namedToMany { try body(name, ids) }
            return
        }
        for (slot, value) in slotted.values.enumerated() where slot < slotted.layout.relationships.count {
            if case .toMany(let ids) = value { try body(slotted.layout.relationships[slot].name, ids) }
        }
    }

    /// Calls `body` with each relationship the snapshot holds destinations for and each destination (to-one and
    /// to-many alike, in no particular order of relationships), without making dictionaries.
    package func forEachDestination<E: Error>(_ body: (String, ManagedObjectID) throws(E) -> Void) throws(E) {
        try withUnsafePointer(to: self) { (snapshot) throws(E) in try Self.forEachDestination(of: snapshot, body) }
    }

    /// ``forEachDestination(_:)`` of the snapshot at `snapshot`, read where it is: a snapshot in an array or a buffer
    /// would otherwise be copied whole (each of its parts retained) to call a method on it.
    package static func forEachDestination<E: Error>(
        of snapshot: UnsafePointer<ObjectSnapshot>, _ body: (String, ManagedObjectID) throws(E) -> Void
    ) throws(E) {
        if try forEachSlottedDestination(snapshot.pointee.slottedRelationships, body) { return }
        for (name, id) in snapshot.pointee.namedToOne { if let id { try body(name, id) } }
        for (name, ids) in snapshot.pointee.namedToMany { for id in ids { try body(name, id) } }
    }

    /// Whether the snapshot holds destinations for any to-many relationship (``toMany`` is not empty).
    package var hasToMany: Bool { withUnsafePointer(to: self) { Self.hasToMany($0) } }

    /// ``hasToMany`` of the snapshot at `snapshot`, read where it is (see ``forEachDestination(of:_:)``).
    package static func hasToMany(_ snapshot: UnsafePointer<ObjectSnapshot>) -> Bool {
        holdsToMany(snapshot.pointee.slottedRelationships) ?? !snapshot.pointee.namedToMany.isEmpty
    }

    /// Calls `body` as ``forEachDestination(of:_:)`` does for relationships held by slot: whether they are. (Borrowed:
    /// read where they are, neither copied nor retained.)
    private static func forEachSlottedDestination<E: Error>(
        _ relationships: borrowing SlotRelationships?, _ body: (String, ManagedObjectID) throws(E) -> Void
    ) throws(E) -> Bool {
        switch relationships {
        case .none: return false
        case .some(let slotted):
            try slotted.forEachDestination(body)
            return true
        }
    }

    /// Whether relationships held by slot hold to-many destinations; nil for none held by slot. (Borrowed: read where
    /// they are, neither copied nor retained.)
    private static func holdsToMany(_ relationships: borrowing SlotRelationships?) -> Bool? {
        switch relationships {
        case .none: nil
        case .some(let slotted): slotted.values.contains { if case .toMany = $0 { true } else { false } }
        }
    }

    /// The snapshot with every relationship's destinations passed through `map`, kept by slot when held that way.
    package func mappingDestinations(_ map: (ManagedObjectID) -> ManagedObjectID) -> ObjectSnapshot {
        var copy = self
        if let slotted = slottedRelationships {
            copy.slottedRelationships?.values = slotted.values.map { value in
                switch value {
                case .toOne(let id): .toOne(id.map(map))
                case .toMany(let ids): .toMany(ids.map(map))
                case .absent, .toManyFault: value
                }
            }
            return copy
        }
        if byName != nil {
            copy.namedToOne = namedToOne.mapValues { $0.map(map) }
            copy.namedToMany = namedToMany.mapValues { $0.map(map) }
        }
        return copy
    }

    /// Sets relationship `slot` of the layout the snapshot holds its relationships by (it was made with
    /// `relationships:`); otherwise, or for a slot out of range, does nothing and returns `false`.
    @discardableResult
    package mutating func setRelationship(atSlot slot: Int, _ value: RelationshipSlotValue) -> Bool {
        guard slot >= 0, slot < slottedRelationships?.values.count ?? 0 else { return false }
        slottedRelationships?.values[slot] = value
        return true
    }

    /// Sets the destinations of to-many relationship `name`, which is no longer a fault: by slot when the snapshot
    /// holds its relationships that way.
    package mutating func setDestinations(_ ids: [ManagedObjectID], ofToMany name: String) {
        if let slot = slottedRelationships?.layout.relationshipSlot(named: name),
            slot < slottedRelationships?.values.count ?? 0
        {
            slottedRelationships?.values[slot] = .toMany(ids)
            return
        }
        toMany[name] = ids
        toManyFaults.remove(name)
    }

    /// Whether two snapshots hold the same object, version, values and relationships (however their values are held).
    /// - Parameters:
    ///   - lhs: a snapshot.
    ///   - rhs: another.
    /// - Returns: `true` when they are equal.
    public static func == (lhs: ObjectSnapshot, rhs: ObjectSnapshot) -> Bool {
        sameObject(lhs.identity, rhs.identity) && lhs.version == rhs.version && lhs.toOne == rhs.toOne
            && lhs.toMany == rhs.toMany && lhs.toManyFaults == rhs.toManyFaults && lhs.rawKeys == rhs.rawKeys
            && lhs.attributes == rhs.attributes
    }

    /// Hashes what `==` compares.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) {
        // As `ManagedObjectID` hashes (its key and no temporary identifier), without making one.
        if let id = identity.madeID {
            hasher.combine(id)
        } else if let (_, key) = identity.keyed {
            hasher.combine(key)
            hasher.combine(UInt64?.none)
        }
        hasher.combine(version)
        hasher.combine(attributes)
        hasher.combine(toOne)
        hasher.combine(toMany)
        hasher.combine(toManyFaults)
        hasher.combine(rawKeys)
    }

    /// Takes the changed properties of an update, and its version.
    /// - Parameter update: the update a save wrote.
    public mutating func apply(_ update: ObjectUpdate) {
        // An update's attributes held by slot: a changed one absent from them was set to nil.
        let slottedAttributes = update.snapshot.slotted?.layout
        for key in update.changedKeys {
            if let slottedAttributes, slottedAttributes.attributeSlot(named: key) != nil {
                let value = update.snapshot[attribute: key]
                attributes[key] = value.isNull ? nil : value
            } else if let value = update.snapshot.attributes[key] {
                attributes[key] = value.isNull ? nil : value
            } else if let destination = update.snapshot.toOne[key] {
                toOne[key] = .some(destination)
            } else if let destinations = update.snapshot.toMany[key] {
                toMany[key] = destinations
                toManyFaults.remove(key)
            }
        }
        version = update.snapshot.version
    }

    /// The attribute values held by name, or nil when the snapshot holds them by slot (the dictionary itself, not
    /// a copy of its values).
    package var namedAttributes: [String: AttributeValue]? { slotted == nil ? named : nil }

    /// Calls `body` with each attribute value held by name (none when the snapshot holds them by slot), in the
    /// dictionary's order, without copying the dictionary.
    package func forEachNamedAttribute(_ body: (String, AttributeValue) -> Void) {
        guard slotted == nil else { return }
        for (name, value) in named { body(name, value) }
    }

    /// The value of an attribute; ``AttributeValue/null`` when absent.
    /// - Parameter name: the attribute's name.
    public subscript(attribute name: String) -> AttributeValue {
        withUnsafePointer(to: self) { Self.attribute(name, of: $0) }
    }

    /// ``subscript(attribute:)`` of the snapshot at `snapshot`, read where it is (calling the subscript on a snapshot
    /// in a buffer copied it whole first; see ``forEachDestination(of:_:)``).
    /// - Parameters:
    ///   - name: the attribute's name.
    ///   - snapshot: the snapshot.
    /// - Returns: the value; ``AttributeValue/null`` when absent.
    package static func attribute(_ name: String, of snapshot: UnsafePointer<ObjectSnapshot>) -> AttributeValue {
        if let slotted = snapshot.pointee.slotted {
            guard let slot = slotted.layout.attributeSlot(named: name), slot < slotted.count else { return .null }
            return slotted[slot]
        }
        return snapshot.pointee.named[name] ?? .null
    }
}

// The initializers are declared here, outside the type, so that the type keeps its memberwise initializer: each one
// ends in it, and a snapshot is built in place. (Stored field by field in an initializer of the type, the finished
// snapshot was copied and the original destroyed: two walks over its ten fields each time one was made.)
extension ObjectSnapshot {
    /// Creates a snapshot.
    /// - Parameters:
    ///   - objectID: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - attributes: attribute values by name (absent: null).
    ///   - toOne: to-one destinations by relationship name.
    ///   - toMany: to-many destinations by relationship name.
    public init(
        objectID: ManagedObjectID, version: Int64 = 1, attributes: [String: AttributeValue] = [:],
        toOne: [String: ManagedObjectID?] = [:], toMany: [String: [ManagedObjectID]] = [:]
    ) {
        self.init(
            identity: .id(objectID), version: version, slotted: nil, slottedRelationships: nil,
            byName: NamedParts(attributes: attributes, toOne: toOne, toMany: toMany))
    }

    /// Creates a snapshot whose attribute values are held by the slots of the entity's layout.
    /// - Parameters:
    ///   - objectID: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - layout: the layout of the object's entity.
    ///   - values: one value per attribute of the layout, in its order (``AttributeValue/null`` for nil and for
    ///     transient attributes).
    ///   - relationships: one entry per relationship of the layout, in its order; `nil` for none by slot (then
    ///     ``toOne`` and ``toMany`` start empty).
    package init(
        objectID: ManagedObjectID, version: Int64, layout: EntityLayout, values: [AttributeValue],
        relationships: [RelationshipSlotValue]? = nil
    ) {
        self.init(
            objectID: objectID, version: version, values: SlotValues(layout: layout, values: values),
            relationships: relationships)
    }

    /// Creates a snapshot of values a store set by slot, as it read them (see ``SlotValues/set(_:at:)``).
    /// - Parameters:
    ///   - objectID: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - values: its attribute values, by the slots of its entity's layout.
    ///   - relationships: one entry per relationship of the layout, in its order; `nil` for none by slot.
    package init(
        objectID: ManagedObjectID, version: Int64, values: SlotValues, relationships: [RelationshipSlotValue]? = nil
    ) {
        self.init(identity: .id(objectID), version: version, values: values, relationships: relationships)
    }

    /// Creates a snapshot of values a store set by slot, as it read them, known by its object's ID or key.
    /// - Parameters:
    ///   - identity: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - values: its attribute values, by the slots of its entity's layout.
    ///   - relationships: one entry per relationship of the layout, in its order; `nil` for none by slot.
    package init(
        identity: Identity, version: Int64, values: SlotValues, relationships: [RelationshipSlotValue]? = nil
    ) {
        self.init(
            identity: identity, version: version, slotted: values,
            slottedRelationships: relationships.map { SlotRelationships(layout: values.layout, values: $0) },
            byName: nil)
    }
}

/// One relationship of a snapshot held by slot (see `ObjectSnapshot.slottedRelationships`).
package enum RelationshipSlotValue: Sendable {
    /// Not held (a transient relationship): absent from ``ObjectSnapshot/toOne`` and ``ObjectSnapshot/toMany``.
    case absent
    /// A to-one's destination, or `nil`.
    case toOne(ManagedObjectID?)
    /// A to-many's destinations.
    case toMany([ManagedObjectID])
    /// A to-many left for a separate read.
    case toManyFault
}

/// Relationships held by the slots of an entity layout.
package struct SlotRelationships: Sendable {
    /// The layout the values follow.
    package let layout: EntityLayout
    /// One value per relationship of the layout.
    package var values: [RelationshipSlotValue]

    /// Calls `body` with each relationship that holds destinations and each destination (see
    /// ``ObjectSnapshot/forEachDestination(of:_:)``).
    func forEachDestination<E: Error>(_ body: (String, ManagedObjectID) throws(E) -> Void) throws(E) {
        for (slot, value) in values.enumerated() where slot < layout.relationships.count {
            switch value {
            case .toOne(let id?): try body(layout.relationships[slot].name, id)
            case .toMany(let ids): for id in ids { try body(layout.relationships[slot].name, id) }
            case .toOne(nil), .absent, .toManyFault: break
            }
        }
    }

    /// The relationships by name, as ``ObjectSnapshot/toOne``, ``ObjectSnapshot/toMany`` and
    /// ``ObjectSnapshot/toManyFaults`` hold them.
    var dictionaries: (toOne: [String: ManagedObjectID?], toMany: [String: [ManagedObjectID]], faults: Set<String>) {
        var toOne: [String: ManagedObjectID?] = [:]
        var toMany: [String: [ManagedObjectID]] = [:]
        var faults: Set<String> = []
        for (slot, value) in values.enumerated() where slot < layout.relationships.count {
            let name = layout.relationships[slot].name
            switch value {
            case .absent: break
            case .toOne(let id): toOne[name] = .some(id)
            case .toMany(let ids): toMany[name] = ids
            case .toManyFault: faults.insert(name)
            }
        }
        return (toOne, toMany, faults)
    }
}
