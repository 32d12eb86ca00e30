import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A SQLite fetch hands each row to the context as it is read, and the context makes and fills the object then and
/// there, under the coordinator's lock: an app's `awakeFromFetch` (which may use the store) runs after the read, the
/// row count the store announces beforehand is the number of rows that follow, and the objects are the same as a
/// fetch through an array of snapshots gives.
/// (Serialized: two tests share `CountingItem.counts`.)
@Suite(.serialized) struct StreamedFetchTests {
    /// Counts the stored items from inside `awakeFromFetch`, which needs the coordinator.
    final class CountingItem: ManagedObject {
        nonisolated(unsafe) static var counts: [Int] = []
        override func awakeFromFetch() {
            guard let context = managedObjectContext else { return }
            do {
                Self.counts.append(try context.count(for: FetchRequest(entityName: "Item")))
            } catch {
                Self.counts.append(-1)
            }
        }
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "number", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Item", inverse: "owned"),
                    RelationshipDescription(name: "owned", destination: "Item", inverse: "owner", toMany: true),
                ]),
            EntityDescription(
                name: "SpecialItem", parent: "Item",
                attributes: [AttributeDescription(name: "flair", type: .string)]),
        ])
    }

    /// A store of `items` items and `specials` special items, numbered in turn.
    static func store(items: Int, specials: Int) throws -> (PersistentStoreCoordinator, SQLiteStore) {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("streamed.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try model())
        let store = try #require(
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        var first: ManagedObject? = nil
        for i in 0..<(items + specials) {
            let item = try context.insertNewObject(forEntityName: i < items ? "Item" : "SpecialItem")
            try item.setAttributeValue(.integer64(Int64(i)), forKey: "number")
            try item.setAttributeValue(.string("item \(i)"), forKey: "name")
            // Every third item belongs to the first: rows with and without an owner follow each other.
            if let first, i % 3 == 0 { try item.setObject(first, forKey: "owner") }
            if first == nil { first = item }
            // Every other special item has a flair: a row without one follows a row with one.
            if i >= items, i % 2 == 0 { try item.setAttributeValue(.string("flair \(i)"), forKey: "flair") }
        }
        try context.save()
        return (coordinator, store)
    }

    @Test(.timeLimit(.minutes(1)))
    func awakeFromFetchMayUseTheStore() throws {
        let (coordinator, _) = try Self.store(items: 5, specials: 2)
        coordinator.registerClass(CountingItem.self, forEntityName: "Item")
        CountingItem.counts = []
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.includesSubentities = false
        let fetched = try context.fetch(request)
        #expect(fetched.count == 5)
        #expect(fetched.allSatisfy { $0 is CountingItem && !$0.isFault })
        // Each object woke once, after the read, and could ask the store (7 items with the special ones).
        #expect(CountingItem.counts == [7, 7, 7, 7, 7])
        // An object already filled is not woken again by a second fetch.
        _ = try context.fetch(request)
        #expect(CountingItem.counts.count == 5)
    }

    @Test(.timeLimit(.minutes(1)))
    func objectsFilledBeforeABadRowAreWokenOnce() throws {
        let (coordinator, store) = try Self.store(items: 6, specials: 0)
        // The fourth row's number is text: a strict read stops there.
        try store.database.run("UPDATE ZITEM SET ZNUMBER = 'four' WHERE Z_PK = 4")
        coordinator.registerClass(CountingItem.self, forEntityName: "Item")
        CountingItem.counts = []
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.includesSubentities = false
        #expect(throws: ContextError.self) { try context.fetch(request) }
        // The three objects filled before the bad row stay registered, filled, and were woken once each.
        let filled = context.registeredObjects.filter { !$0.isFault }
        #expect(filled.count == 3)
        #expect(CountingItem.counts == [6, 6, 6])
    }

    @Test func theStoreAnnouncesHowManyRowsFollow() throws {
        let (coordinator, store) = try Self.store(items: 30, specials: 12)
        var firstRequest = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 0"))
        firstRequest.includesSubentities = false
        let firstID = try #require(try ManagedObjectContext(coordinator: coordinator).fetch(firstRequest).first)
            .objectID
        func streamed(_ request: FetchRequest, _ entities: [String]) throws -> (announced: [Int], rows: [Int64]) {
            var announced: [Int] = []
            var rows: [Int64] = []
            try store.snapshots(for: request, entityNames: entities, expecting: { announced.append($0) }) { snapshot in
                rows.append(snapshot.objectID.primaryKey)
                // Each row's own values, though the store reads the next row into the same arrays.
                let i = snapshot.objectID.primaryKey - 1
                #expect(snapshot[attribute: "name"] == .string("item \(i)"))
                #expect(snapshot[toOne: "owner"] == .some(i > 0 && i % 3 == 0 ? firstID : nil))
                if snapshot.objectID.entityName == "SpecialItem" {
                    #expect(snapshot[attribute: "flair"] == (i % 2 == 0 ? .string("flair \(i)") : .null))
                }
                return false
            }
            return (announced, rows)
        }
        // Every row of the table, of one entity of it, and limited.
        let all = try streamed(FetchRequest(entityName: "Item"), ["Item", "SpecialItem"])
        #expect(all.announced == [42])
        #expect(all.rows.count == 42)
        let specials = try streamed(FetchRequest(entityName: "SpecialItem"), ["SpecialItem"])
        #expect(specials.announced == [12])
        #expect(specials.rows.count == 12)
        var plain = FetchRequest(entityName: "Item")
        plain.includesSubentities = false
        #expect(try streamed(plain, ["Item"]).announced == [30])
        var limited = FetchRequest(entityName: "Item")
        limited.storeLimit = 10
        let first = try streamed(limited, ["Item", "SpecialItem"])
        #expect(first.announced == [10])
        #expect(first.rows == Array(1...10))
        // A predicate: no count is made (it would cost a second pass); the rows are read before the first is handed
        // over (to put them in key order), and announced then.
        let matching = try streamed(
            FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number < 4")),
            ["Item", "SpecialItem"])
        #expect(matching.announced == [4])
        #expect(matching.rows == [1, 2, 3, 4])
        // With a limit, SQL orders them and hands them over as it reads them: nothing announced.
        var firstMatching = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number < 4"))
        firstMatching.storeLimit = 3
        let limitedMatching = try streamed(firstMatching, ["Item", "SpecialItem"])
        #expect(limitedMatching.announced.isEmpty)
        #expect(limitedMatching.rows == [1, 2, 3])
        // Snapshots kept while the rows are read keep their own values (the next row does not overwrite them), both
        // when the caller says it keeps them and when it does not (copy on write).
        for saysItKeeps in [true, false] {
            var kept: [ObjectSnapshot] = []
            try store.snapshots(
                for: FetchRequest(entityName: "Item"), entityNames: ["Item", "SpecialItem"], expecting: { _ in }
            ) {
                kept.append($0)
                return saysItKeeps
            }
            #expect(kept.count == 42)
            #expect(kept.allSatisfy { $0[attribute: "name"] == .string("item \($0.objectID.primaryKey - 1)") })
            #expect(kept.allSatisfy { $0[attribute: "number"] == .integer64($0.objectID.primaryKey - 1) })
        }
        let array = try store.snapshots(for: FetchRequest(entityName: "Item"), entityNames: ["Item", "SpecialItem"])
        #expect(array.map { $0[attribute: "name"] } == (0..<42).map { .string("item \($0)") })
    }

    /// A fetch of more rows than the coordinator's row cache holds (50,000) caches none: each object takes its row's
    /// buffer instead of a copy, and the store reads the next row into a new one. Every object holds its own row's
    /// values, and changing one changes no other.
    @Test func objectsTakingTheirRowsBuffersKeepTheirOwnValues() throws {
        let (coordinator, _) = try Self.store(items: 50_010, specials: 7)
        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(objects.count == 50_017)
        func number(_ object: ManagedObject) throws -> Int64 {
            guard case .integer64(let n) = try object.attributeValue(forKey: "number") else { return -1 }
            return n
        }
        var wrong = 0
        for object in objects {
            let n = try number(object)
            if try object.attributeValue(forKey: "name") != .string("item \(n)") { wrong += 1 }
            if n >= 50_010, n % 2 == 0, try object.attributeValue(forKey: "flair") != .string("flair \(n)") {
                wrong += 1
            }
        }
        #expect(wrong == 0)
        #expect(Set(try objects.map(number)).count == 50_017)
        // One object changed: its neighbours in the fetch keep their values; the change is saved.
        let middle = objects[25_000]
        let n = try number(middle)
        try middle.setAttributeValue(.string("changed"), forKey: "name")
        #expect(try objects[24_999].attributeValue(forKey: "name") == .string("item \(try number(objects[24_999]))"))
        #expect(try objects[25_001].attributeValue(forKey: "name") == .string("item \(try number(objects[25_001]))"))
        try context.save()
        let other = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == \(n)"))
        #expect(try other.fetch(request).map { try $0.attributeValue(forKey: "name") } == [.string("changed")])
    }

    /// Snapshots read by ID come in the order asked — keys out of order, an ID asked twice, one the store lacks left
    /// out — whatever order the store reads the rows in, each with its own row's values.
    @Test func snapshotsByIDComeInTheOrderAsked() throws {
        let (coordinator, store) = try Self.store(items: 10, specials: 3)
        let all = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Item"))
            .map(\.objectID)
        #expect(all.count == 13)
        let missing = ManagedObjectID(entityName: "Item", storeIdentifier: store.identifier, primaryKey: 999)
        let asked = [all[7], all[2], all[11], all[2], missing, all[0]]
        let read = try store.snapshots(for: asked)
        #expect(read.map(\.objectID) == [all[7], all[2], all[11], all[2], all[0]])
        for snapshot in read {
            #expect(snapshot[attribute: "name"] == .string("item \(snapshot.objectID.primaryKey - 1)"))
        }
        #expect(try store.snapshots(for: all).map(\.objectID) == all)
        #expect(try store.snapshots(for: all.reversed()).map(\.objectID) == all.reversed())
    }

    @Test func aStreamedFetchGivesEachObjectItsRowAndKeepsUnsavedChanges() throws {
        let (coordinator, _) = try Self.store(items: 20, specials: 5)
        let context = ManagedObjectContext(coordinator: coordinator)
        // One object already filled and changed, one registered as a fault: the fetch keeps the first's change and
        // fills the second from its row.
        var first = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 3"))
        first.includesSubentities = false
        let changed = try #require(try context.fetch(first).first)
        try changed.setAttributeValue(.string("changed"), forKey: "name")
        var faults = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 24"))
        faults.returnsObjectsAsFaults = true
        faults.includesPropertyValues = false
        let fault = try #require(try context.fetch(faults).first)
        #expect(fault.isFault)
        var sorted = FetchRequest(entityName: "Item")
        sorted.sortDescriptors = [ObjectSortDescriptor(parsing: "-number")]
        let objects = try context.fetch(sorted)
        #expect(objects.count == 25)
        #expect(objects.first === fault && !fault.isFault)
        #expect(objects.contains { $0 === changed })
        for object in objects {
            guard case .integer64(let n) = try object.attributeValue(forKey: "number") else {
                Issue.record("no number")
                continue
            }
            let name = try object.attributeValue(forKey: "name")
            #expect(name == .string(n == 3 ? "changed" : "item \(n)"))
            #expect(object.entityName == (n < 20 ? "Item" : "SpecialItem"))
        }
        #expect(
            try objects.map { object -> Int64 in
                guard case .integer64(let n) = try object.attributeValue(forKey: "number") else { return -1 }
                return n
            } == Array((0..<25).reversed()))
    }
}
