/// A context's registered objects by ID (uniquing): at most one object per ID.
///
/// Stores hand out primary keys densely (SQLite's `Z_PK` counts up from 1 per entity), and a fetch registers its
/// objects in key order, so a permanent ID's object lives in an array per store and entity, at its key: a lookup is
/// one comparison of names (the last table used is tried first) and one index, and registering many objects in key
/// order touches memory in order (a hash table touches it at random, which cost a large fetch more than reading its
/// rows). Temporary IDs, and keys far beyond the ones a table holds (a table never grows to more than about four
/// slots per object registered), go to a dictionary. Each ID is in one place at a time.
struct ObjectRegistry {
    /// The objects of one entity of one store, at their keys.
    private struct Table {
        let storeIdentifier: String
        let entityName: String
        /// `slots[key]` holds the object whose primary key is `key`.
        var slots: ContiguousArray<ManagedObject?> = []
        /// How many slots hold an object.
        var count = 0
        /// How many of this table's IDs are in the dictionary instead (keys beyond `slots`).
        var overflow = 0
    }

    /// What a table is found by.
    private struct TableKey: Hashable {
        let storeIdentifier: String
        let entityName: String
    }

    private var tables: [Table] = []
    private var tableNumbers: [TableKey: Int] = [:]
    /// The table used last: runs of lookups are of one entity.
    private var lastTable = 0
    /// Temporary IDs, and permanent ones whose key does not fit their table.
    private var others: [ManagedObjectID: ManagedObject] = [:]
    /// How many objects the tables hold.
    private var inTables = 0
    /// How many objects are about to be registered (see ``reserve(_:)``): a table may grow to hold them.
    private var expected = 0

    /// A table never grows beyond this many slots unless it holds about a quarter as many objects.
    private static let smallTable = 1024

    /// How many objects are registered.
    var count: Int { inTables + others.count }

    /// Whether no object is registered.
    var isEmpty: Bool { count == 0 }

    /// Makes room for `count` more objects registered at once (a fetch's results).
    mutating func reserve(_ count: Int) {
        expected = self.count + count
        if others.capacity < others.count + count / 8 { others.reserveCapacity(others.count + count / 8) }
    }

    /// The object registered for `id`; setting `nil` removes it.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        mutating get {
            guard let number = tableNumber(of: id) else { return others[id] }
            let key = id.primaryKey
            if key >= 0, key < tables[number].slots.count, let object = tables[number].slots[Int(key)] {
                return object
            }
            return tables[number].overflow > 0 ? others[id] : nil
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
        guard let number = tableNumber(of: id) else { return others.removeValue(forKey: id) }
        let key = id.primaryKey
        if key >= 0, key < tables[number].slots.count, let object = tables[number].slots[Int(key)] {
            tables[number].slots[Int(key)] = nil
            tables[number].count -= 1
            inTables -= 1
            return object
        }
        guard tables[number].overflow > 0, let object = others.removeValue(forKey: id) else { return nil }
        tables[number].overflow -= 1
        return object
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
        if lastTable < tables.count, tables[lastTable].entityName == id.entityName,
            tables[lastTable].storeIdentifier == store
        {
            return lastTable
        }
        guard let number = tableNumbers[TableKey(storeIdentifier: store, entityName: id.entityName)] else {
            return nil
        }
        lastTable = number
        return number
    }

    private mutating func register(_ object: ManagedObject, for id: ManagedObjectID) {
        guard let store = id.storeIdentifier else {
            others[id] = object
            return
        }
        let number: Int
        if let found = tableNumber(of: id) {
            number = found
        } else {
            number = tables.count
            tables.append(Table(storeIdentifier: store, entityName: id.entityName))
            tableNumbers[TableKey(storeIdentifier: store, entityName: id.entityName)] = number
            lastTable = number
        }
        let key = id.primaryKey
        guard key >= 0, fits(key, in: number) else {
            if others.updateValue(object, forKey: id) == nil { tables[number].overflow += 1 }
            return
        }
        let slot = Int(key)
        if tables[number].slots[slot] == nil {
            // Registered before the table reached this key, the ID may be in the dictionary.
            if tables[number].overflow > 0, others.removeValue(forKey: id) != nil { tables[number].overflow -= 1 }
            tables[number].count += 1
            inTables += 1
        }
        tables[number].slots[slot] = object
    }

    /// Whether `key` has a slot in the table, growing it when that keeps it dense enough.
    private mutating func fits(_ key: Int64, in number: Int) -> Bool {
        let size = tables[number].slots.count
        if key < size { return true }
        // At most about twice the objects registered (or about to be), and never more than 2^31 slots.
        let allowed = max(Self.smallTable, 2 * max(count, expected) + 2)
        guard key < allowed, key < Int64(Int32.max) else { return false }
        let grown = max(Int(key) + 1, 2 * size, 16)
        tables[number].slots.reserveCapacity(grown)
        tables[number].slots.append(contentsOf: repeatElement(nil, count: grown - size))
        return true
    }
}
