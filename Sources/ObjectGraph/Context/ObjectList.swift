/// Objects in the order they were added, unique by identity, with O(1) membership and removal.
///
/// Objects known not to be in the list (a context's newly inserted objects) are appended with ``appendNew(_:)``
/// without a lookup: they join the identity table only when a lookup first needs them, so a list nothing is looked
/// up or removed in (the inserted objects of a run of inserts and a save) never builds one — the table was a sixth
/// of inserting an object into a context.
struct ObjectList {
    private var order: [ManagedObject?] = []
    private var positions = IdentityPositions()
    /// How many of `order`'s first entries `positions` covers; the objects after them were appended by
    /// ``appendNew(_:)`` and are added to it before the next lookup.
    private var indexed = 0
    private var holes = 0
    /// How many times an object was added or removed (or all were): lists read before and after some code are the
    /// same lists when this has not moved.
    private(set) var mutations = 0

    var isEmpty: Bool { count == 0 }
    var count: Int { order.count - holes }

    /// The objects in order (the buffer made at its size at once, not grown one object at a time).
    var objects: [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(count)
        for case let object? in order { objects.append(object) }
        return objects
    }

    mutating func contains(_ object: ManagedObject) -> Bool {
        catchUp()
        return positions.position(of: object) != nil
    }

    /// Adds `object` at the end unless it is in the list; whether it was added.
    @discardableResult
    mutating func insert(_ object: ManagedObject) -> Bool {
        catchUp()
        guard positions.insert(object, at: order.count) else { return false }
        order.append(object)
        indexed = order.count
        mutations &+= 1
        return true
    }

    /// Adds `object`, which is not in the list, at the end without looking it up.
    mutating func appendNew(_ object: ManagedObject) {
        order.append(object)
        mutations &+= 1
    }

    mutating func remove(_ object: ManagedObject) {
        catchUp()
        guard let position = positions.remove(object) else { return }
        order[position] = nil
        mutations &+= 1
        holes += 1
        if holes > 64 && holes > order.count / 2 { compact() }
    }

    mutating func removeAll() {
        order = []
        positions = IdentityPositions()
        indexed = 0
        holes = 0
        mutations &+= 1
    }

    /// Adds the objects appended since the last lookup to the identity table (inlined: the usual list has none).
    @inline(__always)
    private mutating func catchUp() {
        if indexed < order.count { indexAppended() }
    }

    private mutating func indexAppended() {
        while indexed < order.count {
            if let object = order[indexed] { _ = positions.insert(object, at: indexed) }
            indexed += 1
        }
    }

    private mutating func compact() {
        order = order.filter { $0 != nil }
        positions = IdentityPositions()
        for (i, object) in order.enumerated() {
            if let object { _ = positions.insert(object, at: i) }
        }
        indexed = order.count
        holes = 0
    }
}

/// Positions by object identity: an open-addressed table keyed by the object's address (multiplicative hashing,
/// linear probing, entries moved back on removal), where a dictionary by `ObjectIdentifier` hashed every address with
/// SipHash — a tenth of inserting an object into a context, which puts it in two lists.
struct IdentityPositions {
    /// Addresses (0 for an empty place) and their positions; a power of two long, at most half full.
    private var keys: [UInt] = []
    private var values: [Int] = []
    private(set) var count = 0

    /// An empty table.
    init() {}

    /// An empty table with room for `capacity` objects without growing (at most half full, as it keeps itself).
    init(capacity: Int) {
        guard capacity > 0 else { return }
        var size = 16
        while size < capacity * 2 + 2, size < Int.max / 4 { size *= 2 }
        keys = [UInt](repeating: 0, count: size)
        values = [Int](repeating: 0, count: size)
    }

    private static func key(_ object: ManagedObject) -> UInt { UInt(bitPattern: ObjectIdentifier(object)) }
    private static func key(_ id: ObjectIdentifier) -> UInt { UInt(bitPattern: id) }

    /// The place `key` hashes to in a table of `size` places.
    private static func home(_ key: UInt, _ size: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - size.trailingZeroBitCount))
    }

    /// The place holding `key`, or the empty place where it would go.
    private func place(of key: UInt) -> Int {
        let mask = keys.count - 1
        var place = Self.home(key, keys.count)
        while keys[place] != 0 && keys[place] != key { place = (place + 1) & mask }
        return place
    }

    /// The position recorded for `object`.
    func position(of object: ManagedObject) -> Int? { position(of: Self.key(object)) }

    /// The position recorded for the object `id` stands for.
    func position(of id: ObjectIdentifier) -> Int? { position(of: Self.key(id)) }

    private func position(of key: UInt) -> Int? {
        guard count > 0 else { return nil }
        let place = place(of: key)
        return keys[place] == 0 ? nil : values[place]
    }

    /// Records `object` at `position` unless it is there already; whether it was added.
    mutating func insert(_ object: ManagedObject, at position: Int) -> Bool { insert(Self.key(object), at: position) }

    /// Records the object `id` stands for at `position` unless it is there already; whether it was added.
    mutating func insert(_ id: ObjectIdentifier, at position: Int) -> Bool { insert(Self.key(id), at: position) }

    private mutating func insert(_ key: UInt, at position: Int) -> Bool {
        if (count + 1) * 2 > keys.count { grow() }
        let place = place(of: key)
        guard keys[place] == 0 else { return false }
        keys[place] = key
        values[place] = position
        count += 1
        return true
    }

    /// Moves the recorded object `id` stands for to `position`.
    mutating func move(_ id: ObjectIdentifier, to position: Int) {
        guard count > 0 else { return }
        let place = place(of: Self.key(id))
        if keys[place] != 0 { values[place] = position }
    }

    /// Forgets `object`; its position, if it had one.
    mutating func remove(_ object: ManagedObject) -> Int? { remove(Self.key(object)) }

    /// Forgets the object `id` stands for; its position, if it had one.
    mutating func remove(_ id: ObjectIdentifier) -> Int? { remove(Self.key(id)) }

    private mutating func remove(_ key: UInt) -> Int? {
        guard count > 0 else { return nil }
        var hole = place(of: key)
        guard keys[hole] != 0 else { return nil }
        let position = values[hole]
        // Entries after the hole whose home is not between the hole and them move back into it.
        let mask = keys.count - 1
        var next = (hole + 1) & mask
        while keys[next] != 0 {
            let home = Self.home(keys[next], keys.count)
            let movable = hole <= next ? (home <= hole || home > next) : (home <= hole && home > next)
            if movable {
                keys[hole] = keys[next]
                values[hole] = values[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        keys[hole] = 0
        count -= 1
        return position
    }

    private mutating func grow() {
        let size = max(16, keys.count * 2)
        let (oldKeys, oldValues) = (keys, values)
        keys = [UInt](repeating: 0, count: size)
        values = [Int](repeating: 0, count: size)
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            let place = place(of: key)
            keys[place] = key
            values[place] = value
        }
    }
}

/// An object's state before its first unsaved change, recorded one property at a time: an attribute's value just
/// before its first change, a relationship's destinations just before its first change. A property not recorded is
/// unchanged (its value now is its original one): recording an object's first change copies nothing else, and
/// editing an attribute never lists (or, for a to-many still a fault, reads) the object's relationships.
///
/// Every change of an attribute of an object with a recorded state records the attribute first (tracked or not:
/// ``ManagedObject/setAttribute(at:_:tracked:)``); a merge that replaces values records the new state whole.
struct OriginalState {
    /// The one attribute recorded, when there is one only (the usual change): kept without an array, which cost an
    /// allocation and its release per changed object.
    private var single: (slot: Int, value: AttributeValue)?
    /// The recorded attributes' slots and values in slot order, when there are two or more (`single` is then nil).
    private var several: [(slot: Int, value: AttributeValue)]
    /// Each relationship's recorded destinations by slot (`nil`: not recorded); empty until one is recorded.
    private(set) var relationships: [[ManagedObjectID]?]
    /// The object's version when it was read.
    var version: Int64

    /// A state with nothing recorded yet.
    init(version: Int64) {
        single = nil
        several = []
        relationships = []
        self.version = version
    }

    /// A state with these attributes (by slot) and relationships recorded (`nil`: not recorded).
    init(attributes: [AttributeValue?], relationships: [[ManagedObjectID]?], version: Int64) {
        let recorded = attributes.indices.compactMap { i in attributes[i].map { (slot: i, value: $0) } }
        (single, several) = recorded.count == 1 ? (recorded[0], []) : (nil, recorded)
        self.relationships = relationships
        self.version = version
    }

    /// The recorded value of attribute `index`, `nil` when it has not changed since the state was recorded.
    func attribute(_ index: Int) -> AttributeValue? {
        if let single { return single.slot == index ? single.value : nil }
        let place = position(ofAttribute: index)
        return place < several.count && several[place].slot == index ? several[place].value : nil
    }

    /// Calls `body` with each recorded attribute's slot and value, in slot order, while it returns `true`: whether it
    /// went through them all.
    func forEachAttribute(_ body: (Int, AttributeValue) -> Bool) -> Bool {
        if let single { return body(single.slot, single.value) }
        for (slot, value) in several where !body(slot, value) { return false }
        return true
    }

    /// Where attribute `index` is or would go among `several` (a binary search by slot).
    private func position(ofAttribute index: Int) -> Int {
        var (low, high) = (0, several.count)
        while low < high {
            let middle = low + (high - low) / 2
            if several[middle].slot < index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Records attribute `index`'s value unless it is recorded already.
    mutating func record(_ value: @autoclosure () -> AttributeValue, attribute index: Int) {
        if let first = single {
            if first.slot == index { return }
            // A second attribute: both go to the list, in slot order.
            let second = (slot: index, value: value())
            several = first.slot < index ? [first, second] : [second, first]
            single = nil
            return
        }
        if several.isEmpty {
            single = (index, value())
            return
        }
        let place = position(ofAttribute: index)
        if place < several.count, several[place].slot == index { return }
        // Attributes are mostly changed in slot order: most records go at the end.
        if place == several.count {
            several.append((index, value()))
        } else {
            several.insert((index, value()), at: place)
        }
    }

    /// The recorded destinations of relationship `index`, `nil` when it has not changed since.
    func relationship(_ index: Int) -> [ManagedObjectID]? {
        index < relationships.count ? relationships[index] : nil
    }

    /// Records relationship `index`'s destinations (one of `count`).
    mutating func record(_ ids: [ManagedObjectID], relationship index: Int, of count: Int) {
        if relationships.isEmpty { relationships = Array(repeating: nil, count: count) }
        relationships[index] = ids
    }

    /// Changes every recorded relationship's IDs (temporary IDs made permanent).
    mutating func mapRelationshipIDs(_ transform: (ManagedObjectID) -> ManagedObjectID) {
        relationships = relationships.map { $0?.map(transform) }
    }
}

/// The original states of a context's changed objects by object identity: kept in an array, each object's place in
/// it recorded by ``IdentityPositions`` (a dictionary by `ObjectIdentifier` hashed the address with SipHash on each
/// of the several lookups a change and a save make per object).
struct OriginalStates {
    private var positions = IdentityPositions()
    private var states: [OriginalState] = []
    private var owners: [ObjectIdentifier] = []

    var count: Int { states.count }

    /// The original state of the object `id` stands for; setting `nil` forgets it.
    subscript(id: ObjectIdentifier) -> OriginalState? {
        get { positions.position(of: id).map { states[$0] } }
        set {
            if let newValue {
                if let i = positions.position(of: id) {
                    states[i] = newValue
                } else {
                    _ = positions.insert(id, at: states.count)
                    states.append(newValue)
                    owners.append(id)
                }
            } else if let i = positions.remove(id) {
                // The last state takes the place of the one forgotten.
                let last = states.count - 1
                if i != last {
                    states.swapAt(i, last)
                    owners.swapAt(i, last)
                    positions.move(owners[i], to: i)
                }
                states.removeLast()
                owners.removeLast()
            }
        }
    }

    /// Adds the state of an object `id` stands for that has none yet (the caller knows: no lookup made), moved in
    /// rather than copied.
    mutating func add(_ id: ObjectIdentifier, _ state: consuming OriginalState) {
        _ = positions.insert(id, at: states.count)
        states.append(state)
        owners.append(id)
    }

    /// Whether the object `id` stands for has a recorded state (nothing copied to tell).
    func contains(_ id: ObjectIdentifier) -> Bool { positions.position(of: id) != nil }

    /// Changes the state of the object `id` stands for in place (its arrays not copied to change one): what `body`
    /// returns, or nil when there is no such state.
    mutating func modify<R>(_ id: ObjectIdentifier, _ body: (inout OriginalState) -> R) -> R? {
        guard let i = positions.position(of: id) else { return nil }
        return body(&states[i])
    }

    /// Changes every state in place.
    mutating func updateEach(_ body: (inout OriginalState) -> Void) {
        for i in states.indices { body(&states[i]) }
    }

    /// Forgets every state.
    mutating func removeAll() {
        positions = IdentityPositions()
        states = []
        owners = []
    }
}
