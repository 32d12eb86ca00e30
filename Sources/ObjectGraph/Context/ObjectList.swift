/// Objects in the order they were added, unique by identity, with O(1) membership and removal.
struct ObjectList {
    private var order: [ManagedObject?] = []
    private var positions = IdentityPositions()
    private var holes = 0

    var isEmpty: Bool { positions.count == 0 }
    var count: Int { positions.count }

    var objects: [ManagedObject] { order.compactMap { $0 } }

    func contains(_ object: ManagedObject) -> Bool { positions.position(of: object) != nil }

    mutating func insert(_ object: ManagedObject) {
        guard positions.insert(object, at: order.count) else { return }
        order.append(object)
    }

    mutating func remove(_ object: ManagedObject) {
        guard let position = positions.remove(object) else { return }
        order[position] = nil
        holes += 1
        if holes > 64 && holes > order.count / 2 { compact() }
    }

    mutating func removeAll() {
        order = []
        positions = IdentityPositions()
        holes = 0
    }

    private mutating func compact() {
        order = order.filter { $0 != nil }
        positions = IdentityPositions()
        for (i, object) in order.enumerated() {
            if let object { _ = positions.insert(object, at: i) }
        }
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

    private static func key(_ object: ManagedObject) -> UInt { UInt(bitPattern: ObjectIdentifier(object)) }

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
    func position(of object: ManagedObject) -> Int? {
        guard count > 0 else { return nil }
        let place = place(of: Self.key(object))
        return keys[place] == 0 ? nil : values[place]
    }

    /// Records `object` at `position` unless it is there already; whether it was added.
    mutating func insert(_ object: ManagedObject, at position: Int) -> Bool {
        if (count + 1) * 2 > keys.count { grow() }
        let key = Self.key(object)
        let place = place(of: key)
        guard keys[place] == 0 else { return false }
        keys[place] = key
        values[place] = position
        count += 1
        return true
    }

    /// Forgets `object`; its position, if it had one.
    mutating func remove(_ object: ManagedObject) -> Int? {
        guard count > 0 else { return nil }
        var hole = place(of: Self.key(object))
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

/// An object's state before its first unsaved change. A relationship is `nil` here until it is first changed (its
/// destinations are recorded just before): editing an attribute never lists (or, for a to-many still a fault, reads)
/// the object's relationships, and a relationship left `nil` is unchanged.
struct OriginalState {
    var attributes: [AttributeValue]
    var relationships: [[ManagedObjectID]?]
    var version: Int64
}

/// The original states of a context's changed objects by object identity: an open-addressed table keyed by the
/// object's address, as ``IdentityPositions`` (a dictionary by `ObjectIdentifier` hashed the address with SipHash
/// on each of the several lookups a change and a save make per object).
struct OriginalStates {
    /// Addresses (0 for an empty place) and their states; a power of two long, at most half full.
    private var keys: [UInt] = []
    private var values: [OriginalState?] = []
    private(set) var count = 0

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

    /// The original state of the object `id` stands for; setting `nil` forgets it.
    subscript(id: ObjectIdentifier) -> OriginalState? {
        get {
            guard count > 0 else { return nil }
            let place = place(of: UInt(bitPattern: id))
            return keys[place] == 0 ? nil : values[place]
        }
        set {
            let key = UInt(bitPattern: id)
            guard let newValue else {
                remove(key)
                return
            }
            if (count + 1) * 2 > keys.count { grow() }
            let place = place(of: key)
            if keys[place] == 0 {
                keys[place] = key
                count += 1
            }
            values[place] = newValue
        }
    }

    /// Changes every state in place.
    mutating func updateEach(_ body: (inout OriginalState) -> Void) {
        for place in keys.indices where keys[place] != 0 {
            if var state = values[place] {
                values[place] = nil
                body(&state)
                values[place] = state
            }
        }
    }

    /// Forgets every state.
    mutating func removeAll() {
        keys = []
        values = []
        count = 0
    }

    private mutating func remove(_ key: UInt) {
        guard count > 0 else { return }
        var hole = place(of: key)
        guard keys[hole] != 0 else { return }
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
        values[hole] = nil
        count -= 1
    }

    private mutating func grow() {
        let size = max(16, keys.count * 2)
        let (oldKeys, oldValues) = (keys, values)
        keys = [UInt](repeating: 0, count: size)
        values = [OriginalState?](repeating: nil, count: size)
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            let place = place(of: key)
            keys[place] = key
            values[place] = value
        }
    }
}
