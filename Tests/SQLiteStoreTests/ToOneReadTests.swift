import CSQLite
import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A fetch makes one ID for a run of rows pointing at the same destination: each row must still get exactly the
/// destination its own columns name (key and, into a hierarchy, entity number), and a bad key is still an error.
struct ToOneReadTests {
    /// Owners with a to-one `pet` into a hierarchy (Animal, Dog) stored in one table, and a to-one `home` to a plain
    /// entity.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Animal", attributes: [AttributeDescription(name: "name", type: .string)],
                    relationships: [
                        RelationshipDescription(name: "owners", destination: "Owner", inverse: "pet", toMany: true)
                    ]),
                EntityDescription(name: "Dog", parent: "Animal"),
                EntityDescription(
                    name: "Home", attributes: [AttributeDescription(name: "name", type: .string)],
                    relationships: [
                        RelationshipDescription(name: "owners", destination: "Owner", inverse: "home", toMany: true)
                    ]),
                EntityDescription(
                    name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                    relationships: [
                        RelationshipDescription(name: "pet", destination: "Animal", inverse: "owners"),
                        RelationshipDescription(name: "home", destination: "Home", inverse: "owners"),
                    ]),
            ],
            configurations: [])
    }

    /// The pets and homes of owners O0…O7, in that order: runs of one destination, changes, and none.
    static let pets = ["rex", "rex", "tom", "tom", "rex", nil, "tom", "tom"]
    static let homes = ["h1", "h1", "h1", "h2", nil, "h2", "h1", "h1"]

    static func store() throws -> URL {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("owners.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try model())
        let store = try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var named: [String: ManagedObject] = [:]
        for (name, entity) in [("rex", "Dog"), ("tom", "Animal"), ("h1", "Home"), ("h2", "Home")] {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setAttributeValue(.string(name), forKey: "name")
            named[name] = object
        }
        for i in pets.indices {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setAttributeValue(.string("O\(i)"), forKey: "name")
            if let pet = pets[i] { try owner.setObject(named[pet], forKey: "pet") }
            if let home = homes[i] { try owner.setObject(named[home], forKey: "home") }
        }
        try context.save()
        store.close()
        return url
    }

    /// Each owner's (pet, home) IDs as "Entity/name" of the destination row, read by a fresh read-only context (by
    /// `contexts` fresh contexts in turn, the later ones filled from the rows the first fetch cached).
    static func destinations(_ url: URL, contexts: Int = 1) throws -> [[String?]] {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url, options: ["readOnly": "YES"])
        var read: [[String?]] = []
        for _ in 0..<contexts { read = try destinations(in: ManagedObjectContext(coordinator: coordinator)) }
        return read
    }

    /// Each owner's (pet, home) IDs as "Entity/name" of the destination row, fetched by `context`.
    static func destinations(in context: ManagedObjectContext) throws -> [[String?]] {
        var request = FetchRequest(entityName: "Owner")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name")]
        return try context.fetch(request).map { owner in
            try ["pet", "home"].map { key in
                guard let destination = try owner.object(forKey: key) else { return nil }
                guard case .string(let name) = try destination.attributeValue(forKey: "name") else { return "?" }
                return "\(destination.objectID.entityName)/\(name)"
            }
        }
    }

    /// The column names of a table.
    static func columns(_ url: URL, table: String) throws -> [String] {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
            sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('\(table)')", -1, &statement, nil) == SQLITE_OK
        else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path]) }
        var names: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
            names.append(String(cString: text))
        }
        return names
    }

    /// Rows that point where the row before did share one list of relationships: each row's snapshot, kept in the
    /// row cache and read again by a second context, still holds its own destinations after the rows that follow it.
    @Test(arguments: [1, 2])
    func eachRowGetsTheDestinationItsColumnsName(contexts: Int) throws {
        let read = try Self.destinations(try Self.store(), contexts: contexts)
        let expected = Self.pets.indices.map { i in
            [Self.pets[i].map { $0 == "rex" ? "Dog/\($0)" : "Animal/\($0)" }, Self.homes[i].map { "Home/\($0)" }]
        }
        #expect(read == expected)
    }

    @Test func aRowWhoseEntityNumberDiffersFromTheRowBeforeGetsItsOwn() throws {
        let url = try Self.store()
        // The pet's entity column (Z<n>PET) beside its key column (ZPET).
        let entityColumn = try #require(
            try Self.columns(url, table: "ZOWNER").first { $0.hasSuffix("PET") && $0 != "ZPET" })
        let animal = try scalar(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Animal'")
        // O1 points at rex's key like O0, but names the entity Animal (a malformed file): its ID says Animal.
        try execute(url, "UPDATE ZOWNER SET \(entityColumn) = \(animal) WHERE ZNAME = 'O1'")
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url, options: ["readOnly": "YES"])
        var request = FetchRequest(entityName: "Owner")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name")]
        let context = ManagedObjectContext(coordinator: coordinator)
        let owners = try context.fetch(request)
        let pets = try owners.prefix(2).flatMap { try $0.objectIDs(forKey: "pet") }
        #expect(pets.map(\.entityName) == ["Dog", "Animal"])
        #expect(pets[0].primaryKey == pets[1].primaryKey)
    }

    @Test(arguments: [
        ("UPDATE ZOWNER SET ZPET = ZPET + 0.5 WHERE ZNAME = 'O1'", "keys (Z_PK) are positive"),
        ("UPDATE ZOWNER SET ZHOME = ZHOME + 0.5 WHERE ZNAME = 'O1'", "not an object key"),
        ("UPDATE ZOWNER SET ZHOME = 'x' WHERE ZNAME = 'O2'", "not an object key"),
    ])
    func aBadKeyAfterAGoodOneIsStillAnError(sql: String, expected: String) throws {
        let url = try Self.store()
        try execute(url, sql)
        do {
            _ = try Self.destinations(url)
            Issue.record("\(sql) read without an error")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}
