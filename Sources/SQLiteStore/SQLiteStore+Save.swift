import CSQLite
import Foundation
public import ObjectGraph

extension SQLiteStore {
    public func allocatePrimaryKeys(forRoot entityName: String, count: Int) throws(StoreError) -> [Int64] {
        let number = schema.number(entityName)
        do throws(SQLiteStoreError) {
            try database.execute("BEGIN IMMEDIATE")
            do throws(SQLiteStoreError) {
                try database.run(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?",
                    [.integer(Int64(count)), .integer(number)])
                guard
                    case .integer(let max)? = try database.query(
                        "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]
                    ).first?.first
                else {
                    throw SQLiteStoreError(.malformed, path: database.path, "no Z_PRIMARYKEY row for \(entityName)")
                }
                try database.execute("COMMIT")
                return Array((max - Int64(count) + 1)...max)
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        } catch {
            throw storeError(error)
        }
    }

    /// Runs the whole save in one transaction; the coordinator commits it once every store has prepared.
    public func prepareSave(_ request: IncrementalSaveRequest) throws(StoreError) -> any StoreTransaction {
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            throw storeError(error)
        }
        do throws(SQLiteStoreError) {
            for id in request.deleted { try deleteRow(id) }
            for snapshot in request.inserted { try writeRow(snapshot, insert: true) }
            for snapshot in request.updated { try writeRow(snapshot, insert: false) }
            for snapshot in request.inserted + request.updated { try writeToMany(snapshot) }
            // Keys given elsewhere (a migration) raise Z_MAX so that new keys never collide.
            var highest: [Int64: Int64] = [:]
            for snapshot in request.inserted {
                let root = schema.number(model.rootEntity(of: snapshot.objectID.entityName))
                highest[root] = max(highest[root] ?? 0, snapshot.objectID.primaryKey)
            }
            for (root, key) in highest {
                try database.run(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_ENT = ?", [.integer(key), .integer(root)])
            }
            try writeMetadata()
        } catch {
            try? database.execute("ROLLBACK")
            throw storeError(error)
        }
        return Transaction(database: database, path: description.url?.path)
    }

    struct Transaction: StoreTransaction {
        let database: SQLiteDatabase
        let path: String?
        func commit() throws(StoreError) {
            do {
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw StoreError(.io, path: path, error.message)
            }
        }
        func rollback() { try? database.execute("ROLLBACK") }
    }

    private func writeRow(_ snapshot: ObjectSnapshot, insert: Bool) throws(SQLiteStoreError) {
        let entityName = snapshot.objectID.entityName
        guard let layout = model.layout(of: entityName) else { return }
        let table = schema.table(of: entityName)
        var columns: [String] = []
        var values: [SQLiteValue] = []
        for attribute in layout.attributes where !attribute.isTransient {
            guard let column = schema.attributeColumns[entityName]?[attribute.name]?.column else { continue }
            columns.append(column)
            values.append(
                SQLiteValueCoding.encode(
                    snapshot[attribute: attribute.name], external: attribute.allowsExternalBinaryDataStorage))
        }
        for relationship in layout.relationships where !relationship.isToMany && !relationship.isTransient {
            guard let column = schema.toOneColumns[entityName]?[relationship.name] else { continue }
            let destination = snapshot.toOne[relationship.name] ?? nil
            columns.append(column.column)
            values.append(destination.map { .integer($0.primaryKey) } ?? .null)
            if let entColumn = column.entityColumn {
                columns.append(entColumn)
                values.append(destination.map { .integer(schema.number($0.entityName)) } ?? .null)
            }
        }
        if insert {
            let sql =
                "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT\(columns.map { ", \($0)" }.joined())) VALUES (?, ?, ?\(String(repeating: ", ?", count: columns.count)))"
            try database.run(
                sql,
                [
                    .integer(snapshot.objectID.primaryKey), .integer(schema.number(entityName)),
                    .integer(snapshot.version),
                ] + values)
        } else {
            let sql = "UPDATE \(table) SET Z_OPT = ?\(columns.map { ", \($0) = ?" }.joined()) WHERE Z_PK = ?"
            try database.run(sql, [.integer(snapshot.version)] + values + [.integer(snapshot.objectID.primaryKey)])
        }
    }

    /// Join-table rows, hidden keys and order columns of the to-many relationships a snapshot carries.
    private func writeToMany(_ snapshot: ObjectSnapshot) throws(SQLiteStoreError) {
        let entityName = snapshot.objectID.entityName
        let pk = Int64(snapshot.objectID.primaryKey)
        for (name, ids) in snapshot.toMany {
            guard let storage = schema.toManyStorage[entityName]?[name] else { continue }
            switch storage {
            case .joinTable(let table, let source, let destination, let order):
                try database.run("DELETE FROM \(table) WHERE \(source) = ?", [.integer(pk)])
                for (i, id) in ids.enumerated() {
                    if let order {
                        try database.run(
                            "INSERT OR REPLACE INTO \(table) (\(source), \(destination), \(order)) VALUES (?, ?, ?)",
                            [.integer(pk), .integer(id.primaryKey), .integer(Int64(i + 1))])
                    } else {
                        try database.run(
                            "INSERT OR IGNORE INTO \(table) (\(source), \(destination)) VALUES (?, ?)",
                            [.integer(pk), .integer(id.primaryKey)])
                    }
                }
            case .inverseKey(let table, _, let order?):
                for (i, id) in ids.enumerated() {
                    try database.run(
                        "UPDATE \(table) SET \(order) = ? WHERE Z_PK = ?",
                        [.integer(Int64(i + 1)), .integer(id.primaryKey)])
                }
            case .inverseKey:
                break
            case .hiddenKey(let table, let column):
                try database.run("UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?", [.integer(pk)])
                for id in ids {
                    try database.run(
                        "UPDATE \(table) SET \(column) = ? WHERE Z_PK = ?", [.integer(pk), .integer(id.primaryKey)])
                }
            }
        }
    }

    private func deleteRow(_ id: ManagedObjectID) throws(SQLiteStoreError) {
        try database.run("DELETE FROM \(schema.table(of: id.entityName)) WHERE Z_PK = ?", [.integer(id.primaryKey)])
        for (_, storage) in schema.toManyStorage[id.entityName] ?? [:] {
            switch storage {
            case .joinTable(let table, let source, _, _):
                try database.run("DELETE FROM \(table) WHERE \(source) = ?", [.integer(id.primaryKey)])
            case .hiddenKey(let table, let column):
                try database.run("UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?", [.integer(id.primaryKey)])
            case .inverseKey:
                break
            }
        }
    }
}
