import CSQLite
import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A fetch without sort descriptors returns its rows in key order. Without a limit, the rows are read as SQLite finds
/// them (through an index, in the index's order) and put in key order by their keys. With one, SQLite must order them:
/// when it would find them through an index and sort them, the keys are found first and the rows read by key instead
/// (the same objects in the same order, without the sort).
struct KeyOrderedReadTests {
    static func model() throws -> ManagedObjectModel {
        var number = AttributeDescription(name: "number", type: .integer64)
        number.isIndexed = true
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item", attributes: [number, AttributeDescription(name: "name", type: .string)]),
            EntityDescription(
                name: "SpecialItem", parent: "Item", attributes: [AttributeDescription(name: "flair", type: .string)]
            ),
        ])
    }

    /// 300 items, every third special, numbered downwards (the index's order is the reverse of the keys').
    static func store() throws -> (PersistentStoreCoordinator, SQLiteStore) {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("ordered.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try model())
        let store = try #require(
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        for i in 0..<300 {
            let item = try context.insertNewObject(forEntityName: i % 3 == 2 ? "SpecialItem" : "Item")
            try item.setAttributeValue(.integer64(Int64(1_000 - i)), forKey: "number")
            try item.setAttributeValue(.string("item \(i)"), forKey: "name")
        }
        try context.save()
        return (coordinator, store)
    }

    @Test func anIndexedRangeIsReadInKeyOrderWithoutSorting() throws {
        let (coordinator, store) = try Self.store()
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(
            entityName: "Item", predicate: try ObjectPredicate(format: "number >= 800 AND number < 900"))
        let fetched = try context.fetch(request)
        // Numbers fall as keys rise: key order is the numbers descending (the index would give them ascending).
        #expect(try FetchLimitTests.numbers(fetched) == Array((800...899).reversed()))
        #expect(fetched.map(\.objectID.primaryKey) == fetched.map(\.objectID.primaryKey).sorted())
        #expect(fetched.filter { $0.entity.name == "SpecialItem" }.count == 34)
        // Read without an order (no statement chosen by its plan).
        #expect(store.keyOrderedReads.isEmpty)

        // Only the sub-entity (a share of the table): the same.
        let specials = try context.fetch(
            FetchRequest(entityName: "SpecialItem", predicate: try ObjectPredicate(format: "number >= 800")))
        #expect(try FetchLimitTests.numbers(specials) == stride(from: 998, through: 800, by: -3).map { Int64($0) })

        // A limit keeps the first in key order: the statement reads the keys from the index first.
        request.fetchLimit = 5
        #expect(try FetchLimitTests.numbers(try context.fetch(request)) == [899, 898, 897, 896, 895])
        #expect(store.keyOrderedReads.count == 1)
        #expect(store.keyOrderedReads.values.allSatisfy { $0.contains("t0.Z_PK IN (SELECT t0.Z_PK FROM") })
    }

    @Test func aScanIsReadAsItIs() throws {
        let (coordinator, store) = try Self.store()
        let context = ManagedObjectContext(coordinator: coordinator)
        // Not indexed: the table is scanned in key order, nothing to sort.
        let fetched = try context.fetch(
            FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "name BEGINSWITH 'item 1'")))
        #expect(fetched.count == 111)
        #expect(fetched.map(\.objectID.primaryKey) == fetched.map(\.objectID.primaryKey).sorted())
        var limited = FetchRequest(
            entityName: "Item", predicate: try ObjectPredicate(format: "name BEGINSWITH 'item 1'"))
        limited.fetchLimit = 20
        let first = try context.fetch(limited)
        #expect(first.map(\.objectID) == fetched.prefix(20).map(\.objectID))
        #expect(store.keyOrderedReads.count == 1)
        #expect(store.keyOrderedReads.allSatisfy { $0.key == $0.value })
    }

    /// Whichever text is chosen, the rows are the same: each request's two texts read the same keys in the same order.
    @Test func bothTextsSelectTheSameRows() throws {
        let (_, store) = try Self.store()
        let requests = [
            ("Item", "number >= 800 AND number < 900", 100),
            ("SpecialItem", "number >= 800 AND number < 900", 34),
            ("SpecialItem", "number >= 800", 67),
            ("Item", "name CONTAINS '9' AND number < 990", 56),
        ]
        for (entity, format, count) in requests {
            let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
            let names = entity == "Item" ? ["Item", "SpecialItem"] : ["SpecialItem"]
            let selection = try #require(store.selection(for: request, entityNames: names, columns: "t0.*"))
            let byKey = try #require(selection.byKey)
            var rows: [[Int64]] = []
            for sql in [selection.sql, byKey] {
                var keys: [Int64] = []
                try store.database.query(sql, selection.bindings) { statement in
                    keys.append(sqlite3_column_int64(statement, 0))
                }
                rows.append(keys)
            }
            #expect(rows[0].count == count, "\(entity) where \(format)")
            #expect(rows[1] == rows[0], "\(entity) where \(format)")
        }
        // Only whole rows by a predicate in key order have the other text.
        let sorted = FetchRequest(
            entityName: "Item", predicate: try ObjectPredicate(format: "number > 5"),
            sortDescriptors: [ObjectSortDescriptor(keyPath: "number")])
        #expect(try #require(store.selection(for: sorted, entityNames: ["Item"], columns: "t0.*")).byKey == nil)
        let all = FetchRequest(entityName: "Item")
        #expect(try #require(store.selection(for: all, entityNames: ["Item"], columns: "t0.*")).byKey == nil)
        let keys = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number > 5"))
        #expect(try #require(store.selection(for: keys, entityNames: ["Item"], columns: "t0.Z_PK")).byKey == nil)
    }

    /// Every case of the predicate suite, on the people of the SQL equivalence suite with their values indexed: each
    /// request's two texts read the same keys in the same order (or fail alike), and SQLite's sorting plan makes the
    /// store take the other text for many of them.
    @Test func everyPredicateCaseReadsTheSameRowsEitherWay() throws {
        SQLiteStore.register()
        var model = try SQLPredicateEquivalenceTests.model()
        var entities = model.entities
        let person = try #require(entities.firstIndex { $0.name == "Person" })
        for (i, attribute) in entities[person].attributes.enumerated()
        where ["name", "age", "height", "city", "birthday", "nickname"].contains(attribute.name) {
            entities[person].attributes[i].isIndexed = true
        }
        model = try ManagedObjectModel(entities: entities, configurations: [])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("indexed-people.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try #require(try coordinator.addPersistentStore(type: "SQLite", url: url) as? SQLiteStore)
        try SQLPredicateEquivalenceTests.populate(ManagedObjectContext(coordinator: coordinator))
        func keys(_ sql: String, _ bindings: [SQLiteValue]) -> [Int64]? {
            var keys: [Int64] = []
            do {
                try store.database.query(sql, bindings) { statement in keys.append(sqlite3_column_int64(statement, 0)) }
            } catch {
                return nil
            }
            return keys
        }
        var other = 0
        for (format, _) in PredicateCases.evaluation {
            let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: format))
            guard let selection = store.selection(for: request, entityNames: ["Person"], columns: "t0.*"),
                let byKey = selection.byKey
            else { continue }
            #expect(keys(byKey, selection.bindings) == keys(selection.sql, selection.bindings), "\(format)")
            if try store.keyOrdered(selection.sql, byKey: byKey) == byKey { other += 1 }
        }
        #expect(other >= 10, "\(other) cases read by key")
    }
}
