/// A context's registered objects by ID (uniquing): at most one object per ID.
///
/// Stores hand out primary keys densely (SQLite's `Z_PK` counts up from 1 per entity), and a fetch registers its
/// objects in key order, so a permanent ID's object lives in an array per store and entity, at its key: a lookup is
/// one comparison of names (the last table used is tried first) and one index, and registering many objects in key
/// order touches memory in order (a hash table touches it at random, which cost a large fetch more than reading its
/// rows). Temporary IDs count up too (one counter for the process): the objects inserted since the context last
/// had none live in one more array, from the first one's number on. Keys far beyond the ones a table holds (a table
/// never grows to more than about four slots per object registered), and a temporary number another ID already
/// holds in the array (a made-up URI can name another entity), go to a dictionary. Each ID is in one place at a
/// time.
struct ObjectRegistry {
    /// Objects at their keys (primary keys of one entity of one store, or temporary numbers from ``base`` on).
    private struct Table {
        /// The key of `slots[0]`.
        var base: Int64 = 0
        /// `slots[i]` holds the object whose key is `base + i`.
        var slots: ContiguousArray<ManagedObject?> = []
        /// How many slots hold an object.
        var count = 0
        /// How many of this table's IDs are in the dictionary instead.
        var overflow = 0 {
            didSet { if overflow == 0 { elsewhere = [] } }
        }
        /// Every key of this table sent to the dictionary since it last held none (a key there now is among them):
        /// a lookup by key makes an ID to look in the dictionary only for these.
        private var elsewhere: Set<Int64> = []

        /// Whether `key`'s object may be in the dictionary.
        func mayBeElsewhere(_ key: Int64) -> Bool { overflow > 0 && elsewhere.contains(key) }

        /// Counts one more of the table's IDs, with `key`, as sent to the dictionary.
        mutating func sentElsewhere(_ key: Int64) {
            overflow += 1
            elsewhere.insert(key)
        }

        /// The slot of `key`, if the table has one.
        func slot(of key: Int64) -> Int? {
            let (index, overflowed) = key.subtractingReportingOverflow(base)
            return !overflowed && index >= 0 && index < slots.count ? Int(index) : nil
        }
    }

    /// What a table of permanent IDs is found by.
    private struct TableKey: Hashable {
        let storeIdentifier: String
        let entityName: String
    }

    /// The tables of permanent IDs, and what each is for.
    private var tables: [Table] = []
    private var tableKeys: [TableKey] = []
    private var tableNumbers: [TableKey: Int] = [:]
    /// The table used last: runs of lookups are of one entity.
    private var lastTable = 0
    /// The objects with temporary IDs (by number).
    private var temporary = Table()
    /// What does not fit the tables.
    private var others: [ManagedObjectID: ManagedObject] = [:]
    /// How many objects the tables hold.
    private var inTables = 0
    /// How many objects are about to be registered (see ``reserve(_:)``): a table may grow to hold them.
    private var expected = 0

    /// A table never grows beyond this many slots unless it holds about a quarter as many objects.
    private static let smallTable = 1024

    /// How many objects are registered.
    var count: Int { inTables + others.count }

    /// How many objects are in the tables (the rest are in the dictionary): for tests of where objects go.
    var countInTables: Int { inTables }

    /// Whether no object is registered.
    var isEmpty: Bool { count == 0 }

    /// Makes room for `count` more objects registered at once (a fetch's results). The dictionary grows ahead only
    /// once it holds objects (keys that did not fit the tables): the first storage of one made in a process costs a
    /// scan of the program's protocol conformances (`ManagedObjectID: Hashable`, about 0.43 M instructions), which a
    /// fetch whose keys all fit (the usual case) never needs.
    mutating func reserve(_ count: Int) {
        expected = self.count + count
        if !others.isEmpty, others.capacity < others.count + count / 8 {
            others.reserveCapacity(others.count + count / 8)
        }
    }

    /// The object registered for `id`; setting `nil` removes it.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        mutating get {
            if let number = id.temporaryIdentifier {
                if let slot = temporary.slot(of: Int64(bitPattern: number)), let object = temporary.slots[slot],
                    object.objectID == id
                {
                    return object
                }
                return temporary.mayBeElsewhere(Int64(bitPattern: number)) ? others[id] : nil
            }
            guard let number = tableNumber(of: id) else { return others[id] }
            if let slot = tables[number].slot(of: id.primaryKey), let object = tables[number].slots[slot] {
                return object
            }
            return tables[number].mayBeElsewhere(id.primaryKey) ? others[id] : nil
        }
        set {
            if let newValue {
                register(newValue, for: id)
            } else {
                removeValue(forKey: id)
            }
        }
    }

    /// Removes the object registered for `id`.
    /// - Parameter id: the ID.
    /// - Returns: the object that was registered, if any.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> ManagedObject? {
        if let number = id.temporaryIdentifier {
            return Self.remove(
                id, key: Int64(bitPattern: number), from: &temporary, others: &others, &inTables, byNumber: true)
        }
        guard let number = tableNumber(of: id) else { return others.removeValue(forKey: id) }
        return Self.remove(id, key: id.primaryKey, from: &tables[number], others: &others, &inTables, byNumber: false)
    }

    /// Forgets every object.
    mutating func removeAll() {
        self = ObjectRegistry()
    }

    /// Every registered object: the tables' in key order, then the others'.
    var values: Values { Values(registry: self) }

    /// The registered objects, in no promised order.
    struct Values: Sequence {
        fileprivate let registry: ObjectRegistry

        /// The objects, one by one.
        struct Iterator: IteratorProtocol {
            fileprivate let registry: ObjectRegistry
            private var table = 0
            private var slot = 0
            private var others: Dictionary<ManagedObjectID, ManagedObject>.Values.Iterator

            fileprivate init(registry: ObjectRegistry) {
                self.registry = registry
                self.others = registry.others.values.makeIterator()
            }

            mutating func next() -> ManagedObject? {
                while table < registry.tables.count {
                    while slot < registry.tables[table].slots.count {
                        defer { slot += 1 }
                        if let object = registry.tables[table].slots[slot] { return object }
                    }
                    table += 1
                    slot = 0
                }
                if table == registry.tables.count {
                    while slot < registry.temporary.slots.count {
                        defer { slot += 1 }
                        if let object = registry.temporary.slots[slot] { return object }
                    }
                    table += 1
                }
                return others.next()
            }
        }

        func makeIterator() -> Iterator { Iterator(registry: registry) }

        var underestimatedCount: Int { registry.count }
    }

    // MARK: - Tables

    /// The table of a permanent ID's store and entity, if there is one.
    private mutating func tableNumber(of id: ManagedObjectID) -> Int? {
        guard let store = id.storeIdentifier else { return nil }
        return tableNumber(storeIdentifier: store, entityName: id.entityName)
    }

    /// The table of a store and entity, if there is one (the last one used is tried first).
    @inline(__always)
    private mutating func tableNumber(storeIdentifier: String, entityName: String) -> Int? {
        if lastTable < tables.count, tableKeys[lastTable].entityName == entityName,
            tableKeys[lastTable].storeIdentifier == storeIdentifier
        {
            return lastTable
        }
        guard let number = tableNumbers[TableKey(storeIdentifier: storeIdentifier, entityName: entityName)] else {
            return nil
        }
        lastTable = number
        return number
    }

    private mutating func register(_ object: ManagedObject, for id: ManagedObjectID) {
        if let number = id.temporaryIdentifier {
            registerTemporary(object, for: id, number: number)
            return
        }
        guard let store = id.storeIdentifier else {
            others[id] = object
            return
        }
        register(
            object, for: id, key: id.primaryKey,
            inTable: tableNumber(of: id) ?? addTable(store: store, entityName: id.entityName))
    }

    /// Registers an inserted object by its temporary number (its ID made or not: the registry makes it only when the
    /// object goes to the dictionary).
    mutating func register(_ object: ManagedObject, temporaryNumber number: UInt64) {
        registerTemporary(object, for: nil, number: number)
    }

    /// Registers `object` at temporary `number` (`id` is its ID when the caller has it).
    private mutating func registerTemporary(_ object: ManagedObject, for id: ManagedObjectID?, number: UInt64) {
        let allowed = max(Self.smallTable, 2 * max(count, expected) + 2)
        // Emptied (by a save), the table starts again at the next number.
        if temporary.count == 0, temporary.overflow == 0 { temporary.base = Int64(bitPattern: number) }
        Self.register(
            object, for: id, key: Int64(bitPattern: number), in: &temporary, allowed: allowed, others: &others,
            &inTables, byNumber: true)
    }

    /// Takes out an object registered by its temporary number (see ``register(_:temporaryNumber:)``).
    mutating func remove(_ object: ManagedObject, temporaryNumber number: UInt64) {
        let key = Int64(bitPattern: number)
        if let slot = temporary.slot(of: key), temporary.slots[slot] === object {
            temporary.slots[slot] = nil
            temporary.count -= 1
            inTables -= 1
            return
        }
        guard temporary.mayBeElsewhere(key), others.removeValue(forKey: object.objectID) != nil else { return }
        temporary.overflow -= 1
    }

    /// Where an ID's object is, or would go: found by ``find(_:)`` and used by ``register(_:for:at:)`` so that a
    /// lookup followed by a registration (a fetch's, for every row) finds a permanent ID's table and slot once.
    enum Place {
        /// The object registered for the ID.
        case registered(ManagedObject)
        /// Not registered; its table is this one.
        case table(Int)
        /// Not registered; it would go where ``register(_:for:)`` puts it.
        case elsewhere
    }

    /// Where `id`'s object is, or where it would be registered (valid until the registry next changes).
    mutating func find(_ id: ManagedObjectID) -> Place {
        guard id.temporaryIdentifier == nil, id.storeIdentifier != nil, let number = tableNumber(of: id) else {
            return self[id].map { .registered($0) } ?? .elsewhere
        }
        if let slot = tables[number].slot(of: id.primaryKey), let object = tables[number].slots[slot] {
            return .registered(object)
        }
        if tables[number].mayBeElsewhere(id.primaryKey), let object = others[id] { return .registered(object) }
        return .table(number)
    }

    /// The table of a store's entity, made when there is none yet: a fetch finds it once for a run of the entity's
    /// keys (see ``object(forKey:inTable:prefix:)`` and ``register(_:key:inTable:)``).
    mutating func table(storeIdentifier: String, entityName: String) -> Int {
        tableNumber(storeIdentifier: storeIdentifier, entityName: entityName)
            ?? addTable(store: storeIdentifier, entityName: entityName)
    }

    /// The object registered for `key` in table `number` (``table(storeIdentifier:entityName:)``), without an ID
    /// made for the lookup unless the table has sent some of its objects to the dictionary.
    /// - Parameters:
    ///   - key: the primary key.
    ///   - number: the table of the key's store and entity.
    ///   - prefix: the same store and entity, to make the ID to look for in the dictionary.
    /// (Mutating, though it changes nothing, as ``find(_:)`` is: called on the context's registry, a non-mutating
    /// method is given a copy of it, every field retained and released again, per object.)
    mutating func object(forKey key: Int64, inTable number: Int, prefix: ObjectIDPrefix) -> ManagedObject? {
        if let slot = tables[number].slot(of: key), let object = tables[number].slots[slot] { return object }
        return tables[number].mayBeElsewhere(key) ? others[prefix.objectID(key)] : nil
    }

    /// Registers `object`, with `key` in table `number` (``table(storeIdentifier:entityName:)``) and nothing
    /// registered for that key; its ID is read only if it goes to the dictionary.
    mutating func register(_ object: ManagedObject, key: Int64, inTable number: Int) {
        register(object, for: nil, key: key, inTable: number)
    }

    /// Registers `object` for `id` at the place ``find(_:)`` found for it, with nothing registered in between.
    mutating func register(_ object: ManagedObject, for id: ManagedObjectID, at place: Place) {
        if case .table(let number) = place {
            register(object, for: id, key: id.primaryKey, inTable: number)
        } else {
            register(object, for: id)
        }
    }

    /// Adds the (empty) table of a store and entity.
    private mutating func addTable(store: String, entityName: String) -> Int {
        let number = tables.count
        let key = TableKey(storeIdentifier: store, entityName: entityName)
        tables.append(Table())
        tableKeys.append(key)
        tableNumbers[key] = number
        lastTable = number
        return number
    }

    /// Registers a permanent ID's object, with `key`, in table `number` (its store's and entity's); `id` is the
    /// object's ID when the caller has it (else the object's is read if the dictionary needs it).
    private mutating func register(_ object: ManagedObject, for id: ManagedObjectID?, key: Int64, inTable number: Int) {
        let allowed = max(Self.smallTable, 2 * max(count, expected) + 2)
        // An empty table starts at the first key it is given: a fetch of keys far from 1 (a range by an indexed
        // attribute, objects deep in a large table) fills slots from there instead of the dictionary.
        if tables[number].count == 0, tables[number].overflow == 0, tables[number].base != key {
            tables[number].base = key
            tables[number].slots = []
        }
        Self.register(
            object, for: id, key: key, in: &tables[number], allowed: allowed, others: &others, &inTables,
            byNumber: false)
    }

    /// Puts `object` in its slot of `table` (growing it, while it has at most `allowed` slots), else in `others`.
    /// A table `byNumber` (the temporary IDs') keys its slots by number alone: a slot holding another ID's object
    /// leaves this one to the dictionary. A table of one store and entity keys them by the ID's whole identity. `id`
    /// is the object's ID, when the caller has it; the object's own is read where the dictionary needs one.
    private static func register(
        _ object: ManagedObject, for id: ManagedObjectID?, key: Int64, in table: inout Table, allowed: Int,
        others: inout [ManagedObjectID: ManagedObject], _ inTables: inout Int, byNumber: Bool
    ) {
        // A key below the table's first grows it downward: by as many slots as it has when that stays within
        // `allowed` (so that a run of keys in descending order moves the slots a few times, not once per key),
        // else by what the key needs.
        if key < table.base, key >= 0, table.count > 0 || table.overflow > 0 {
            let needed = table.base - key
            let room = Int64(allowed) - Int64(table.slots.count)
            let added = max(needed, min(max(16, Int64(table.slots.count)), table.base))
            let grown = added <= room ? added : needed
            if grown <= room {
                table.slots.insert(contentsOf: repeatElement(nil, count: Int(grown)), at: 0)
                table.base -= grown
            }
        }
        let (index, overflowed) = key.subtractingReportingOverflow(table.base)
        guard !overflowed, index >= 0, index < Int64(allowed) else {
            if others.updateValue(object, forKey: id ?? object.objectID) == nil { table.sentElsewhere(key) }
            return
        }
        let slot = Int(index)
        if slot >= table.slots.count {
            let grown = max(slot + 1, 2 * table.slots.count, 16)
            table.slots.reserveCapacity(grown)
            table.slots.append(contentsOf: repeatElement(nil, count: grown - table.slots.count))
        }
        if let existing = table.slots[slot] {
            // Another ID with the same temporary number (a made-up one) takes the dictionary.
            guard !byNumber || existing.objectID == (id ?? object.objectID) else {
                if others.updateValue(object, forKey: id ?? object.objectID) == nil { table.sentElsewhere(key) }
                return
            }
        } else {
            // Registered before the table reached this key, the ID may be in the dictionary.
            if table.mayBeElsewhere(key), others.removeValue(forKey: id ?? object.objectID) != nil {
                table.overflow -= 1
            }
            table.count += 1
            inTables += 1
        }
        table.slots[slot] = object
    }

    /// Takes `id`'s object out of `table` or `others` (see ``register(_:for:key:in:allowed:others:_:byNumber:)``).
    private static func remove(
        _ id: ManagedObjectID, key: Int64, from table: inout Table, others: inout [ManagedObjectID: ManagedObject],
        _ inTables: inout Int, byNumber: Bool
    ) -> ManagedObject? {
        if let slot = table.slot(of: key), let object = table.slots[slot], !byNumber || object.objectID == id {
            table.slots[slot] = nil
            table.count -= 1
            inTables -= 1
            return object
        }
        guard table.mayBeElsewhere(key), let object = others.removeValue(forKey: id) else { return nil }
        table.overflow -= 1
        return object
    }
}
