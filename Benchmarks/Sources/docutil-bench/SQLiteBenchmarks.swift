import CBenchSQLite
import Foundation
import GRDB
import ObjectGraph
import SQLiteStore

/// Issue 6: 100,000 objects of the reference entity in the SQLite store, side by side in one run with raw SQLite C
/// API code doing the same work on the same columns and with GRDB.swift records. All three use WAL journaling and
/// SQLite's default synchronous mode, one transaction per save.
enum SQLiteBenchmarks {
    static let count = 100_000

    /// The reference model with `number` indexed, for the indexed predicate fetch.
    static func model() throws -> ManagedObjectModel {
        var entities = try ObjectGraphBenchmarks.model().entities
        if let item = entities.firstIndex(where: { $0.name == "Item" }),
            let number = entities[item].attributes.firstIndex(where: { $0.name == "number" })
        {
            entities[item].attributes[number].isIndexed = true
        }
        return try ManagedObjectModel(entities: entities)
    }

    static func run() throws {
        SQLiteStore.register()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "docutil-bench-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("\nSQLite store (\(count) objects of a 10-attribute entity with a to-one/to-many pair, one group)")
        print("  ratios: against raw SQLite C API code doing the same work; GRDB.swift records in the last column")

        let model = try model()
        var run = 0
        func fresh(_ name: String) -> URL {
            run += 1
            return directory.appendingPathComponent("\(name)-\(run).sqlite")
        }

        // Each operation: raw C API, docutil, GRDB in turns (see `Comparison`); ratios are medians of the rounds'.
        // Insert + save, each into a new file.
        let insert = try Comparison(
            rounds: 5,
            [
                { try Raw.insert(url: fresh("raw")) }, { try Ours.insert(model: model, url: fresh("ours")) },
                { try Grdb.insert(url: fresh("grdb")) },
            ])
        row("insert 100,000 + save", insert, goal: "goal ≤ 1.5×")

        let oursURL = fresh("ours")
        try Ours.insert(model: model, url: oursURL)
        let rawURL = fresh("raw")
        try Raw.insert(url: rawURL)
        let grdbURL = fresh("grdb")
        try Grdb.insert(url: grdbURL)

        // Fetch all, rows loaded; and as faults (against the raw fetch of full rows).
        let fetch = try Comparison(
            rounds: 9,
            [
                { blackHole(try Raw.fetchAll(url: rawURL)) },
                { blackHole(try Ours.fetchAll(model: model, url: oursURL)) },
                { blackHole(try Grdb.fetchAll(url: grdbURL)) },
                { blackHole(try Ours.fetchAll(model: model, url: oursURL, asFaults: true)) },
            ])
        row("fetch all 100,000 (values loaded)", fetch, goal: "goal ≤ 1.5×")
        report(
            "fetch all 100,000 as faults (includesPropertyValues = NO)", seconds: fetch.median(3),
            ratio: fetch.ratio(3, to: 0), goal: "goal ≤ 0.5×")

        // Indexed predicate: 1,000 of 100,000 by `number`.
        let indexed = try Comparison(
            rounds: 15,
            [
                { blackHole(try Raw.fetchRange(url: rawURL)) },
                { blackHole(try Ours.fetchRange(model: model, url: oursURL)) },
                { blackHole(try Grdb.fetchRange(url: grdbURL)) },
            ])
        row("fetch 1,000 by an indexed attribute", indexed, goal: "goal ≤ 1.5×")

        // Update + save: every object's price.
        var price = 0.0
        let update = try Comparison(
            rounds: 5,
            [
                {
                    price += 1
                    try Raw.updateAll(url: rawURL, price: price)
                },
                {
                    price += 1
                    try Ours.updateAll(model: model, url: oursURL, price: price)
                },
                {
                    price += 1
                    try Grdb.updateAll(url: grdbURL, price: price)
                },
            ])
        row("update 100,000 + save", update, goal: "goal ≤ 2×")

        // Delete + save: each round deletes every object of stores filled for it (filled untimed).
        var toDelete: [URL] = []
        let delete = try Comparison(
            rounds: 3, warmUp: false,
            prepare: { _ in
                toDelete = [fresh("raw"), fresh("ours"), fresh("grdb")]
                try Raw.insert(url: toDelete[0])
                try Ours.insert(model: model, url: toDelete[1])
                try Grdb.insert(url: toDelete[2])
            },
            [
                { try Raw.deleteAll(url: toDelete[0]) }, { try Ours.deleteAll(model: model, url: toDelete[1]) },
                { try Grdb.deleteAll(url: toDelete[2]) },
            ])
        row("delete 100,000 + save (3 rounds)", delete, goal: "goal ≤ 2×")

        // Memory of 100,000 faults fetched from the store.
        let memoryURL = fresh("memory")
        try Ours.insert(model: model, url: memoryURL)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: memoryURL)
        let context = ManagedObjectContext(coordinator: coordinator)
        let before = ObjectGraphBenchmarks.heapBytes()
        var request = FetchRequest(entityName: "Item")
        request.returnsObjectsAsFaults = true
        let faults = try context.fetch(request)
        let faultBytes = ObjectGraphBenchmarks.heapBytes() - before
        print(
            String(
                format:
                    "100,000 faults from a default fetch (rows read, row cache bounded) hold %.1f MB of heap (goal < 64 MB)",
                Double(faultBytes) / 1_048_576))
        blackHole(faults)
    }

    /// Prints a row of a comparison of raw C API (body 0), docutil (body 1) and GRDB (body 2): docutil's median
    /// time and its ratio to raw, then raw's and GRDB's times and docutil's ratio to GRDB (medians of the rounds).
    static func row(_ name: String, _ comparison: Comparison, goal: String) {
        report(name, seconds: comparison.median(1), ratio: comparison.ratio(1, to: 0), goal: goal)
        let raw = String(format: "%8.2f ms", comparison.median(0) * 1000)
        let grdb = String(
            format: "GRDB %8.2f ms (ours %.2f× GRDB)", comparison.median(2) * 1000, comparison.ratio(1, to: 2))
        print("    raw C API \(raw)   \(grdb)")
    }

    /// Runs one operation of the block `times` times on one store, for a profiler.
    static func profile(_ operation: String, times: Int) throws {
        SQLiteStore.register()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "docutil-bench-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try model()
        let url = directory.appendingPathComponent("profile.sqlite")
        try Ours.insert(model: model, url: url)
        let rawURL = directory.appendingPathComponent("raw.sqlite")
        if operation.hasPrefix("raw-") { try Raw.insert(url: rawURL) }
        for round in 0..<times {
            switch operation {
            // The raw C API's side of the same work, for instruction ratios (`valgrind --tool=callgrind`).
            case "raw-fetch": blackHole(try Raw.fetchAll(url: rawURL))
            case "raw-indexed": blackHole(try Raw.fetchRange(url: rawURL))
            case "raw-insert": try Raw.insert(url: directory.appendingPathComponent("raw\(round).sqlite"))
            case "raw-update": try Raw.updateAll(url: rawURL, price: Double(round))
            case "raw-delete":
                let fresh = directory.appendingPathComponent("raw\(round).sqlite")
                try Raw.insert(url: fresh)
                try Raw.deleteAll(url: fresh)
            case "fetch": blackHole(try Ours.fetchAll(model: model, url: url))
            case "faults": blackHole(try Ours.fetchAll(model: model, url: url, asFaults: true))
            case "indexed": blackHole(try Ours.fetchRange(model: model, url: url))
            case "insert": try Ours.insert(model: model, url: directory.appendingPathComponent("\(round).sqlite"))
            case "update": try Ours.updateAll(model: model, url: url, price: Double(round))
            case "delete":
                let fresh = directory.appendingPathComponent("\(round).sqlite")
                try Ours.insert(model: model, url: fresh)
                try Ours.deleteAll(model: model, url: fresh)
            default: throw CocoaError(.featureUnsupported)
            }
        }
    }

    // MARK: - docutil

    enum Ours {
        static func stack(model: ManagedObjectModel, url: URL) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            context.undoManager = nil
            return context
        }

        static func insert(model: ManagedObjectModel, url: URL) throws {
            let context = try stack(model: model, url: url)
            let group = try context.insertNewObject(forEntityName: "Group")
            try group.setAttributeValue(.string("all"), forKey: "title")
            for i in 0..<count {
                let item = try context.insertNewObject(forEntityName: "Item")
                try ObjectGraphBenchmarks.setValues(i, on: item)
                try item.setObject(group, forKey: "group")
            }
            try context.save()
        }

        static func fetchAll(model: ManagedObjectModel, url: URL, asFaults: Bool = false) throws -> [ManagedObject] {
            let context = try stack(model: model, url: url)
            var request = FetchRequest(entityName: "Item")
            request.returnsObjectsAsFaults = asFaults
            // Faults proper: only the IDs are read, rows come when a fault fires.
            request.includesPropertyValues = !asFaults
            let objects = try context.fetch(request)
            precondition(objects.count == count)
            if !asFaults { for object in objects { blackHole(try object.attributeValue(forKey: "name")) } }
            return objects
        }

        static func fetchRange(model: ManagedObjectModel, url: URL) throws -> [ManagedObject] {
            let context = try stack(model: model, url: url)
            var request = FetchRequest(
                entityName: "Item", predicate: try ObjectPredicate(format: "number >= 50000 AND number < 51000"))
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            precondition(objects.count == 1000)
            for object in objects { blackHole(try object.attributeValue(forKey: "name")) }
            return objects
        }

        static func updateAll(model: ManagedObjectModel, url: URL, price: Double) throws {
            let context = try stack(model: model, url: url)
            var request = FetchRequest(entityName: "Item")
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) { try object.setAttributeValue(.double(price), forKey: "price") }
            try context.save()
        }

        static func deleteAll(model: ManagedObjectModel, url: URL) throws {
            let context = try stack(model: model, url: url)
            var request = FetchRequest(entityName: "Item")
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) { context.delete(object) }
            try context.save()
        }
    }

    // MARK: - Raw C API

    /// The same table shape as the store's (primary key, entity, version, ten columns, the to-one key and its
    /// index, an index on `number`) in a file made as the store's (incremental auto-vacuum, WAL), written and read
    /// with prepared statements.
    enum Raw {
        final class Connection {
            var db: OpaquePointer?
            init(_ url: URL, creating: Bool = false) throws {
                guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK
                else { throw BenchError.sqlite("open") }
                // A new file is made as Core Data's are (and the store's must be): incremental auto-vacuum, whose
                // pointer-map pages each page split updates. Set before WAL (afterwards a new file keeps none).
                if creating { try exec("PRAGMA auto_vacuum = INCREMENTAL") }
                try exec("PRAGMA journal_mode = WAL")
            }
            deinit { sqlite3_close_v2(db) }
            func exec(_ sql: String) throws {
                guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                    throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
                }
            }
            func prepare(_ sql: String) throws -> OpaquePointer? {
                var statement: OpaquePointer?
                guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                    throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
                }
                return statement
            }
        }

        struct Item {
            var pk: Int64, name: String, number: Int64, price: Double, created: Double, done: Bool, rank: Int32
            var note: String, ratio: Float, small: Int16, code: String, group: Int64
        }

        static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        static func insert(url: URL) throws {
            let c = try Connection(url, creating: true)
            try c.exec(
                """
                CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDONE INTEGER, \
                ZNUMBER INTEGER, ZRANK INTEGER, ZSMALL INTEGER, ZGROUP INTEGER, ZCREATED TIMESTAMP, ZPRICE FLOAT, \
                ZRATIO FLOAT, ZCODE VARCHAR, ZNAME VARCHAR, ZNOTE VARCHAR);
                CREATE INDEX ZITEM_ZGROUP_INDEX ON ZITEM (ZGROUP);
                CREATE INDEX Z_Item_number ON ZITEM (ZNUMBER);
                CREATE TABLE ZGROUP (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
                """)
            try c.exec("BEGIN IMMEDIATE")
            try c.exec("INSERT INTO ZGROUP VALUES (1, 2, 1, 'all')")
            let insert = try c.prepare("INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)")
            defer { sqlite3_finalize(insert) }
            for i in 0..<count {
                sqlite3_bind_int64(insert, 1, Int64(i + 1))
                sqlite3_bind_int64(insert, 2, i % 2 == 0 ? 1 : 0)
                sqlite3_bind_int64(insert, 3, Int64(i))
                sqlite3_bind_int64(insert, 4, Int64(i % 1000))
                sqlite3_bind_int64(insert, 5, 7)
                sqlite3_bind_double(insert, 6, Double(i))
                sqlite3_bind_double(insert, 7, Double(i) / 3)
                sqlite3_bind_double(insert, 8, 0.5)
                sqlite3_bind_text(insert, 9, "C\(i)", -1, transient)
                sqlite3_bind_text(insert, 10, "item number \(i)", -1, transient)
                sqlite3_bind_text(insert, 11, "n\(i % 100)", -1, transient)
                guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite("insert") }
                sqlite3_reset(insert)
            }
            try c.exec("COMMIT")
        }

        static func read(_ statement: OpaquePointer?) -> Item {
            Item(
                pk: sqlite3_column_int64(statement, 0), name: String(cString: sqlite3_column_text(statement, 12)),
                number: sqlite3_column_int64(statement, 4), price: sqlite3_column_double(statement, 9),
                created: sqlite3_column_double(statement, 8), done: sqlite3_column_int64(statement, 3) != 0,
                rank: Int32(sqlite3_column_int64(statement, 5)),
                note: String(cString: sqlite3_column_text(statement, 13)),
                ratio: Float(sqlite3_column_double(statement, 10)), small: Int16(sqlite3_column_int64(statement, 6)),
                code: String(cString: sqlite3_column_text(statement, 11)), group: sqlite3_column_int64(statement, 7))
        }

        static func query(_ url: URL, _ sql: String, _ bind: (OpaquePointer?) -> Void = { _ in }) throws -> [Item] {
            let c = try Connection(url)
            let statement = try c.prepare(sql)
            defer { sqlite3_finalize(statement) }
            bind(statement)
            var items: [Item] = []
            while sqlite3_step(statement) == SQLITE_ROW { items.append(read(statement)) }
            return items
        }

        static func fetchAll(url: URL) throws -> [Item] {
            let items = try query(url, "SELECT * FROM ZITEM")
            precondition(items.count == count)
            return items
        }

        static func fetchRange(url: URL) throws -> [Item] {
            let items = try query(url, "SELECT * FROM ZITEM WHERE ZNUMBER >= ? AND ZNUMBER < ?") {
                sqlite3_bind_int64($0, 1, 50_000)
                sqlite3_bind_int64($0, 2, 51_000)
            }
            precondition(items.count == 1000)
            return items
        }

        static func updateAll(url: URL, price: Double) throws {
            try eachRow(url, "UPDATE ZITEM SET ZPRICE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?") { statement, item in
                sqlite3_bind_double(statement, 1, price)
                sqlite3_bind_int64(statement, 2, item.pk)
            }
        }

        static func deleteAll(url: URL) throws {
            try eachRow(url, "DELETE FROM ZITEM WHERE Z_PK = ?") { statement, item in
                sqlite3_bind_int64(statement, 1, item.pk)
            }
        }

        /// Reads every item, then runs one statement per item in one transaction (what a save does).
        static func eachRow(_ url: URL, _ sql: String, bind: (OpaquePointer?, Item) -> Void) throws {
            let items = try fetchAll(url: url)
            let c = try Connection(url)
            try c.exec("BEGIN IMMEDIATE")
            let statement = try c.prepare(sql)
            defer { sqlite3_finalize(statement) }
            for item in items {
                bind(statement, item)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.sqlite(sql) }
                sqlite3_reset(statement)
            }
            try c.exec("COMMIT")
        }
    }

    // MARK: - GRDB

    enum Grdb {
        struct Item: Codable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "item"
            var id: Int64
            var name: String
            var number: Int64
            var price: Double
            var created: Date
            var done: Bool
            var rank: Int32
            var note: String
            var ratio: Float
            var small: Int16
            var code: String
            var groupId: Int64
        }

        static func pool(_ url: URL) throws -> DatabasePool {
            try DatabasePool(path: url.path)
        }

        static func insert(url: URL) throws {
            let pool = try pool(url)
            try pool.write { db in
                try db.create(table: "group") { t in
                    t.primaryKey("id", .integer)
                    t.column("title", .text)
                }
                try db.create(table: "item") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text)
                    t.column("number", .integer).indexed()
                    t.column("price", .double)
                    t.column("created", .datetime)
                    t.column("done", .boolean)
                    t.column("rank", .integer)
                    t.column("note", .text)
                    t.column("ratio", .double)
                    t.column("small", .integer)
                    t.column("code", .text)
                    t.belongsTo("group")
                }
            }
            try pool.write { db in
                try db.execute(sql: "INSERT INTO \"group\" (id, title) VALUES (1, 'all')")
                for i in 0..<count {
                    try Item(
                        id: Int64(i + 1), name: "item number \(i)", number: Int64(i), price: Double(i) / 3,
                        created: Date(timeIntervalSinceReferenceDate: Double(i)), done: i % 2 == 0,
                        rank: Int32(i % 1000),
                        note: "n\(i % 100)", ratio: 0.5, small: 7, code: "C\(i)", groupId: 1
                    ).insert(db)
                }
            }
        }

        static func fetchAll(url: URL) throws -> [Item] {
            let items = try pool(url).read { db in try Item.fetchAll(db) }
            precondition(items.count == count)
            return items
        }

        static func fetchRange(url: URL) throws -> [Item] {
            let items = try pool(url).read { db in
                try Item.filter(Column("number") >= 50_000 && Column("number") < 51_000).fetchAll(db)
            }
            precondition(items.count == 1000)
            return items
        }

        static func updateAll(url: URL, price: Double) throws {
            let pool = try pool(url)
            let items = try pool.read { db in try Item.fetchAll(db) }
            try pool.write { db in
                for var item in items {
                    item.price = price
                    try item.update(db)
                }
            }
        }

        static func deleteAll(url: URL) throws {
            let pool = try pool(url)
            let items = try pool.read { db in try Item.fetchAll(db) }
            try pool.write { db in
                for item in items { try item.delete(db) }
            }
        }
    }
}

enum BenchError: Error {
    case sqlite(String)
}
