import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A save's updates reuse the last `UPDATE` while the entity and the changed columns stay the same, and make a new
/// one when either changes — also when the database let go of its prepared statements between two rows.
struct UpdateStatementTests {
    /// A store of 60 items and 40 special items, and a context holding all of them in `number` order.
    static func hundredItems() throws -> (SQLiteStore, URL, ManagedObjectContext, [ManagedObject]) {
        let (coordinator, store) = try StreamedFetchTests.store(items: 60, specials: 40)
        let url = try #require(store.description.url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "number")]
        let objects = try context.fetch(request)
        #expect(objects.count == 100)
        return (store, url, context, objects)
    }

    /// Updates of two entities, each changing one of two attributes in a pattern, in one save: every row holds its
    /// own new values afterwards (read by a fresh coordinator), and the others are untouched.
    @Test(arguments: [false, true])
    func mixedUpdatesLandOnTheirRows(flushingStatements: Bool) throws {
        let (store, url, context, objects) = try Self.hundredItems()
        var expected: [Int64: (number: Int64, name: String)] = [:]
        for i in objects.indices { expected[Int64(i)] = (Int64(i), "item \(i)") }
        func change(_ i: Int) throws {
            let object = objects[i]
            let number = Int64(i)
            switch i % 4 {
            case 0:
                try object.setAttributeValue(.integer64(number + 1000), forKey: "number")
                expected[number] = (number + 1000, "item \(i)")
            case 1:
                try object.setAttributeValue(.string("renamed \(i)"), forKey: "name")
                expected[number] = (number, "renamed \(i)")
            case 2:
                try object.setAttributeValue(.integer64(number + 2000), forKey: "number")
                try object.setAttributeValue(.string("both \(i)"), forKey: "name")
                expected[number] = (number + 2000, "both \(i)")
            default: break
            }
        }
        // A first save changes one column of some rows; the second starts with rows changing that same column
        // (the kept UPDATE applies), then mixes the others in.
        for i in stride(from: 0, to: 40, by: 4) { try change(i) }
        try context.save()
        if flushingStatements {
            // More distinct statements than the database keeps: it finalizes them all, the kept UPDATE included.
            for n in 0..<600 {
                _ = try store.database.query("SELECT \(n) FROM Z_PRIMARYKEY LIMIT 0")
            }
        }
        for i in stride(from: 40, to: 100, by: 4) { try change(i) }
        for i in objects.indices where i % 4 != 0 { try change(i) }
        try context.save()

        let reader = PersistentStoreCoordinator(model: try StreamedFetchTests.model())
        try reader.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let readingContext = ManagedObjectContext(coordinator: reader)
        let read = try readingContext.fetch(FetchRequest(entityName: "Item"))
        #expect(read.count == 100)
        var seen = 0
        for object in read {
            guard case .integer64(let number) = try object.attributeValue(forKey: "number"),
                case .string(let name) = try object.attributeValue(forKey: "name")
            else {
                Issue.record("\(object.objectID) lost its values")
                continue
            }
            let original = number >= 2000 ? number - 2000 : number >= 1000 ? number - 1000 : number
            guard let want = expected[original] else {
                Issue.record("\(object.objectID) holds number \(number), which no object had")
                continue
            }
            #expect(number == want.number && name == want.name, "\(object.objectID)")
            seen += 1
        }
        #expect(seen == 100)
    }

    /// Deletes of two entities in two saves (the database letting go of its statements in between, or not): exactly
    /// the deleted rows are gone.
    @Test(arguments: [false, true])
    func deletesTakeTheirRowsOnly(flushingStatements: Bool) throws {
        let (store, url, context, objects) = try Self.hundredItems()
        var kept = Set(0..<100)
        for i in stride(from: 1, to: 50, by: 3) {
            context.delete(objects[i])
            kept.remove(i)
        }
        try context.save()
        if flushingStatements {
            for n in 0..<600 {
                _ = try store.database.query("SELECT \(n) FROM Z_PRIMARYKEY LIMIT 0")
            }
        }
        for i in stride(from: 52, to: 100, by: 3) {
            context.delete(objects[i])
            kept.remove(i)
        }
        try context.save()

        let reader = PersistentStoreCoordinator(model: try StreamedFetchTests.model())
        try reader.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let readingContext = ManagedObjectContext(coordinator: reader)
        var numbers = Set<Int>()
        for object in try readingContext.fetch(FetchRequest(entityName: "Item")) {
            guard case .integer64(let number) = try object.attributeValue(forKey: "number") else {
                Issue.record("\(object.objectID) lost its number")
                continue
            }
            numbers.insert(Int(number))
        }
        #expect(numbers == kept)
    }
}
