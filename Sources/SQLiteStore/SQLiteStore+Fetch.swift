import CSQLite
import Foundation
public import ObjectGraph

extension SQLiteStore {
    /// The IDs of the objects a fetch request selects, in its order, by SQL.
    /// - Parameters:
    ///   - request: The fetch request.
    ///   - entityNames: The entity and the sub-entities to include.
    /// - Returns: Matching object IDs.
    /// - Throws: `StoreError` when the SQL fails.
    public func objectIDs(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ManagedObjectID] {
        let selected = try selectedKeys(for: request, entityNames: entityNames)
        if selected.isWhole { return selected.keys.objectIDs }
        return try matchingInMemory(request, selected.keys.objectIDs, complete: selected.isComplete)
    }

    /// The objects a fetch request selects, in its order, as keys: read from the statement's rows without an ID made
    /// for each, unless the predicate or order is left to be applied in memory.
    /// - Parameters:
    ///   - request: The fetch request.
    ///   - entityNames: The entity and the sub-entities to include.
    /// - Returns: The matching objects' keys and entities.
    /// - Throws: `StoreError` when the SQL fails.
    public func objectKeys(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> ObjectKeys? {
        let selected = try selectedKeys(for: request, entityNames: entityNames)
        if selected.isWhole { return selected.keys }
        var matched = ObjectKeys(storeIdentifier: identifier)
        for id in try matchingInMemory(request, selected.keys.objectIDs, complete: selected.isComplete) {
            matched.append(id.primaryKey, entityName: id.entityName)
        }
        return matched
    }

    /// The keys of the rows the statement for a request selects, in its order; whether SQL expressed the whole
    /// predicate (complete) and the order too (whole: the keys are the answer).
    private func selectedKeys(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> (
        keys: ObjectKeys, isComplete: Bool, isWhole: Bool
    ) {
        var keys = ObjectKeys(storeIdentifier: identifier)
        guard let selection = selection(for: request, entityNames: entityNames, columns: "t0.Z_PK, t0.Z_ENT") else {
            return (keys, true, true)
        }
        let (sql, bindings, table, complete, sortedInSQL, _, _) = selection
        let whole = complete && (sortedInSQL || request.sortDescriptors.isEmpty)
        // Rows come in runs of one entity: its name is looked up when the number changes.
        var lastNumber: Int64? = nil
        var lastName = ""
        do {
            try database.query(Self.limited(sql, request, wholly: whole), bindings) {
                (statement) throws(SQLiteStoreError) in
                let key = Self.integer(statement, 0) ?? 0
                guard key > 0 else { throw badKey(statement, 0, table: table) }
                let number = Self.integer(statement, 1)
                if number == nil || number != lastNumber {
                    guard let number, let name = schema.entityName(number: number) else {
                        throw badEntity(statement, 1, key: key, table: table)
                    }
                    lastName = name
                    lastNumber = number
                }
                keys.append(key, entityName: lastName)
            }
        } catch {
            throw storeError(error)
        }
        return (keys, complete, whole)
    }

    /// The stored state of the objects a fetch request selects, in its order: read by the one statement that selects
    /// them when SQL expresses the whole predicate and order, else through their IDs.
    /// - Parameters:
    ///   - request: The fetch request.
    ///   - entityNames: The entity and the sub-entities to include.
    /// - Returns: The matching objects' snapshots.
    /// - Throws: `StoreError` when the SQL fails or a row cannot be read.
    public func snapshots(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ObjectSnapshot] {
        var result: [ObjectSnapshot] = []
        // Kept in a list, each is known by its ID (made once, as the row is read).
        try snapshots(
            for: request, entityNames: entityNames, identifiedByKey: false, expecting: { result.reserveCapacity($0) }
        ) {
            result.append($0)
            return true
        }
        return result
    }

    /// The stored state of the objects a fetch request selects, in its order, handed to `body` as each row is read
    /// (when SQL expresses the whole predicate and order; otherwise read through their IDs first).
    /// - Parameters:
    ///   - request: The fetch request.
    ///   - entityNames: The entity and the sub-entities to include.
    ///   - expecting: Told how many rows there will be, when that is cheap to know: for a request without a
    ///     predicate, a `count(*)` of the table (or of its rows of these entities), counting no further than the
    ///     request's limit.
    ///   - body: Called with each matching object's snapshot; returns whether it keeps it (when it does not, the next
    ///     row is read into the same arrays). A snapshot read by the one statement knows its object by key: its
    ///     `ObjectSnapshot.objectID` is made when asked for.
    /// - Throws: `StoreError` when the SQL fails or a row cannot be read.
    public func snapshots(
        for request: FetchRequest, entityNames: [String], expecting: (Int) -> Void,
        each body: (consuming ObjectSnapshot) -> Bool
    ) throws(StoreError) {
        try snapshots(for: request, entityNames: entityNames, identifiedByKey: true, expecting: expecting, each: body)
    }

    /// ``snapshots(for:entityNames:expecting:each:)``, the rows read by one statement known by key or by ID.
    private func snapshots(
        for request: FetchRequest, entityNames: [String], identifiedByKey: Bool, expecting: (Int) -> Void,
        each body: (consuming ObjectSnapshot) -> Bool
    ) throws(StoreError) {
        guard let selection = selection(for: request, entityNames: entityNames, columns: "t0.*") else { return }
        let (sql, bindings, table, complete, sortedInSQL, _, _) = selection
        guard complete && (sortedInSQL || request.sortDescriptors.isEmpty) else {
            let snapshots = try snapshots(for: objectIDs(for: request, entityNames: entityNames))
            expecting(snapshots.count)
            for snapshot in snapshots { _ = body(snapshot) }
            return
        }
        do {
            if request.predicate == nil, let count = try rowCount(of: entityNames, limit: request.storeLimit) {
                expecting(count)
            }
            if let byKey = selection.byKey {
                guard request.storeLimit > 0 else {
                    try readRowsSortingKeys(
                        selection.unordered, bindings, table: table, identifiedByKey: identifiedByKey,
                        expecting: expecting, body)
                    return
                }
                try readRows(
                    Self.limited(try keyOrdered(sql, byKey: byKey), request, wholly: true), bindings, table: table,
                    identifiedByKey: identifiedByKey, body)
                return
            }
            try readRows(
                Self.limited(sql, request, wholly: true), bindings, table: table,
                identifiedByKey: identifiedByKey, body)
        } catch {
            throw storeError(error)
        }
    }

    /// How many rows the table of `entityNames` holds of them (all its rows, counted from the b-tree alone, when
    /// they are every entity the table stores), counting no further than `limit` when it is positive (a fetch of the
    /// first few rows of a large table does not count the whole table).
    private func rowCount(of entityNames: [String], limit: Int) throws(SQLiteStoreError) -> Int? {
        guard let entity = entityNames.first, let (kinds, wholeTable) = share(of: entityNames) else { return nil }
        var rows = "FROM \(schema.table(of: entity))"
        if !wholeTable { rows += " WHERE Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))" }
        let sql = limit > 0 ? "SELECT count(*) FROM (SELECT 1 \(rows) LIMIT \(limit))" : "SELECT count(*) \(rows)"
        var count: Int? = nil
        try database.query(sql) { (statement) throws(SQLiteStoreError) in
            count = Int(sqlite3_column_int64(statement, 0))
        }
        return count
    }

    /// The entity numbers of `entityNames` (the first one's table holds them all), and whether they are every
    /// entity that table stores; `nil` for an entity the store lacks.
    private func share(of entityNames: [String]) -> (kinds: [Int64], wholeTable: Bool)? {
        guard let entity = entityNames.first, let root = schema.entities[entity]?.root else { return nil }
        let kinds = schema.numbers(of: entityNames)
        return (kinds, schema.entities.values.allSatisfy { $0.root != root || kinds.contains($0.number) })
    }

    /// The statement to read a selection's rows with: its `sql` (whole rows in key order), or `byKey` (the same rows
    /// in the same order, their keys found first and the rows then read by key) when SQLite's plan would sort the rows
    /// of `sql` and not those of `byKey`. A predicate answered from an index finds its rows in the index's order, and
    /// sorting them by key copies every column of every row into a sorter (measured: half of the statement's work for
    /// 1,000 rows of 100,000 found by an indexed range); the keys alone come from the index. Chosen once per text from
    /// `EXPLAIN QUERY PLAN`.
    func keyOrdered(_ sql: String, byKey: String) throws(SQLiteStoreError) -> String {
        if let known = keyOrderedReads[sql] { return known }
        var chosen = sql
        if try database.sortsInTemporaryTree(sql), try !database.sortsInTemporaryTree(byKey) { chosen = byKey }
        if keyOrderedReads.count >= 256 { keyOrderedReads.removeAll() }
        keyOrderedReads[sql] = chosen
        return chosen
    }

    /// Reads the rows of `sql` (a selection of whole rows without an order) in the order SQLite finds them and hands
    /// them to `body` in key order: for a predicate answered from an index, SQLite finds the rows in the index's order,
    /// and sorting their keys here costs less than either statement ``keyOrdered(_:byKey:)`` chooses from (SQLite
    /// sorting whole rows, or finding the keys first and reading the rows by key: measured, a fifth of a fetch of 1,000
    /// rows of 100,000 found by an indexed range) and needs no query plan. Every row is kept until all are read: only
    /// for a fetch that keeps them all (no limit).
    func readRowsSortingKeys(
        _ sql: String, _ bindings: [SQLiteValue], table: String, identifiedByKey: Bool, expecting: (Int) -> Void,
        _ body: (consuming ObjectSnapshot) -> Bool
    ) throws(SQLiteStoreError) {
        // (Optionals, so that each is moved out to `body`, not copied and released again.)
        var rows: [ObjectSnapshot?] = []
        var keys: [Int64] = []
        var inOrder = true
        try readRows(sql, bindings, table: table, identifiedByKey: identifiedByKey) {
            (snapshot: consuming ObjectSnapshot) in
            let key = snapshot.identity.primaryKey
            if let last = keys.last, key < last { inOrder = false }
            keys.append(key)
            // Moved in: the row is handed over, not copied and then released by the reader.
            rows.append(consume snapshot)
            return true
        }
        expecting(rows.count)
        let order = inOrder ? Array(keys.indices) : keys.indices.sorted { keys[$0] < keys[$1] }
        for i in order {
            if let row = rows[i].take() { _ = body(row) }
        }
    }

    /// A selection's SQL with the rows a context needs (``FetchRequest/storeLimit``) as its `LIMIT`, when SQL selects
    /// and orders `wholly`; otherwise as it is (the matches are then found or ordered in memory, from every row).
    static func limited(_ sql: String, _ request: FetchRequest, wholly: Bool) -> String {
        guard wholly, request.storeLimit > 0 else { return sql }
        return sql + " LIMIT \(request.storeLimit)"
    }

    /// The statement selecting a request's rows (`columns` of them) in its order, as far as SQL expresses it: the
    /// SQL, its bindings, the root table, whether the predicate is wholly in SQL and whether the order is; and, for
    /// whole rows (`t0.*`) selected by a predicate in key order, the same selection with the keys found first and
    /// the rows then read by key (see ``keyOrdered(_:byKey:)``; the same bindings); and the selection without its
    /// `ORDER BY` (``readRowsSortingKeys(_:_:table:identifiedByKey:expecting:_:)`` orders its rows itself).
    func selection(for request: FetchRequest, entityNames: [String], columns: String) -> (
        sql: String, bindings: [SQLiteValue], table: String, complete: Bool, sortedInSQL: Bool, byKey: String?,
        unordered: String
    )? {
        guard let entity = entityNames.first, let (kinds, wholeTable) = share(of: entityNames) else { return nil }
        let table = schema.table(of: entity)
        var translator = SQLTranslator(schema: schema)
        // When the request covers every entity stored in the table, the Z_ENT index would only add a lookup per row
        // to a scan of the whole table: `+` keeps SQLite's planner from choosing it (rows of an entity the model
        // lacks are still left out), and the check comes after the predicate's, which SQLite tests first (in a
        // selective fetch most rows are then never checked: a tenth of a query's scan).
        let kindsTerm =
            "\(wholeTable ? "+" : "")t0.Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))"
        var sql = "SELECT \(columns) FROM \(table) t0 WHERE "
        var complete = true
        var byKey: String? = nil
        if let predicate = request.predicate {
            let (condition, whole) = translator.narrowing(predicate, entity: request.entityName, alias: "t0")
            if let condition {
                sql += wholeTable ? "(\(condition)) AND \(kindsTerm)" : "\(kindsTerm) AND (\(condition))"
                if columns == "t0.*" && request.sortDescriptors.isEmpty {
                    // The keys from the condition alone (from an index that has it, without reading the rows), the
                    // entity numbers checked on the rows read; a share of a table narrowed by both.
                    byKey =
                        wholeTable
                        ? "SELECT t0.* FROM \(table) t0 WHERE t0.Z_PK IN (SELECT t0.Z_PK FROM \(table) t0 WHERE \(condition)) AND \(kindsTerm) ORDER BY t0.Z_PK"
                        : "SELECT t0.* FROM \(table) t0 WHERE t0.Z_PK IN (SELECT t0.Z_PK FROM \(table) t0 WHERE \(kindsTerm) AND (\(condition))) ORDER BY t0.Z_PK"
                }
            } else {
                sql += kindsTerm
            }
            complete = whole
        } else {
            sql += kindsTerm
        }
        let unordered = sql
        var order: [String] = []
        var sortedInSQL = true
        for descriptor in request.sortDescriptors {
            let path = descriptor.keyPath.split(separator: ".").map(String.init)
            guard let value = translator.keyPath(path[...], entity: request.entityName, alias: "t0") else {
                sortedInSQL = false
                break
            }
            var term = value.sql
            if case .attribute(.string) = value.kind {
                switch descriptor.comparison {
                case .compare: break
                case .caseInsensitive: term += " COLLATE DOCUTIL_CI"
                case .localizedStandard: term += " COLLATE DOCUTIL_LS"
                }
            }
            order.append(term + (descriptor.ascending ? " ASC" : " DESC"))
        }
        if sortedInSQL && !order.isEmpty {
            sql += " ORDER BY " + order.joined(separator: ", ") + ", t0.Z_PK"
        } else {
            sql += " ORDER BY t0.Z_PK"
        }
        return (sql, translator.bindings, table, complete, sortedInSQL, byKey, unordered)
    }

    /// The IDs among `ids` (rows SQL narrowed down) that match the whole request, in its order: what SQL could not
    /// express, evaluated in memory.
    /// `complete` says SQL expressed the whole predicate (only the order is left).
    private func matchingInMemory(_ request: FetchRequest, _ ids: [ManagedObjectID], complete: Bool)
        throws(StoreError) -> [ManagedObjectID]
    {
        let resolver = RowResolver(store: self)
        var candidates: [PredicateValue] = []
        for snapshot in try snapshots(for: ids) { candidates.append(.object(RowView(snapshot, resolver: resolver))) }
        var remaining = request
        remaining.fetchLimit = 0
        remaining.fetchOffset = 0
        remaining.resultType = .managedObject
        if complete { remaining.predicate = nil }
        let result: FetchResult
        do {
            result = try InMemoryFetch.execute(remaining, over: candidates)
        } catch {
            if let failure = resolver.failure { throw failure }
            var failure = StoreError(.corrupt, path: description.url?.path, error.message)
            failure.predicateError = error
            throw failure
        }
        guard case .objects(let matched) = result else { return [] }
        return matched.compactMap {
            if case .object(let view as RowView) = $0 { return view.snapshot.objectID }; return nil
        }
    }

    /// The keys of every row of exactly one entity, ascending, read from the table's `Z_ENT` index alone.
    /// - Parameter entityName: the entity (its sub-entities are left out).
    /// - Returns: the keys, ascending; none for an entity the store has no table for.
    /// - Throws: `StoreError` when the rows cannot be read.
    public func primaryKeys(ofEntity entityName: String) throws(StoreError) -> [Int64] {
        guard let info = schema.entities[entityName] else { return [] }
        var keys: [Int64] = []
        do {
            try database.query(
                "SELECT Z_PK FROM \(schema.table(of: entityName)) WHERE Z_ENT = ? ORDER BY Z_PK",
                [.integer(info.number)]
            ) { (statement) throws(SQLiteStoreError) in
                keys.append(sqlite3_column_int64(statement, 0))
            }
        } catch {
            throw storeError(error)
        }
        return keys
    }

    /// The stored values of objects, read in batches.
    /// - Parameter ids: The objects.
    /// - Returns: A snapshot for each object that exists.
    /// - Throws: `StoreError` when a row cannot be read or a value does not fit the model.
    public func snapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot] {
        var byTable: [String: [ManagedObjectID]] = [:]
        // IDs come in runs of one entity: its table is looked up (and quoted) once per run.
        var last: (entity: String, table: String?) = ("", nil)
        for id in ids where id.storeIdentifier == identifier {
            if id.entityName != last.entity || last.table == nil {
                last = (id.entityName, schema.entities[id.entityName] != nil ? schema.table(of: id.entityName) : nil)
            }
            guard let table = last.table else { continue }
            byTable[table, default: []].append(id)
        }
        // Kept in the order read; the usual request (one table, keys ascending) is answered in that order as it is.
        var read: [ObjectSnapshot] = []
        read.reserveCapacity(ids.count)
        do {
            for (table, tableIDs) in byTable {
                let wanted = Set(tableIDs.lazy.map { $0.primaryKey })
                for chunk in KeyChunks(tableIDs.map { $0.primaryKey }) {
                    switch chunk {
                    case .range(let lower, let upper):
                        try readRows(
                            "SELECT * FROM \(table) WHERE Z_PK BETWEEN ? AND ?", [.integer(lower), .integer(upper)],
                            table: table, keeping: wanted.contains
                        ) { snapshot in
                            read.append(snapshot)
                            return true
                        }
                    case .list(let keys):
                        let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
                        try readRows(
                            "SELECT * FROM \(table) WHERE Z_PK IN (\(placeholders))", keys.map { .integer($0) },
                            table: table
                        ) { snapshot in
                            read.append(snapshot)
                            return true
                        }
                    }
                }
            }
        } catch {
            throw storeError(error)
        }
        if read.count == ids.count, read.indices.allSatisfy({ read[$0].objectID == ids[$0] }) { return read }
        // Otherwise each ID's snapshot by position (the last one read for an ID, as a dictionary of them kept).
        var found: [ManagedObjectID: Int] = [:]
        found.reserveCapacity(read.count)
        for i in read.indices { found[read[i].objectID] = i }
        return ids.compactMap { found[$0].map { read[$0] } }
    }

    /// How to turn a row of one entity into a snapshot: which column holds which property. Worked out once per
    /// query and entity, not per row; held by reference, so a row takes it without copying its arrays.
    final class RowPlan {
        struct Attribute {
            let name: String
            /// The attribute's slot in the entity's layout.
            let slot: Int
            let type: AttributeType
            let external: Bool
            let index: Int32
            /// For a composite attribute: its members' paths, types and columns.
            let members: [(path: [String], type: AttributeType, index: Int32)]
        }
        struct ToOne {
            let name: String
            let slot: Int
            let destination: String
            let index: Int32
            let entityIndex: Int32?
        }
        let entityName: String
        /// The store and entity of the IDs of the entity's rows.
        let prefix: ObjectIDPrefix
        let layout: EntityLayout
        let attributes: [Attribute]
        let toOnes: [ToOne]
        /// The snapshot's relationships before a row's to-ones are read: every to-many a fault, every to-one `nil`.
        let relationships: [RelationshipSlotValue]

        init(
            entityName: String, prefix: ObjectIDPrefix, layout: EntityLayout, attributes: [Attribute],
            toOnes: [ToOne], relationships: [RelationshipSlotValue]
        ) {
            self.entityName = entityName
            self.prefix = prefix
            self.layout = layout
            self.attributes = attributes
            self.toOnes = toOnes
            self.relationships = relationships
        }
    }

    func rowPlan(entityName: String, columns: [String: Int32]) -> RowPlan? {
        guard let layout = model.layout(of: entityName) else { return nil }
        var attributes: [RowPlan.Attribute] = []
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            guard let column = schema.attributeColumns[entityName]?[attribute.name] else { continue }
            if attribute.type == .composite {
                let members = column.members.compactMap { member in
                    columns[member.column].map { (member.path, member.attribute.type, $0) }
                }
                attributes.append(
                    .init(
                        name: attribute.name, slot: slot, type: .composite, external: false, index: -1,
                        members: members))
                continue
            }
            guard let index = columns[column.column] else { continue }
            attributes.append(
                .init(
                    name: attribute.name, slot: slot, type: attribute.type,
                    external: attribute.allowsExternalBinaryDataStorage, index: index, members: []))
        }
        var toOnes: [RowPlan.ToOne] = []
        var relationships: [RelationshipSlotValue] = []
        for (slot, relationship) in layout.relationships.enumerated() {
            if relationship.isTransient {
                relationships.append(.absent)
            } else if relationship.isToMany {
                relationships.append(.toManyFault)
            } else {
                // A to-one without a column (or one the row lacks) points nowhere.
                relationships.append(.toOne(nil))
                if let column = schema.toOneColumns[entityName]?[relationship.name],
                    let index = columns[column.column]
                {
                    toOnes.append(
                        .init(
                            name: relationship.name, slot: slot, destination: relationship.destinationEntityName,
                            index: index, entityIndex: column.entityColumn.flatMap { columns[$0] }))
                }
            }
        }
        return RowPlan(
            entityName: entityName, prefix: ObjectIDPrefix(storeIdentifier: identifier, entityName: entityName),
            layout: layout, attributes: attributes, toOnes: toOnes, relationships: relationships)
    }

    /// Whether a lenient read leaves out a destination row whose `Z_ENT` is not an entity of the destination's kind
    /// (a row that a strict read refuses; checking reports it as an unknown entity).
    func skipsLeniently(_ statement: OpaquePointer, entity: Int32, destination: String) -> Bool {
        guard lenientValues else { return false }
        guard sqlite3_column_type(statement, entity) == SQLITE_INTEGER,
            let name = schema.entityByNumber[sqlite3_column_int64(statement, entity)]
        else { return true }
        return !model.entity(name, isKindOf: destination)
    }

    /// The object ID of a row, from its `Z_PK` and `Z_ENT` columns.
    /// - Throws: ``SQLiteStoreError`` `malformed` for a key that is not positive or an entity number the store's
    ///   `Z_PRIMARYKEY` does not list (a row is never read as another entity).
    func objectID(_ statement: OpaquePointer, key: Int32, entity: Int32, table: String) throws(SQLiteStoreError)
        -> ManagedObjectID
    {
        // The key read once: an INTEGER column's value, 0 for any other (refused as not positive). (Through the
        // column's value object: see `readRows`.)
        let pk = Self.integer(statement, key) ?? 0
        guard pk > 0 else { throw badKey(statement, key, table: table) }
        guard let number = Self.integer(statement, entity), let name = schema.entityName(number: number) else {
            throw badEntity(statement, entity, key: pk, table: table)
        }
        return ManagedObjectID(entityName: name, storeIdentifier: identifier, primaryKey: pk)
    }

    /// The error for a row whose key (`Z_PK`, in column `key` of the current row of a statement over `table`) is not
    /// a positive integer.
    func badKey(_ statement: OpaquePointer, _ key: Int32, table: String) -> SQLiteStoreError {
        SQLiteStoreError(
            .malformed, path: database.path,
            "\(table): a row has the key \(SQLiteValueCoding.describe(SQLiteDatabase.column(statement, key))); keys (Z_PK) are positive integers"
        )
    }

    /// The error for a row (whose key is `key`) whose entity number (`Z_ENT`, in column `entity`) is not one of the
    /// model's entities.
    func badEntity(_ statement: OpaquePointer, _ entity: Int32, key: Int64, table: String) -> SQLiteStoreError {
        SQLiteStoreError(
            .malformed, path: database.path,
            "\(table) row Z_PK \(key): its entity number Z_ENT = \(SQLiteValueCoding.describe(SQLiteDatabase.column(statement, entity))) is not an entity of the model"
        )
    }

    /// The value of column `index` of the current row when it is an integer, else `nil`: its type and number read from
    /// the column's value object (one column lookup, where `sqlite3_column_type` and `sqlite3_column_int64` make two).
    /// Used at once, before the next step, by the one thread that holds the connection.
    static func integer(_ statement: OpaquePointer, _ index: Int32) -> Int64? {
        guard let column = sqlite3_column_value(statement, index), sqlite3_value_type(column) == SQLITE_INTEGER else {
            return nil
        }
        return sqlite3_value_int64(column)
    }

    /// Reads rows (every column of a root table) into snapshots; to-many relationships are left as faults.
    /// - Throws: ``SQLiteStoreError`` for a row with a bad key or entity number, or a value that does not fit its
    ///   attribute (unless the store reads leniently, when the value is kept raw and a warning recorded).
    /// - Parameters:
    ///   - keeping: Whether a row's key is one the caller asked for; other rows are skipped unread (a read of a key
    ///     range meets rows in between).
    ///   - body: Takes each row's snapshot and returns whether it keeps it (when not, the next row is read into the
    ///     same arrays).
    func readRows(
        _ sql: String, _ bindings: [SQLiteValue], table: String, keeping: ((Int64) -> Bool)? = nil,
        identifiedByKey: Bool = false, _ body: (consuming ObjectSnapshot) -> Bool
    ) throws(SQLiteStoreError) {
        // The statement's columns, found once (not per row).
        // (The positions apart from the names: read per row, they are copied without retaining anything.)
        var columns: [String: Int32] = [:]
        var layout: (key: Int32, entity: Int32, version: Int32?)? = nil
        var plans: [Int64: RowPlan] = [:]
        var last: (Int64, RowPlan)? = nil
        // The last destination of each to-one of the current plan, with the key (and entity number) it was read
        // from: rows in a run often point at the same object (a department's people), which is made once.
        var recent: [(key: Int64, entity: Int64, id: ManagedObjectID)?] = []
        // A row's values, kept from row to row: when `body` lets a snapshot go, they are this function's alone again
        // and the next row is written over them in place (when it keeps one, the next row starts new ones).
        var values: SlotValues? = nil
        // A row's relationships, kept from row to row with the plan they were made for: only its to-one slots are
        // written, each only when the row points elsewhere than the row before. Rows that point where the row before
        // did (a run of one department's people) share one list, whether `body` keeps them or not; a kept list is
        // copied when the next row changes it.
        var relationships: [RelationshipSlotValue] = []
        var filledFor: RowPlan? = nil
        try database.query(sql, bindings) { (statement) throws(SQLiteStoreError) in
            if layout == nil {
                var found: [String: Int32] = [:]
                for i in 0..<sqlite3_column_count(statement) {
                    found[String(cString: sqlite3_column_name(statement, i))] = i
                }
                guard let key = found["Z_PK"], let entity = found["Z_ENT"] else {
                    throw SQLiteStoreError(.malformed, path: database.path, "\(table) has no Z_PK or Z_ENT column")
                }
                columns = found
                layout = (key, entity, found["Z_OPT"])
            }
            guard let (pkIndex, entIndex, versionIndex) = layout else { return }
            if let keeping, sqlite3_column_type(statement, pkIndex) == SQLITE_INTEGER,
                !keeping(sqlite3_column_int64(statement, pkIndex))
            {
                return
            }
            // The row's key and entity number, checked (the number names an entity of the model when its plan is
            // made: the plans are by number).
            let pk = Self.integer(statement, pkIndex) ?? 0
            guard pk > 0 else { throw badKey(statement, pkIndex, table: table) }
            guard let ent = Self.integer(statement, entIndex) else {
                throw badEntity(statement, entIndex, key: pk, table: table)
            }
            let plan: RowPlan
            // Rows come in runs of one entity: the last plan is tried before the table of plans.
            if let (lastEnt, lastPlan) = last, lastEnt == ent {
                plan = lastPlan
            } else if let known = plans[ent] {
                plan = known
                last = (ent, known)
                recent = Array(repeating: nil, count: known.toOnes.count)
            } else {
                guard let entityName = schema.entityName(number: ent) else {
                    throw badEntity(statement, entIndex, key: pk, table: table)
                }
                guard let made = rowPlan(entityName: entityName, columns: columns) else {
                    throw SQLiteStoreError(.malformed, path: database.path, "no entity \(entityName) in the model")
                }
                plans[ent] = made
                plan = made
                last = (ent, made)
                recent = Array(repeating: nil, count: made.toOnes.count)
            }
            // The row's ID, made now unless the snapshot is to know its object by key.
            let madeID = identifiedByKey ? nil : plan.prefix.objectID(pk)
            /// The row's object, named in messages.
            var id: ManagedObjectID { madeID ?? plan.prefix.objectID(pk) }
            // Values go straight into the entity's slots (no dictionary by name).
            let rowValues: SlotValues
            if values?.layout === plan.layout, isKnownUniquelyReferenced(&values), let reused = values {
                reused.clear()
                rowValues = reused
            } else {
                rowValues = SlotValues(layout: plan.layout)
                values = rowValues
            }
            // Made for this row and written over (or let go) after it: an object filled from a row nothing keeps
            // may take the buffer.
            rowValues.allowAdoption()
            if filledFor !== plan {
                relationships = plan.relationships
                filledFor = plan
            }
            var rawKeys: Set<String> = []
            // Read through a buffer: an attribute's fields are used in place, not copied (and retained) per row.
            try plan.attributes.withUnsafeBufferPointer { (attributes) throws(SQLiteStoreError) in
                for a in attributes.indices {
                    if attributes[a].members.isEmpty, attributes[a].type != .composite {
                        // The usual columns go into their slots as they are (no value made, nothing converted); the
                        // others, and any that do not fit, are decoded below.
                        // The column's value object is read directly (its type, then its number or text): each
                        // `sqlite3_column_*` call looks the column up again. It is used at once, before the next
                        // step, by the one thread that holds the connection (opened without SQLite's mutex).
                        guard let column = sqlite3_column_value(statement, attributes[a].index) else { break }
                        switch sqlite3_value_type(column) {
                        case SQLITE_NULL: continue
                        case SQLITE_INTEGER:
                            if rowValues.setInteger(sqlite3_value_int64(column), at: attributes[a].slot) { continue }
                        case SQLITE_FLOAT:
                            if rowValues.setReal(sqlite3_value_double(column), at: attributes[a].slot) { continue }
                        case SQLITE_TEXT:
                            guard let text = sqlite3_value_text(column) else { break }
                            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(column)))
                            if rowValues.setText(bytes, at: attributes[a].slot) { continue }
                        default: break
                        }
                    }
                    let value: AttributeValue
                    do throws(SQLiteValueCoding.Mismatch) {
                        value =
                            attributes[a].members.isEmpty && attributes[a].type != .composite
                            ? try SQLiteValueCoding.decode(
                                SQLiteDatabase.column(statement, attributes[a].index), as: attributes[a].type,
                                external: attributes[a].external, externalDirectory: externalDataDirectory)
                            : try decode(attributes[a], statement)
                    } catch {
                        let attribute = attributes[a]
                        guard lenientValues else {
                            throw SQLiteStoreError(
                                .malformed, path: database.path,
                                "\(plan.entityName).\(attribute.name) of \(id) (\(table) row Z_PK \(id.primaryKey)): \(error.reason)"
                            )
                        }
                        let raw =
                            attribute.members.isEmpty
                            ? SQLiteValueCoding.raw(SQLiteDatabase.column(statement, attribute.index)) : .null
                        if valueWarnings.count < 1_000 {
                            valueWarnings.append(
                                "\(plan.entityName).\(attribute.name) of \(id): \(error.reason); kept as it is")
                            valueProblems.append(StoreProblem(id, .value, key: attribute.name, error.reason))
                        }
                        rawKeys.insert(attribute.name)
                        rowValues.set(raw, at: attribute.slot)
                        continue
                    }
                    rowValues.set(value, at: attributes[a].slot)
                }
            }
            // Through a buffer: each to-one's fields are read in place, not copied (and retained) per row.
            try plan.toOnes.withUnsafeBufferPointer { (toOnes) throws(SQLiteStoreError) in
                guard let first = toOnes.baseAddress else { return }
                for n in toOnes.indices {
                    let toOne = first + n
                    let key = Self.integer(statement, toOne.pointee.index)
                    if key == nil, sqlite3_column_type(statement, toOne.pointee.index) == SQLITE_NULL {
                        Self.point(&relationships, toOne.pointee.slot, at: nil)
                        continue
                    }
                    if let seen = recent[n], let key, key == seen.key,
                        toOne.pointee.entityIndex.map({ Self.integer(statement, $0) == seen.entity }) ?? true
                    {
                        // The same destination as the row before (already checked): the same ID.
                        Self.point(&relationships, toOne.pointee.slot, at: seen.id)
                        continue
                    }
                    if let entityIndex = toOne.pointee.entityIndex {
                        let destination = try objectID(
                            statement, key: toOne.pointee.index, entity: entityIndex,
                            table: "\(table).\(toOne.pointee.name)")
                        if !model.entity(destination.entityName, isKindOf: toOne.pointee.destination) {
                            throw SQLiteStoreError(
                                .malformed, path: database.path,
                                "\(id).\(toOne.pointee.name) points at a \(destination.entityName), not a \(toOne.pointee.destination)"
                            )
                        }
                        Self.point(&relationships, toOne.pointee.slot, at: destination)
                        recent[n] = (destination.primaryKey, sqlite3_column_int64(statement, entityIndex), destination)
                    } else {
                        guard sqlite3_column_type(statement, toOne.pointee.index) == SQLITE_INTEGER,
                            sqlite3_column_int64(statement, toOne.pointee.index) > 0
                        else {
                            throw SQLiteStoreError(
                                .malformed, path: database.path,
                                "\(id).\(toOne.pointee.name) holds \(SQLiteValueCoding.describe(SQLiteDatabase.column(statement, toOne.pointee.index))), not an object key"
                            )
                        }
                        let destination = ManagedObjectID(
                            entityName: toOne.pointee.destination, storeIdentifier: identifier,
                            primaryKey: sqlite3_column_int64(statement, toOne.pointee.index))
                        Self.point(&relationships, toOne.pointee.slot, at: destination)
                        recent[n] = (destination.primaryKey, 0, destination)
                    }
                }
            }
            var snapshot = ObjectSnapshot(
                identity: madeID.map { .id($0) } ?? .key(plan.prefix, pk),
                version: versionIndex.map { sqlite3_column_int64(statement, $0) } ?? 1, values: rowValues,
                relationships: relationships)
            if !rawKeys.isEmpty { snapshot.rawKeys = rawKeys }
            _ = body(consume snapshot)
        }
    }

    /// Sets a to-one slot of a row's relationships unless it already holds that destination (the same ID object: the
    /// row before pointed there too), so that rows pointing alike share one list. (Static, the list passed `inout`: a
    /// local function capturing it would check every access to it for exclusivity at run time.)
    @inline(__always)
    static func point(_ relationships: inout [RelationshipSlotValue], _ slot: Int, at destination: ManagedObjectID?) {
        let holds = relationships.withUnsafeBufferPointer { (held) -> Bool in
            if case .toOne(let id) = held[slot] { return id === destination }
            return false
        }
        if !holds { relationships[slot] = .toOne(destination) }
    }

    /// The objects a relationship of one object points to.
    /// - Parameters:
    ///   - id: The object.
    ///   - name: The relationship.
    /// - Returns: The destinations, in order for ordered relationships.
    /// - Throws: `StoreError` when the rows cannot be read.
    public func destinations(of id: ManagedObjectID, relationship name: String) throws(StoreError) -> [ManagedObjectID]
    {
        guard let relationship = model.allRelationships(of: id.entityName).first(where: { $0.name == name }),
            relationship.isToMany, let storage = schema.toManyStorage[id.entityName]?[name]
        else {
            throw StoreError(
                .unsupported, path: description.url?.path,
                "\(id.entityName) has no to-many relationship '\(Diagnostics.quote(name))'")
        }
        let destination = relationship.destinationEntityName
        let destinationTable = schema.table(of: destination)
        let q = SQLiteSchema.q
        let sql: String
        switch storage {
        case .inverseKey(_, let column, let order), .hiddenKey(_, let column, let order):
            sql =
                "SELECT Z_PK, Z_ENT FROM \(destinationTable) WHERE \(q(column)) = ? ORDER BY \(order.map { "\(q($0)), " } ?? "")Z_PK"
        case .joinTable(let table, let source, let target, let order):
            sql =
                "SELECT d.Z_PK, d.Z_ENT FROM \(q(table)) j JOIN \(destinationTable) d ON d.Z_PK = j.\(q(target)) WHERE j.\(q(source)) = ? ORDER BY \(order.map { "j.\(q($0)), " } ?? "")d.Z_PK"
        }
        var ids: [ManagedObjectID] = []
        do {
            try database.query(sql, [.integer(id.primaryKey)]) { (statement) throws(SQLiteStoreError) in
                if skipsLeniently(statement, entity: 1, destination: destination) { return }
                let found = try objectID(statement, key: 0, entity: 1, table: destinationTable)
                guard model.entity(found.entityName, isKindOf: destination) else {
                    throw SQLiteStoreError(
                        .malformed, path: database.path,
                        "\(id).\(name) holds \(found), which is not a \(destination)")
                }
                ids.append(found)
            }
        } catch {
            throw storeError(error)
        }
        return ids
    }

    /// The destinations of one to-many relationship of many objects: one query per 500 objects, not one per object,
    /// so that reading a store whole stays linear even when its foreign keys have no index.
    /// - Parameters:
    ///   - ids: the objects.
    ///   - name: the to-many relationship.
    /// - Returns: each object's destinations (ordered relationships in their order).
    /// - Throws: `StoreError` when the rows cannot be read.
    public func destinations(of ids: [ManagedObjectID], relationship name: String) throws(StoreError)
        -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        result.reserveCapacity(ids.count)
        var byEntity: [String: [ManagedObjectID]] = [:]
        for id in ids { byEntity[id.entityName, default: []].append(id) }
        let q = SQLiteSchema.q
        for (entityName, owners) in byEntity {
            guard let relationship = model.allRelationships(of: entityName).first(where: { $0.name == name }),
                relationship.isToMany, let storage = schema.toManyStorage[entityName]?[name]
            else {
                throw StoreError(
                    .unsupported, path: description.url?.path,
                    "\(entityName) has no to-many relationship '\(Diagnostics.quote(name))'")
            }
            let destination = relationship.destinationEntityName
            let destinationTable = schema.table(of: destination)
            var ownerByKey: [Int64: ManagedObjectID] = [:]
            ownerByKey.reserveCapacity(owners.count)
            for owner in owners {
                ownerByKey[owner.primaryKey] = owner
                result[owner] = []
            }
            // Links read without the destination table where its rows' entities can come from a map: always for a
            // join table, and for a foreign key without an order column (its index then holds all a read needs).
            var numbers: EntityNumbers? = nil
            var mappable = true
            if case .inverseKey(_, _, let order) = storage { mappable = order == nil }
            if case .hiddenKey(_, _, let order) = storage { mappable = order == nil }
            if mappable {
                do {
                    numbers = try entityNumbers(of: destinationTable, likely: destination, adding: 0)
                } catch {
                    throw storeError(error)
                }
                // A map found not to stand for the table (and still current) is not tried again.
                if linkReads[destinationTable]?.mapRefused == true { mappable = false }
            }
            for chunk in KeyChunks(owners.map { $0.primaryKey }) {
                // A join whose links pass the count at which the map pays is stopped, and the chunk read again
                // through the map: few owners can have many links (a department's people).
                var joined = 0
                reading: while true {
                    // Rows of a key range whose owner was not asked for (an object of another entity in the same table)
                    // are skipped; an owner asked for is always in `ownerByKey`.
                    let condition: String
                    let bindings: [SQLiteValue]
                    let isRange: Bool
                    switch chunk {
                    case .range(let lower, let upper):
                        (condition, bindings, isRange) = ("BETWEEN ? AND ?", [.integer(lower), .integer(upper)], true)
                    case .list(let keys):
                        let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
                        (condition, bindings, isRange) = ("IN (\(marks))", keys.map { .integer($0) }, false)
                    }
                    // An unordered foreign key (the inverse's, or a hidden one) is read alone when the map is there:
                    // each destination's entity comes from the map.
                    let unorderedKey: String? =
                        switch storage {
                        case .inverseKey(_, let column, nil), .hiddenKey(_, let column, nil): column
                        default: nil
                        }
                    if let numbers, let column = unorderedKey {
                        try readLinks(
                            "SELECT Z_PK, \(q(column)) FROM \(destinationTable) WHERE \(q(column)) \(condition) ORDER BY \(q(column)), Z_PK",
                            bindings, isRange: isRange, numbers: numbers, ownerByKey: ownerByKey,
                            destination: destination, entityName: entityName, relationship: name, into: &result)
                        break reading
                    }
                    let sql: String
                    switch storage {
                    case .inverseKey(_, let column, let order), .hiddenKey(_, let column, let order):
                        sql =
                            "SELECT Z_PK, Z_ENT, \(q(column)) FROM \(destinationTable) WHERE \(q(column)) \(condition) ORDER BY \(q(column)), \(order.map { "\(q($0)), " } ?? "")Z_PK"
                    case .joinTable(let table, let source, let target, let order):
                        if let numbers {
                            // The join table alone; each destination's entity comes from the map.
                            try readLinks(
                                "SELECT j.\(q(target)), j.\(q(source)) FROM \(q(table)) j WHERE j.\(q(source)) \(condition) ORDER BY j.\(q(source)), \(order.map { "j.\(q($0)), " } ?? "")j.\(q(target))",
                                bindings, isRange: isRange, numbers: numbers, ownerByKey: ownerByKey,
                                destination: destination, entityName: entityName, relationship: name, into: &result)
                            break reading
                        }
                        // Ordered by the join table's own columns (d.Z_PK equals the target), which its primary key
                        // index gives without sorting.
                        sql =
                            "SELECT d.Z_PK, d.Z_ENT, j.\(q(source)) FROM \(q(table)) j JOIN \(destinationTable) d ON d.Z_PK = j.\(q(target)) WHERE j.\(q(source)) \(condition) ORDER BY j.\(q(source)), \(order.map { "j.\(q($0)), " } ?? "")j.\(q(target))"
                    }
                    // Rows come grouped by owner: each owner's list is built apart and stored once, and an entity is
                    // checked against the destination once per run of rows of that entity.
                    var run = LinkRun()
                    var checkedEntity = ""
                    let budget = mappable ? linkReads[destinationTable]?.budget : nil
                    var overBudget = false
                    do {
                        try database.query(sql, bindings) {
                            (statement) throws(SQLiteStoreError) in
                            joined += 1
                            if let budget, joined > budget {
                                overBudget = true
                                throw SQLiteStoreError(.io, path: database.path, "a join was stopped for the map")
                            }
                            let ownerKey = sqlite3_column_int64(statement, 2)
                            if run.key != ownerKey { run.start(ownerKey, ownerByKey, storingInto: &result) }
                            if isRange, run.owner == nil { return }
                            if skipsLeniently(statement, entity: 1, destination: destination) { return }
                            let found = try objectID(statement, key: 0, entity: 1, table: destinationTable)
                            if found.entityName != checkedEntity {
                                guard model.entity(found.entityName, isKindOf: destination) else {
                                    throw SQLiteStoreError(
                                        .malformed, path: database.path,
                                        "\(entityName).\(name) holds \(found), which is not a \(destination)")
                                }
                                checkedEntity = found.entityName
                            }
                            guard run.owner != nil else {
                                throw SQLiteStoreError(
                                    .malformed, path: database.path,
                                    "\(entityName).\(name): the store returned \(found) for an object not asked for")
                            }
                            run.ids.append(found)
                        }
                        run.finish(storingInto: &result)
                        linkReads[destinationTable]?.joined += joined
                        break reading
                    } catch {
                        guard overBudget else { throw storeError(error) }
                        // Owners whose lists were stored before the stop get them again, whole, from the map; the
                        // map is made now, or is known not to stand for the table (then the join runs unstopped), or
                        // was an early map that did not apply (then the join runs again up to the full map's count).
                        do {
                            numbers = try entityNumbers(of: destinationTable, likely: destination, adding: joined)
                        } catch {
                            throw storeError(error)
                        }
                        if numbers == nil, linkReads[destinationTable]?.budget == nil { mappable = false }
                        joined = 0
                    }
                }
            }
        }
        return result
    }

    /// The entity numbers of `table`'s rows, once batched reads of links into it have read enough links through joins
    /// since the database last changed that a map costs less than a lookup per link (see ``LinkReads``); `nil` before
    /// that, or when the table has a row the map cannot stand for.
    /// - Parameters:
    ///   - destination: the entity the links point to, tried first as the one most rows are of.
    ///   - joined: links just read through a join with the table.
    private func entityNumbers(of table: String, likely destination: String, adding joined: Int)
        throws(SQLiteStoreError) -> EntityNumbers?
    {
        // Any change by this connection or a commit by another one makes what was learnt stale.
        guard case .integer(let version)? = try database.query("PRAGMA data_version").first?.first,
            let handle = database.handle
        else { return nil }
        let stamp = [version, sqlite3_total_changes64(handle)]
        if linkReads[table]?.stamp != stamp {
            guard case .integer(let largest)? = try database.query("SELECT MAX(Z_PK) FROM \(table)").first?.first
            else {
                // An empty table (or keys that are not integers, which the join reports).
                linkReads[table] = LinkReads(stamp: stamp, rows: 0, threshold: Self.linkReadsBeforeMap)
                return nil
            }
            let rows = Int(clamping: largest)
            var reads = LinkReads(
                stamp: stamp, rows: rows, threshold: Swift.max(Self.linkReadsBeforeMap, rows / 4))
            // With an index on Z_ENT a map of the rows not of the likely entity costs a few lookups: tried early.
            let shape = try EntityNumbers.Shape(table, from: database)
            reads.shape = shape
            if shape.keyIsRowID, shape.numberIsInteger, shape.numberIsIndexed {
                reads.earlyThreshold = Self.linkReadsBeforeIndexedMap
            }
            linkReads[table] = reads
        }
        guard var reads = linkReads[table] else { return nil }
        if reads.map != nil || reads.mapRefused { return reads.map }
        reads.joined += joined
        // The entities most rows are likely of: the links' destination, then the table's other entities.
        func likely() -> [Int64] {
            let first = schema.entities[destination]?.number
            let others = schema.entities.values.filter { SQLiteSchema.q($0.table) == table && $0.number != first }
            return (first.map { [$0] } ?? []) + others.map(\.number).sorted()
        }
        if let early = reads.earlyThreshold, reads.joined > early {
            reads.earlyThreshold = nil
            // Exceptions up to an eighth of the rows (each costs about what a joined link does).
            switch try EntityNumbers.mostlyOne(
                table, from: database, known: schema.entityByNumber, likely: likely(),
                atMost: Swift.max(reads.rows / 8, Self.linkReadsBeforeIndexedMap), shape: reads.shape)
            {
            case .success(let map): reads.map = map
            case .failure(.unusable): reads.mapRefused = true
            case .failure(.notApplicable): reads.triedMostlyOne = true
            }
        } else if reads.joined > reads.threshold {
            reads.map = try EntityNumbers.read(
                table, from: database, known: schema.entityByNumber,
                likely: reads.triedMostlyOne ? [] : likely(), rows: reads.rows, shape: reads.shape)
            reads.mapRefused = reads.map == nil
        }
        linkReads[table] = reads
        return reads.map
    }

    /// The fewest links read through joins with a table before its entity numbers are mapped.
    static let linkReadsBeforeMap = 5_000

    /// The fewest links read through joins with a table that has an index on `Z_ENT` before a map of its exceptions
    /// is tried (``EntityNumbers/mostlyOne(_:from:known:likely:atMost:shape:)``): about what that try costs when it
    /// fails.
    static let linkReadsBeforeIndexedMap = 1_000

    /// Reads links (destination key, owner key) in owner order, each destination's entity from `numbers`: as the join
    /// with the destination table would, a link to a row the table lacks is left out (a foreign key's rows are the
    /// destination table's own, all in a fresh map).
    private func readLinks(
        _ sql: String, _ bindings: [SQLiteValue], isRange: Bool, numbers: EntityNumbers,
        ownerByKey: [Int64: ManagedObjectID], destination: String, entityName: String, relationship name: String,
        into result: inout [ManagedObjectID: [ManagedObjectID]]
    ) throws(StoreError) {
        var run = LinkRun()
        var checked: (number: Int64, name: String, fits: Bool)? = nil
        do {
            try database.query(sql, bindings) { (statement) throws(SQLiteStoreError) in
                let ownerKey = sqlite3_column_int64(statement, 1)
                if run.key != ownerKey { run.start(ownerKey, ownerByKey, storingInto: &result) }
                if isRange, run.owner == nil { return }
                // The type before the number (SQLite leaves a column's type undefined once it was read as another).
                guard let key = Self.integer(statement, 0), let number = numbers.number(of: key) else { return }
                if checked?.number != number {
                    guard let found = schema.entityByNumber[number] else { return }
                    checked = (number, found, model.entity(found, isKindOf: destination))
                }
                guard let (_, found, fits) = checked else { return }
                if !fits {
                    if lenientValues { return }
                    throw SQLiteStoreError(
                        .malformed, path: database.path,
                        "\(entityName).\(name) holds \(ManagedObjectID(entityName: found, storeIdentifier: identifier, primaryKey: key)), which is not a \(destination)"
                    )
                }
                guard run.owner != nil else {
                    throw SQLiteStoreError(
                        .malformed, path: database.path,
                        "\(entityName).\(name): the store returned a link for an object not asked for")
                }
                run.ids.append(ManagedObjectID(entityName: found, storeIdentifier: identifier, primaryKey: key))
            }
            run.finish(storingInto: &result)
        } catch {
            throw storeError(error)
        }
    }

    /// The stored version (`Z_OPT`) of an object, for optimistic locking.
    /// - Parameter id: The object.
    /// - Returns: Its version, or `nil` when it is not in the store.
    /// - Throws: `StoreError` when the row cannot be read.
    public func version(of id: ManagedObjectID) throws(StoreError) -> Int64? {
        do {
            guard
                let row = try database.query(
                    "SELECT IFNULL(Z_OPT, 0) FROM \(schema.table(of: id.entityName)) WHERE Z_PK = ?",
                    [.integer(id.primaryKey)]
                ).first
            else { return nil }
            if case .integer(let v) = row[0] { return v }
            return 0
        } catch {
            throw storeError(error)
        }
    }

    /// The value of one attribute (a composite from its member columns) in the current row.
    func decode(_ attribute: RowPlan.Attribute, _ statement: OpaquePointer) throws(SQLiteValueCoding.Mismatch)
        -> AttributeValue
    {
        guard !attribute.members.isEmpty || attribute.type == .composite else {
            return try SQLiteValueCoding.decode(
                SQLiteDatabase.column(statement, attribute.index), as: attribute.type, external: attribute.external,
                externalDirectory: externalDataDirectory)
        }
        var root: [String: AttributeValue] = [:]
        for member in attribute.members {
            let value: AttributeValue
            do {
                value = try SQLiteValueCoding.decode(
                    SQLiteDatabase.column(statement, member.index), as: member.type, external: false,
                    externalDirectory: nil)
            } catch {
                throw SQLiteValueCoding.Mismatch(
                    reason: "member \(member.path.joined(separator: ".")): \(error.reason)")
            }
            if !value.isNull { AttributeValue.insertMember(value, at: member.path[...], into: &root) }
        }
        return root.isEmpty ? .null : .composite(root)
    }

}

/// Reads related rows on demand for in-memory evaluation of what SQL could not express.
final class RowResolver {
    let store: SQLiteStore
    var cache: [ManagedObjectID: ObjectSnapshot] = [:]
    /// The first store failure while reading related rows: the fetch fails with it.
    var failure: StoreError?

    init(store: SQLiteStore) {
        self.store = store
    }

    func snapshot(_ id: ManagedObjectID) throws(ObjectPredicateError) -> ObjectSnapshot? {
        if let cached = cache[id] { return cached }
        let found: ObjectSnapshot?
        do {
            found = try store.snapshots(for: [id]).first
        } catch {
            failure = failure ?? error
            throw ObjectPredicateError(.objectUnavailable, error.description)
        }
        cache[id] = found
        return found
    }

    func destinations(of id: ManagedObjectID, _ key: String) throws(ObjectPredicateError) -> [ManagedObjectID] {
        do {
            return try store.destinations(of: id, relationship: key)
        } catch {
            failure = failure ?? error
            throw ObjectPredicateError(.objectUnavailable, error.description)
        }
    }
}

/// Key-value access to a stored row, through relationships.
final class RowView: KeyValueCoding {
    let snapshot: ObjectSnapshot
    let resolver: RowResolver

    init(_ snapshot: ObjectSnapshot, resolver: RowResolver) {
        self.snapshot = snapshot
        self.resolver = resolver
    }

    func predicateValue(forKey key: String) throws(ObjectPredicateError) -> PredicateValue {
        if case let value = snapshot[attribute: key], !value.isNull { return PredicateValue(value) }
        if let id = snapshot[toOne: key] {
            guard let id else { return .null }
            return try resolver.snapshot(id).map { .object(RowView($0, resolver: resolver)) } ?? .null
        }
        if snapshot.isToManyFault(key) {
            var items: [PredicateValue] = []
            for id in try resolver.destinations(of: snapshot.objectID, key) {
                if let row = try resolver.snapshot(id) { items.append(.object(RowView(row, resolver: resolver))) }
            }
            return .collection(items, ordered: true)
        }
        if let layout = resolver.store.model.layout(of: snapshot.objectID.entityName),
            layout.attributeSlot(named: key) != nil || layout.relationshipSlot(named: key) != nil
        {
            return .null
        }
        throw ObjectPredicateError(
            .unknownKey, "\(snapshot.objectID.entityName) has no property '\(Diagnostics.quote(key))'")
    }
}

/// The links of one owner as rows of links come, in owner order: gathered in a list kept from owner to owner (its room
/// reused) and stored as a list of exactly their count when the owner's rows end, rather than grown a link at a time
/// in a new list per owner (which reallocated each list three or four times).
struct LinkRun {
    /// The owner key of the rows being read (`nil` before the first).
    private(set) var key: Int64? = nil
    /// The owner, when it was asked for.
    private(set) var owner: ManagedObjectID? = nil
    /// The owner's links so far.
    var ids: [ManagedObjectID] = []

    /// Stores the run before (when its owner was asked for) and starts the run of the owner with `key`.
    mutating func start(
        _ key: Int64, _ ownerByKey: [Int64: ManagedObjectID],
        storingInto result: inout [ManagedObjectID: [ManagedObjectID]]
    ) {
        finish(storingInto: &result)
        self.key = key
        owner = ownerByKey[key]
    }

    /// Stores the run's links as its owner's (when it was asked for).
    mutating func finish(storingInto result: inout [ManagedObjectID: [ManagedObjectID]]) {
        // A copy of the links (`Array(ids)` would share the gathering list, which would then need new room).
        if let owner {
            result[owner] = ids.withUnsafeBufferPointer { links in
                [ManagedObjectID](unsafeUninitializedCapacity: links.count) { list, count in
                    count = list.initialize(fromContentsOf: links)
                }
            }
        }
        ids.removeAll(keepingCapacity: true)
    }
}
