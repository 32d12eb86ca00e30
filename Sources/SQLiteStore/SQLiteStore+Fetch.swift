import CSQLite
import Foundation
public import ObjectGraph

extension SQLiteStore {
    public func objectIDs(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ManagedObjectID] {
        guard let entity = entityNames.first, let table = schema.entities[entity]?.table else { return [] }
        let kinds = schema.numbers(of: entityNames)
        var translator = SQLTranslator(schema: schema)
        var sql =
            "SELECT t0.Z_PK, t0.Z_ENT FROM \(table) t0 WHERE t0.Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))"
        var complete = true
        if let predicate = request.predicate {
            let (condition, whole) = translator.narrowing(predicate, entity: request.entityName, alias: "t0")
            if let condition { sql += " AND (\(condition))" }
            complete = whole
        }
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
        var ids: [ManagedObjectID] = []
        do {
            try database.query(sql, translator.bindings) { statement in
                let pk = sqlite3_column_int64(statement, 0)
                let ent = sqlite3_column_int64(statement, 1)
                ids.append(
                    ManagedObjectID(
                        entityName: schema.entityByNumber[ent] ?? entity, storeIdentifier: identifier, primaryKey: pk))
            }
        } catch {
            throw storeError(error)
        }
        if complete && (sortedInSQL || request.sortDescriptors.isEmpty) { return ids }
        // Evaluate what SQL could not express on the narrowed rows.
        let resolver = RowResolver(store: self)
        var candidates: [PredicateValue] = []
        for snapshot in try snapshots(for: ids) { candidates.append(.object(RowView(snapshot, resolver: resolver))) }
        var remaining = request
        remaining.fetchLimit = 0
        remaining.fetchOffset = 0
        remaining.resultType = .managedObject
        if complete { remaining.predicate = nil }
        guard case .objects(let matched)? = try? InMemoryFetch.execute(remaining, over: candidates) else {
            throw StoreError(.unsupported, path: description.url?.path, "cannot evaluate the fetch predicate")
        }
        return matched.compactMap {
            if case .object(let view as RowView) = $0 { return view.snapshot.objectID }; return nil
        }
    }

    public func snapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot] {
        var byTable: [String: [ManagedObjectID]] = [:]
        for id in ids { byTable[schema.table(of: id.entityName), default: []].append(id) }
        var found: [ManagedObjectID: ObjectSnapshot] = [:]
        found.reserveCapacity(ids.count)
        do {
            for (table, tableIDs) in byTable {
                var start = 0
                while start < tableIDs.count {
                    let batch = tableIDs[start..<min(start + 500, tableIDs.count)]
                    start += 500
                    let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
                    try readRows(
                        "SELECT * FROM \(table) WHERE Z_PK IN (\(placeholders))", batch.map { .integer($0.primaryKey) }
                    ) { snapshot in found[snapshot.objectID] = snapshot }
                }
            }
        } catch {
            throw storeError(error)
        }
        return ids.compactMap { found[$0] }
    }

    /// How to turn a row of one entity into a snapshot: which column holds which property. Worked out once per
    /// query and entity, not per row.
    struct RowPlan {
        struct Attribute {
            let name: String
            let type: AttributeType
            let external: Bool
            let index: Int32
        }
        struct ToOne {
            let name: String
            let destination: String
            let index: Int32
            let entityIndex: Int32?
        }
        let entityName: String
        let attributes: [Attribute]
        let toOnes: [ToOne]
        let nullToOnes: [String]
        let toManyNames: Set<String>
    }

    func rowPlan(entityName: String, columns: [String: Int32]) -> RowPlan? {
        guard let layout = model.layout(of: entityName) else { return nil }
        var attributes: [RowPlan.Attribute] = []
        for attribute in layout.attributes where !attribute.isTransient {
            guard let column = schema.attributeColumns[entityName]?[attribute.name]?.column,
                let index = columns[column]
            else { continue }
            attributes.append(
                .init(
                    name: attribute.name, type: attribute.type, external: attribute.allowsExternalBinaryDataStorage,
                    index: index))
        }
        var toOnes: [RowPlan.ToOne] = []
        var nullToOnes: [String] = []
        var toManyNames = Set<String>()
        for relationship in layout.relationships where !relationship.isTransient {
            if relationship.isToMany {
                toManyNames.insert(relationship.name)
            } else if let column = schema.toOneColumns[entityName]?[relationship.name],
                let index = columns[column.column]
            {
                toOnes.append(
                    .init(
                        name: relationship.name, destination: relationship.destinationEntityName, index: index,
                        entityIndex: column.entityColumn.flatMap { columns[$0] }))
            } else {
                nullToOnes.append(relationship.name)
            }
        }
        return RowPlan(
            entityName: entityName, attributes: attributes, toOnes: toOnes, nullToOnes: nullToOnes,
            toManyNames: toManyNames)
    }

    /// Reads rows (every column of a root table) into snapshots; to-many relationships are left as faults.
    func readRows(_ sql: String, _ bindings: [SQLiteValue], _ body: (ObjectSnapshot) -> Void) throws(SQLiteStoreError) {
        var columns: [String: Int32]? = nil
        var plans: [Int64: RowPlan] = [:]
        try database.query(sql, bindings) { statement in
            if columns == nil {
                var found: [String: Int32] = [:]
                for i in 0..<sqlite3_column_count(statement) {
                    found[String(cString: sqlite3_column_name(statement, i))] = i
                }
                columns = found
            }
            guard let columns, let pkIndex = columns["Z_PK"], let entIndex = columns["Z_ENT"] else { return }
            let ent = sqlite3_column_int64(statement, entIndex)
            let plan: RowPlan
            if let known = plans[ent] {
                plan = known
            } else {
                guard let entityName = schema.entityByNumber[ent],
                    let made = rowPlan(entityName: entityName, columns: columns)
                else { return }
                plans[ent] = made
                plan = made
            }
            var snapshot = ObjectSnapshot(
                objectID: ManagedObjectID(
                    entityName: plan.entityName, storeIdentifier: identifier,
                    primaryKey: sqlite3_column_int64(statement, pkIndex)),
                version: columns["Z_OPT"].map { sqlite3_column_int64(statement, $0) } ?? 1)
            snapshot.attributes.reserveCapacity(plan.attributes.count)
            for attribute in plan.attributes {
                let value = SQLiteValueCoding.decode(
                    SQLiteDatabase.column(statement, attribute.index), as: attribute.type, external: attribute.external,
                    externalDirectory: externalDataDirectory)
                if !value.isNull { snapshot.attributes[attribute.name] = value }
            }
            snapshot.toManyFaults = plan.toManyNames
            for name in plan.nullToOnes { snapshot.toOne[name] = .some(nil) }
            for toOne in plan.toOnes {
                guard sqlite3_column_type(statement, toOne.index) != SQLITE_NULL else {
                    snapshot.toOne[toOne.name] = .some(nil)
                    continue
                }
                var destination = toOne.destination
                if let entityIndex = toOne.entityIndex,
                    let name = schema.entityByNumber[sqlite3_column_int64(statement, entityIndex)]
                {
                    destination = name
                }
                snapshot.toOne[toOne.name] = ManagedObjectID(
                    entityName: destination, storeIdentifier: identifier,
                    primaryKey: sqlite3_column_int64(statement, toOne.index))
            }
            body(snapshot)
        }
    }

    public func destinations(of id: ManagedObjectID, relationship name: String) throws(StoreError) -> [ManagedObjectID]
    {
        guard let relationship = model.allRelationships(of: id.entityName).first(where: { $0.name == name }),
            let storage = schema.toManyStorage[id.entityName]?[name]
        else { return [] }
        let destination = relationship.destinationEntityName
        let destinationTable = schema.table(of: destination)
        let sql: String
        switch storage {
        case .inverseKey(_, let column, let order):
            sql =
                "SELECT Z_PK, Z_ENT FROM \(destinationTable) WHERE \(column) = ? ORDER BY \(order.map { "\($0), " } ?? "")Z_PK"
        case .hiddenKey(_, let column):
            sql = "SELECT Z_PK, Z_ENT FROM \(destinationTable) WHERE \(column) = ? ORDER BY Z_PK"
        case .joinTable(let table, let source, let target, let order):
            sql =
                "SELECT d.Z_PK, d.Z_ENT FROM \(table) j JOIN \(destinationTable) d ON d.Z_PK = j.\(target) WHERE j.\(source) = ? ORDER BY \(order.map { "j.\($0), " } ?? "")d.Z_PK"
        }
        var ids: [ManagedObjectID] = []
        do {
            try database.query(sql, [.integer(id.primaryKey)]) { statement in
                let ent = sqlite3_column_int64(statement, 1)
                ids.append(
                    ManagedObjectID(
                        entityName: schema.entityByNumber[ent] ?? destination, storeIdentifier: identifier,
                        primaryKey: sqlite3_column_int64(statement, 0)))
            }
        } catch {
            throw storeError(error)
        }
        return ids
    }

    public func version(of id: ManagedObjectID) throws(StoreError) -> Int64? {
        do {
            guard
                let row = try database.query(
                    "SELECT Z_OPT FROM \(schema.table(of: id.entityName)) WHERE Z_PK = ?", [.integer(id.primaryKey)]
                ).first
            else { return nil }
            if case .integer(let v) = row[0] { return v }
            return 1
        } catch {
            throw storeError(error)
        }
    }
}

/// Reads related rows on demand for in-memory evaluation of what SQL could not express.
final class RowResolver {
    let store: SQLiteStore
    var cache: [ManagedObjectID: ObjectSnapshot] = [:]

    init(store: SQLiteStore) {
        self.store = store
    }

    func snapshot(_ id: ManagedObjectID) -> ObjectSnapshot? {
        if let cached = cache[id] { return cached }
        let found = try? store.snapshots(for: [id]).first
        cache[id] = found
        return found
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

    func predicateValue(forKey key: String) -> PredicateValue {
        if let value = snapshot.attributes[key] { return PredicateValue(value) }
        if let id = snapshot.toOne[key] {
            return id.flatMap(resolver.snapshot).map { .object(RowView($0, resolver: resolver)) } ?? .null
        }
        if snapshot.toManyFaults.contains(key) {
            let ids = (try? resolver.store.destinations(of: snapshot.objectID, relationship: key)) ?? []
            return .collection(
                ids.compactMap(resolver.snapshot).map { .object(RowView($0, resolver: resolver)) }, ordered: true)
        }
        return .null
    }
}
