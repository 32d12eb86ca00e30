import CSQLiteFuzz
import Foundation
import FuzzSupport
import ModelFiles
import ObjectGraph
import SQLiteStore

/// SQLite stores whose Core Data tables hold mutated rows: a store written by docutil for the fuzz model, then
/// changed by the input — wrong types, negative and huge numbers, unknown Z_ENT, NULL and dangling keys, garbage
/// metadata and model-cache blobs, deleted and duplicated rows — and read whole, leniently and strictly, checked
/// (`docutil check`), then edited and saved.
/// Kept as bytes, not `Data`: LeakSanitizer cannot see through `Data`'s packed representation in a global and
/// reports its storage as leaked.
let template: [UInt8] = {
    SQLiteStore.register()
    let url = FuzzSupport.scratchFile("template.sqlite")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    do {
        let coordinator = PersistentStoreCoordinator(model: FuzzSupport.model)
        let store = try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let owner = try context.insertNewObject(forEntityName: "Owner")
        try owner.setAttributeValue(.string("Olga"), forKey: "name")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try tag.setAttributeValue(.string("red"), forKey: "label")
        var previous: ManagedObject?
        for i in 0..<4 {
            let item = try context.insertNewObject(forEntityName: i == 3 ? "SpecialItem" : "Item")
            try item.setAttributeValue(.integer16(Int16(i)), forKey: "small")
            try item.setAttributeValue(.integer32(Int32(i * 1000)), forKey: "medium")
            try item.setAttributeValue(.integer64(Int64(i) << 40), forKey: "large")
            try item.setAttributeValue(.decimal(Decimal(string: "12.5")!), forKey: "price")
            try item.setAttributeValue(.double(0.25), forKey: "ratio")
            try item.setAttributeValue(.float(1.5), forKey: "weight")
            try item.setAttributeValue(.string("item \(i)"), forKey: "name")
            try item.setAttributeValue(.boolean(i % 2 == 0), forKey: "flag")
            try item.setAttributeValue(.date(Date(timeIntervalSinceReferenceDate: Double(i))), forKey: "created")
            try item.setAttributeValue(.binary(Data([1, 2, 3])), forKey: "blob")
            try item.setAttributeValue(.uuid(UUID()), forKey: "uuid")
            try item.setAttributeValue(.uri(URL(string: "https://example.com/\(i)")!), forKey: "link")
            try item.setAttributeValue(.composite(["x": .double(1), "y": .double(2)]), forKey: "where")
            try item.setObject(owner, forKey: "owner")
            try item.mutableObjects(forKey: "tags").add(tag)
            if let previous { try previous.mutableObjects(forKey: "parts").add(item) }
            previous = item
        }
        try context.save()
        (store as? SQLiteStore)?.close()
        let handle = try SQLiteDatabaseFile(path: url.path)
        handle.execute("PRAGMA journal_mode = DELETE")
        handle.close()
        // Not Data(contentsOf:), which leaks in swift-corelibs-foundation.
        return [UInt8](try FileKind.readRegularFile(url))
    } catch {
        fatalError("cannot make the template store: \(error)")
    }
}()

/// A raw connection for mutating the store.
final class SQLiteDatabaseFile {
    var handle: OpaquePointer?
    init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw CocoaError(.fileReadUnknown)
        }
    }
    func execute(_ sql: String) { sqlite3_exec(handle, sql, nil, nil, nil) }
    func column(names table: String) -> [String] {
        var names: [String] = []
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "PRAGMA table_info(\"\(table)\")", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 1) { names.append(String(cString: text)) }
        }
        sqlite3_finalize(statement)
        return names
    }
    func tables() -> [String] {
        var names: [String] = []
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            handle, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 0) { names.append(String(cString: text)) }
        }
        sqlite3_finalize(statement)
        return names
    }
    /// Sets one cell (by row position) to a value bound from the input.
    func set(table: String, column: String, row: Int, bind: (OpaquePointer?) -> Void) {
        var statement: OpaquePointer?
        let sql =
            "UPDATE \"\(table)\" SET \"\(column)\" = ? WHERE rowid = (SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(row))"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return }
        bind(statement)
        sqlite3_step(statement)
        sqlite3_finalize(statement)
    }
    func close() { sqlite3_close(handle) }
}

let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

struct Input {
    var bytes: [UInt8]
    var position = 0
    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }
    mutating func take(_ n: Int) -> [UInt8] {
        let end = min(bytes.count, position + n)
        defer { position = end }
        return Array(bytes[position..<end])
    }
    mutating func int64() -> Int64 {
        take(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }
}

let file = FuzzSupport.scratchFile("store.sqlite")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
    guard FileManager.default.createFile(atPath: file.path, contents: Data(template)) else {
        fatalError("fuzz harness: cannot write the scratch file \(file.path)")
    }
    var input = Input(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    guard let database = try? SQLiteDatabaseFile(path: file.path) else { return 0 }
    let tables = database.tables()
    var columns: [String: [String]] = [:]
    for table in tables { columns[table] = database.column(names: table) }
    var operations = 0
    while let op = input.byte(), operations < 32 {
        operations += 1
        guard let t = input.byte(), let c = input.byte(), let r = input.byte() else { break }
        let table = tables[Int(t) % tables.count]
        let names = columns[table] ?? []
        switch op % 8 {
        case 7:
            database.execute(
                "DELETE FROM \"\(table)\" WHERE rowid = (SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(r % 8))")
            continue
        case 6:
            database.execute("INSERT INTO \"\(table)\" SELECT * FROM \"\(table)\" LIMIT 1 OFFSET \(r % 8)")
            continue
        default:
            break
        }
        guard !names.isEmpty else { continue }
        let column = names[Int(c) % names.count]
        let row = Int(r % 8)
        switch op % 8 {
        case 0: database.set(table: table, column: column, row: row) { sqlite3_bind_null($0, 1) }
        case 1:
            let value = input.int64()
            database.set(table: table, column: column, row: row) { sqlite3_bind_int64($0, 1, value) }
        case 2:
            let small: [Int64] = [-1, 0, 1, 2, 99, 16001, Int64.max, Int64.min, 70000, 40000]
            let value = small[Int(input.byte() ?? 0) % small.count]
            database.set(table: table, column: column, row: row) { sqlite3_bind_int64($0, 1, value) }
        case 3:
            let value = Double(bitPattern: UInt64(bitPattern: input.int64()))
            database.set(table: table, column: column, row: row) { sqlite3_bind_double($0, 1, value) }
        case 4:
            let text = input.take(Int(input.byte() ?? 0))
            database.set(table: table, column: column, row: row) { statement in
                text.withUnsafeBufferPointer {
                    _ = sqlite3_bind_text(
                        statement, 1,
                        UnsafeRawPointer($0.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                            .assumingMemoryBound(to: CChar.self), Int32($0.count), transient)
                }
            }
        default:
            let blob = input.take(Int(input.byte() ?? 0))
            database.set(table: table, column: column, row: row) { statement in
                blob.withUnsafeBytes {
                    _ = sqlite3_bind_blob(
                        statement, 1, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), transient)
                }
            }
        }
    }
    database.close()
    _ = try? SQLiteStoreFile(url: file).entityCounts
    for options in [["readOnly": "YES"], ["readOnly": "YES", "lenientValues": "YES"], [:]] {
        let coordinator = PersistentStoreCoordinator(model: FuzzSupport.model)
        guard let store = try? coordinator.addPersistentStore(type: "SQLite", url: file, options: options) else {
            continue
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        FuzzSupport.readEverything(context)
        // Faults listed by key (each makes its ID when asked), in a context of their own, sorted so entities
        // interleave; counted; a few fired.
        let faulting = ManagedObjectContext(coordinator: coordinator)
        for entity in FuzzSupport.model.entities where entity.parentName == nil {
            var request = FetchRequest(entityName: entity.name)
            request.includesPropertyValues = false
            request.sortDescriptors = entity.attributes.first.map { [ObjectSortDescriptor(keyPath: $0.name)] } ?? []
            _ = try? faulting.count(for: request)
            for object in ((try? faulting.fetch(request)) ?? []).prefix(3) {
                _ = object.objectID.description
                _ = try? object.attributeValue(forKey: object.entity.attributes.first?.name ?? "")
            }
        }
        // Read strictly, every object can be copied into each store type (or the copy is refused).
        if options == ["readOnly": "YES"] { FuzzSupport.checkCopies(of: store, in: coordinator) }
        if options["lenientValues"] == "YES" {
            // What `docutil check` does: the store's SQL checks, then every object against the model's rules.
            _ = try? (store as? any CheckableStore)?.checkStructure(limit: 20)
            for name in FuzzSupport.model.entityNames {
                for object in (try? context.fetch(FetchRequest(entityName: name))) ?? [] {
                    _ = try? context.ruleViolations(of: object)
                }
            }
        }
        if options.isEmpty, let items = try? context.fetch(FetchRequest(entityName: "Item")) {
            for item in items.prefix(2) {
                try? item.setAttributeValue(.string("changed"), forKey: "name")
                _ = try? item.mutableObjects(forKey: "tags").removeAll()
            }
            _ = try? context.insertNewObject(forEntityName: "Tag")
            try? context.save()
        }
    }
    return 0
}
