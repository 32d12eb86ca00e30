/// How a copy of an incremental store into an atomic store numbers and orders the objects, worked out from their keys
/// alone (eight bytes an object) before any row is read, so the copy can then read and write a batch at a time.
///
/// Keys are renumbered exactly as ``PersistentStoreCoordinator/renumbered(_:startingAfter:)`` does for a store with
/// one counter (the XML store): when a key repeats across hierarchies or is not above the store's floor, objects are
/// numbered after the floor in order of entity name, then of key (the order they are then written in); an object's new key is then found by a binary
/// search in its entity's keys, not in a table of every object. Otherwise keys are kept and objects go in key order, or
/// entity by entity for a store that writes them so (the binary store).
struct CopyOrder {
    /// The store's entities, sorted by name.
    private let names: [String]
    /// Each entity's keys, ascending.
    private let keys: [[Int64]]
    /// The position of each entity in `names`.
    private let index: [String: Int]
    /// Renumbered: the new key before each entity's first object.
    private let bases: [Int64]?
    /// Where each entity's run starts in the copy, when objects go entity by entity.
    private let starts: [Int]
    /// Keys kept and objects in key order: every object's key and entity, in key order (else empty).
    private let merged: [(key: Int64, entity: Int32)]
    /// The store's UUID.
    private let identifier: String
    /// Whether the copy's store names a destination by its key alone (one counter for the whole store).
    private let keyAlone: Bool
    /// How many objects the copy holds.
    let count: Int
    /// How many objects of each entity the copy holds.
    var counts: [String: Int] { Dictionary(uniqueKeysWithValues: zip(names, keys.map(\.count))) }
    /// The highest key in the copy.
    let highestKey: Int64

    /// Reads every entity's keys from `store`.
    /// - Parameters:
    ///   - scope: how the copy's store numbers keys.
    ///   - order: the order the copy's store takes objects in (renumbered objects always go entity by entity,
    ///     which is their key order).
    /// - Throws: ``StoreError`` when the keys cannot be read, or there are more keys than the copy can number.
    init(of entry: StoreEntry, in store: any IncrementalStore, scope: PrimaryKeyScope, order: AtomicStreamOrder)
        throws(StoreError)
    {
        names = entry.entityNames.sorted()
        var keys: [[Int64]] = []
        keys.reserveCapacity(names.count)
        for name in names { keys.append(try store.primaryKeys(ofEntity: name)) }
        self.keys = keys
        index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        identifier = store.identifier
        if case .store = scope { keyAlone = true } else { keyAlone = false }
        count = keys.reduce(0) { $0 + $1.count }
        var starts: [Int] = []
        var before = 0
        for entityKeys in keys {
            starts.append(before)
            before += entityKeys.count
        }
        self.starts = starts
        var all: [(key: Int64, entity: Int32)] = []
        all.reserveCapacity(count)
        for (entity, entityKeys) in keys.enumerated() {
            for key in entityKeys { all.append((key, Int32(truncatingIfNeeded: entity))) }
        }
        all.sort { ($0.key, $0.entity) < ($1.key, $1.entity) }
        let repeats = zip(all, all.dropFirst()).contains { $0.key == $1.key }
        if case .store(let floor) = scope, repeats || (all.first.map { $0.key <= floor } ?? false) {
            guard floor <= Int64.max - Int64(count) else {
                throw StoreError(.corrupt, "the store's \(count) objects cannot be numbered after key \(floor)")
            }
            bases = starts.map { floor + Int64($0) }
            merged = []
            highestKey = floor + Int64(count)
        } else {
            bases = nil
            highestKey = all.last?.key ?? 0
            merged = order == .byKey ? all : []
        }
    }

    /// The IDs of the objects at `position` in the copy's order, at most `limit` of them (fewer at the end of an
    /// entity's run when objects go entity by entity).
    func objectIDs(from position: Int, upTo limit: Int) -> [ManagedObjectID] {
        guard position < count else { return [] }
        if merged.isEmpty {
            // The last entity whose run starts at or before `position` (runs of entities without objects are empty).
            var low = 0
            var high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= position { low = middle } else { high = middle - 1 }
            }
            var entity = low
            while position - starts[entity] >= keys[entity].count { entity += 1 }
            let first = position - starts[entity]
            let last = min(keys[entity].count, first + limit)
            return keys[entity][first..<last].map {
                ManagedObjectID(entityName: names[entity], storeIdentifier: identifier, primaryKey: $0)
            }
        }
        return merged[position..<min(count, position + limit)].map {
            ManagedObjectID(entityName: names[Int($0.entity)], storeIdentifier: identifier, primaryKey: $0.key)
        }
    }

    /// The key an object has in the copy: its own when keys are kept.
    ///
    /// A reference to an object not in the store (a relationship without an inverse whose destination was deleted)
    /// gets a key no object of the copy has and no other such reference gets (``MissingKeys``).
    /// - Throws: ``StoreError`` when no such key is left for it.
    func newKey(_ id: ManagedObjectID) throws(StoreError) -> Int64 {
        if let entity = index[id.entityName], let place = Self.place(of: id.primaryKey, in: keys[entity]) {
            guard let bases else { return id.primaryKey }
            return bases[entity] + 1 + Int64(place)
        }
        guard keyAlone else { return id.primaryKey }
        return try missingKeys.key(of: id)
    }

    /// Whether the copy holds the object `id`.
    func holds(_ id: ManagedObjectID) -> Bool {
        guard let entity = index[id.entityName] else { return false }
        return Self.place(of: id.primaryKey, in: keys[entity]) != nil
    }

    /// Keys for references to objects not in the copy.
    private var missingKeys: MissingKeys {
        if let bases { return MissingKeys(renumberedAfter: bases.first ?? 0, count: Int64(count)) }
        return MissingKeys(lowest: keys.compactMap(\.first).min(), highest: highestKey) { key in
            keys.contains { Self.place(of: key, in: $0) != nil }
        }
    }

    /// Where `key` is in ascending `keys`, if it is there.
    private static func place(of key: Int64, in keys: [Int64]) -> Int? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }
}

/// The keys a copy into a store that names a destination by its key alone (the XML store) gives references to objects
/// not in the store (a relationship without an inverse whose destination was deleted), so that each goes on naming
/// nothing and two such references stay two.
///
/// Such a reference keeps its key where that cannot be mistaken for another: below the renumbered objects, or below
/// the highest kept key and no object's. Otherwise it moves above every object: renumbered, by the number of objects;
/// kept, to an even distance above the highest key for a key above it, and to an odd one for a key an object of
/// another hierarchy has — so no two references get one key.
struct MissingKeys {
    /// The key after which the objects were renumbered, if they were.
    private let floor: Int64?
    /// How many objects the copy holds (renumbered).
    private let count: Int64
    /// The lowest and highest key among the objects (kept keys), `nil` without objects.
    private let lowest: Int64?
    private let highest: Int64
    /// Whether an object has a key (kept keys).
    private let taken: (Int64) -> Bool

    /// Keys for a copy whose objects were numbered `floor + 1 ... floor + count`.
    init(renumberedAfter floor: Int64, count: Int64) {
        self.floor = floor
        self.count = count
        lowest = nil
        highest = floor + count
        taken = { _ in false }
    }

    /// Keys for a copy whose objects kept their keys.
    init(lowest: Int64?, highest: Int64, taken: @escaping (Int64) -> Bool) {
        floor = nil
        count = 0
        self.lowest = lowest
        self.highest = highest
        self.taken = taken
    }

    /// The key a reference to `id`, an object not in the copy, is written with.
    /// - Throws: ``StoreError`` when its key is too high for one to be left.
    func key(of id: ManagedObjectID) throws(StoreError) -> Int64 {
        let key = id.primaryKey
        let moved: Int64?
        if let floor {
            moved = key <= floor ? key : Self.sum(key, count)
        } else if let lowest {
            if key > highest {
                moved = Self.above(highest, by: key, minus: highest, odd: false)
            } else if taken(key) {
                moved = Self.above(highest, by: key, minus: lowest, odd: true)
            } else {
                moved = key
            }
        } else {
            moved = key
        }
        guard let moved else {
            throw StoreError(
                .unsupported, "a reference to \(id), which is not in the store, has no key left in the copy")
        }
        return moved
    }

    /// `a + b`, or `nil` when it overflows.
    private static func sum(_ a: Int64, _ b: Int64) -> Int64? {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : result
    }

    /// `base + 2 × (key − start)`, plus one if `odd`, or `nil` when it overflows.
    private static func above(_ base: Int64, by key: Int64, minus start: Int64, odd: Bool) -> Int64? {
        let (distance, o1) = key.subtractingReportingOverflow(start)
        let (twice, o2) = distance.multipliedReportingOverflow(by: 2)
        guard !o1, !o2, let moved = sum(base, twice) else { return nil }
        return odd ? sum(moved, 1) : moved
    }
}
