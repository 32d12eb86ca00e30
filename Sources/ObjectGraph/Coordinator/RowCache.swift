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

    private var rows: [Key: ObjectSnapshot] = [:]

    /// Whether no row is cached.
    var isEmpty: Bool { rows.isEmpty }
    /// How many rows are cached.
    var count: Int { rows.count }

    /// The row of a permanent ID (a temporary ID has none).
    subscript(id: ManagedObjectID) -> ObjectSnapshot? {
        get { Key(id).flatMap { rows[$0] } }
        set {
            guard let key = Key(id) else { return }
            rows[key] = newValue
        }
    }

    /// The row of the object a snapshot is of, however the snapshot knows it.
    subscript(identity: ObjectSnapshot.Identity) -> ObjectSnapshot? {
        Key(identity).flatMap { rows[$0] }
    }

    /// Makes room for `count` more rows at once.
    mutating func reserveCapacity(_ count: Int) { rows.reserveCapacity(count) }

    /// Keeps `snapshot` as its object's row.
    mutating func insert(_ snapshot: consuming ObjectSnapshot) {
        guard let key = Key(snapshot.identity) else { return }
        // Moved in (not copied and the original destroyed).
        rows.updateValue(consume snapshot, forKey: key)
    }

    /// Forgets every row of a store.
    mutating func removeRows(ofStore identifier: String) {
        rows = rows.filter { $0.key.storeIdentifier != identifier }
    }
}
