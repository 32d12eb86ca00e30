import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A fetch's offset and limit reach SQL as a `LIMIT` of the rows the context needs when SQL selects and orders the
/// matches by itself, and the answer is what the whole fetch, offset and limited afterwards, gives: with and without
/// order, with a predicate, and with unsaved changes that remove stored matches or add new ones.
struct FetchLimitTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "number", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                ])
        ])
    }

    static func store(count: Int) throws -> (PersistentStoreCoordinator, SQLiteStore) {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("limit.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try model())
        let store = try #require(
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        // Numbers out of key order, so that an order by number differs from the table's.
        for i in 0..<count {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(.integer64(Int64((i * 7) % count)), forKey: "number")
            try item.setAttributeValue(.string("item \(i)"), forKey: "name")
        }
        try context.save()
        return (coordinator, store)
    }

    static func numbers(_ objects: [ManagedObject]) throws -> [Int64] {
        try objects.map { object in
            guard case .integer64(let n) = try object.attributeValue(forKey: "number") else { return -1 }
            return n
        }
    }

    /// The fetch with `offset` and `limit`, and the same fetch whole, sliced.
    static func both(
        _ context: ManagedObjectContext, _ request: FetchRequest, offset: Int, limit: Int
    ) throws -> (limited: [Int64], expected: [Int64]) {
        var limited = request
        limited.fetchOffset = offset
        limited.fetchLimit = limit
        let whole = try numbers(try context.fetch(request))
        let start = min(whole.count, offset)
        return (try numbers(try context.fetch(limited)), Array(whole[start..<min(whole.count, start + limit)]))
    }

    @Test func offsetAndLimitGoToSQL() throws {
        let (coordinator, store) = try Self.store(count: 50)
        let context = ManagedObjectContext(coordinator: coordinator)
        var sorted = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number >= 10"))
        sorted.sortDescriptors = [ObjectSortDescriptor(parsing: "-number")]
        for request in [FetchRequest(entityName: "Item"), sorted] {
            for (offset, limit) in [(0, 5), (3, 4), (45, 10), (60, 2)] {
                let (limited, expected) = try Self.both(context, request, offset: offset, limit: limit)
                #expect(limited == expected, "\(request.predicate?.description ?? "all") \(offset) \(limit)")
            }
        }
        #expect(try Self.numbers(try context.fetch(sorted)).prefix(3) == [49, 48, 47])
        // The rows needed (offset + limit), not every row, were asked of SQLite.
        #expect(store.database.statements.keys.contains { $0.hasSuffix(" LIMIT 7") })
        #expect(store.database.statements.keys.contains { $0.hasSuffix(" LIMIT 5") })
        // Faults only: the IDs come through the same statement.
        var faults = sorted
        faults.returnsObjectsAsFaults = true
        faults.includesPropertyValues = false
        faults.fetchLimit = 6
        #expect(try Self.numbers(try context.fetch(faults)) == [49, 48, 47, 46, 45, 44])
        #expect(store.database.statements.keys.contains { $0.contains("Z_PK, t0.Z_ENT") && $0.hasSuffix(" LIMIT 6") })
    }

    /// Offsets and limits up to Int.max, whose sums pass it, with and without unsaved changes: the fetch answers
    /// what slicing the whole answer gives (it trapped on the sum).
    @Test func offsetsAndLimitsNearIntMaxDoNotOverflow() throws {
        let (coordinator, _) = try Self.store(count: 20)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [ObjectSortDescriptor(parsing: "number")]
        for pending in [false, true] {
            if pending {
                try context.insertNewObject(forEntityName: "Item").setAttributeValue(.integer64(-1), forKey: "number")
            }
            for (offset, limit) in [(Int.max, Int.max), (1, Int.max), (Int.max, 1), (Int.max - 1, 2), (3, Int.max - 2)]
            {
                var limited = request
                limited.fetchOffset = offset
                limited.fetchLimit = limit
                let whole = try Self.numbers(try context.fetch(request))
                let start = min(whole.count, offset)
                let expected = Array(whole[start..<(start + min(whole.count - start, limit))])
                #expect(try Self.numbers(try context.fetch(limited)) == expected, "\(pending) \(offset) \(limit)")
            }
        }
    }

    @Test func unsavedChangesStillGiveTheWholeAnswer() throws {
        let (coordinator, _) = try Self.store(count: 50)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [ObjectSortDescriptor(parsing: "number")]
        let first = try context.fetch(request)
        // The three first matches deleted, the fourth moved to the end, a new one sorting first: the stored first
        // rows are not the first matches any more.
        for object in first.prefix(3) { context.delete(object) }
        try first[3].setAttributeValue(.integer64(1_000), forKey: "number")
        let inserted = try context.insertNewObject(forEntityName: "Item")
        try inserted.setAttributeValue(.integer64(-1), forKey: "number")
        for (offset, limit) in [(0, 3), (0, 5), (2, 4), (45, 10)] {
            let (limited, expected) = try Self.both(context, request, offset: offset, limit: limit)
            #expect(limited == expected, "\(offset) \(limit)")
        }
        let (head, _) = try Self.both(context, request, offset: 0, limit: 3)
        #expect(head == [-1, 4, 5])
        var unsorted = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number < 20"))
        unsorted.includesPendingChanges = true
        let (limited, expected) = try Self.both(context, unsorted, offset: 1, limit: 6)
        #expect(limited == expected)
    }
}
