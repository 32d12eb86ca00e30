/// Rows read from incremental stores, by store, entity and key: looked up for a row a store hands over by key (see
/// ``ObjectSnapshot/Identity``) without making its ID, and for an ID without making anything.
struct RowCache {
    /// A row's place: its store, its entity and its key (a permanent ID's parts; a temporary ID has no row).
    struct Key: Hashable {
        let key: Int64
        let entityName: String
        let storeIdentifier: String

        init?(_ id: ManagedObjectID) {
            guard !id.isTemporary else { return nil }
            key = id.primaryKey
            entityName = id.entityName
            storeIdentifier = id.storeIdentifier ?? ""
        }

        init(_ prefix: ObjectIDPrefix, _ key: Int64) {
            self.key = key
            entityName = prefix.entityName
            storeIdentifier = prefix.storeIdentifier
        }

        init?(_ identity: ObjectSnapshot.Identity) {
            if let (prefix, key) = identity.keyed {
                self.init(prefix, key)
            } else {
                self.init(identity.objectID)
            }
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.key == rhs.key && lhs.entityName == rhs.entityName && lhs.storeIdentifier == rhs.storeIdentifier
        }

        /// The key alone, as a ``ManagedObjectID`` hashes: keys rarely repeat across entities and stores.
        func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// The rows, in a reference shared by copies of the cache until one of them changes (copy on write): a lookup
    /// indexes the rows added since the last one in place, which every copy sees alike.
    private var storage = Storage()

    /// Whether no row is cached.
    var isEmpty: Bool { storage.rows.isEmpty && storage.pending.isEmpty }
    /// How many rows are cached.
    var count: Int {
        storage.catchUp()
        return storage.rows.count
    }

    /// The row of a permanent ID (a temporary ID has none).
    subscript(id: ManagedObjectID) -> ObjectSnapshot? {
        get {
            guard let key = Key(id) else { return nil }
            storage.catchUp()
            return storage.rows[key]
        }
        set {
            guard let key = Key(id) else { return }
            makeUnique()
            storage.catchUp()
            storage.rows[key] = newValue
        }
    }

    /// The row of the object a snapshot is of, however the snapshot knows it.
    subscript(identity: ObjectSnapshot.Identity) -> ObjectSnapshot? {
        guard let key = Key(identity) else { return nil }
        storage.catchUp()
        return storage.rows[key]
    }

    /// Makes room for `count` more rows at once.
    mutating func reserveCapacity(_ count: Int) {
        makeUnique()
        storage.catchUp()
        storage.rows.reserveCapacity(count)
    }

    /// Keeps `snapshot` as its object's row.
    mutating func insert(_ snapshot: consuming ObjectSnapshot) {
        guard let key = Key(snapshot.identity) else { return }
        makeUnique()
        storage.catchUp()
        // Moved in (not copied and the original destroyed).
        storage.rows.updateValue(consume snapshot, forKey: key)
    }

    /// Keeps each of `snapshots` as its object's row (a later one of the same object replacing an earlier one), moving
    /// them out of the list (left empty). They are put in the table by key when a lookup first needs them: the rows of
    /// a fetch nothing asks for again cost no hashing.
    mutating func insert(moving snapshots: inout [ObjectSnapshot]) {
        makeUnique()
        if storage.pending.isEmpty {
            swap(&storage.pending, &snapshots)
        } else {
            storage.pending.append(contentsOf: snapshots)
            snapshots = []
        }
    }

    /// Forgets every row of a store.
    mutating func removeRows(ofStore identifier: String) {
        makeUnique()
        storage.catchUp()
        storage.rows = storage.rows.filter { $0.key.storeIdentifier != identifier }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The rows by key, and those added in bulk and not yet looked up.
    /// `@unchecked Sendable`: a cache lives in the coordinator's mutex (or in one caller's local variable) and is only
    /// used there; a lookup changes the representation, never the rows.
    /// (Its two properties are read for every row a fetch hands over and never accessed overlapping: no access
    /// records.)
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var rows: [Key: ObjectSnapshot] = [:]
        /// Rows added by ``RowCache/insert(moving:)`` since the last lookup, in the order they came.
        @exclusivity(unchecked) var pending: [ObjectSnapshot] = []

        /// Puts the pending rows in the table, in order (a later row of an object replaces an earlier one).
        @inline(__always) func catchUp() {
            if !pending.isEmpty { index() }
        }

        @inline(never) private func index() {
            let added = pending
            pending = []
            rows.reserveCapacity(rows.count + added.count)
            for snapshot in added {
                guard let key = Key(snapshot.identity) else { continue }
                rows.updateValue(snapshot, forKey: key)
            }
        }

        func copy() -> Storage {
            let copy = Storage()
            copy.rows = rows
            copy.pending = pending
            return copy
        }
    }
}
