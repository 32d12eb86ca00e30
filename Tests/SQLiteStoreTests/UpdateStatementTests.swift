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

    /// Sites with attributes before and after a composite, and a to-one into an entity with a sub-entity (a key and
    /// an entity-number column).
    static func siteModel() throws -> ManagedObjectModel {
        let point = CompositeDescription(
            name: "Point",
            attributes: [
                AttributeDescription(name: "latitude", type: .double),
                AttributeDescription(name: "longitude", type: .double),
            ])
        return try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Site",
                    attributes: [
                        AttributeDescription(name: "a", type: .string),
                        AttributeDescription(name: "spot", type: .composite, compositeName: "Point"),
                        AttributeDescription(name: "b", type: .integer64),
                        AttributeDescription(name: "note", type: .string, isTransient: true),
                        AttributeDescription(name: "c", type: .string),
                    ],
                    relationships: [RelationshipDescription(name: "parent", destination: "Site")]),
                EntityDescription(name: "Camp", parent: "Site"),
            ], composites: [point])
    }

    /// An update writes exactly the columns of the properties that changed — a composite's members, a to-one's key
    /// and entity number, attributes before and after them, in whatever order the changes were made — and leaves
    /// every other column as the file holds it (another program's write to one is kept).
    @Test func anUpdateWritesTheColumnsOfItsChangedPropertiesOnly() throws {
        let model = try Self.siteModel()
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("sites.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var sites: [ManagedObject] = []
        for i in 0..<4 {
            let site = try context.insertNewObject(forEntityName: "Site")
            try site.setAttributeValue(.string("a\(i)"), forKey: "a")
            try site.setAttributeValue(.integer64(Int64(i)), forKey: "b")
            try site.setAttributeValue(.string("c\(i)"), forKey: "c")
            sites.append(site)
        }
        let camp = try context.insertNewObject(forEntityName: "Camp")
        try camp.setAttributeValue(.string("camp"), forKey: "a")
        try context.save()
        // Another program writes column `a` of every site (keeping Z_OPT): no update below changes `a`.
        try execute(url, "UPDATE ZSITE SET ZA = 'elsewhere' WHERE ZA LIKE 'a%'")
        // Changes made in different orders, several per object.
        try sites[0].setAttributeValue(.string("c0 new"), forKey: "c")
        try sites[0].setAttributeValue(
            .composite(["latitude": .double(1.5), "longitude": .double(-2.5)]), forKey: "spot")
        try sites[1].setObject(camp, forKey: "parent")
        try sites[1].setAttributeValue(.integer64(100), forKey: "b")
        try sites[1].setAttributeValue(.string("c1 new"), forKey: "c")
        try sites[2].setAttributeValue(.string("kept in memory"), forKey: "note")
        try sites[2].setAttributeValue(.integer64(200), forKey: "b")
        try sites[3].setObject(sites[0], forKey: "parent")
        try context.save()

        func row(_ i: Int) -> Int64 { sites[i].objectID.primaryKey }
        #expect(try scalar(url, "SELECT count(*) FROM ZSITE WHERE ZA = 'elsewhere'") == 4)
        #expect(
            try scalar(url, "SELECT ZC = 'c0 new' AND ZB = 0 AND ZPARENT IS NULL FROM ZSITE WHERE Z_PK = \(row(0))")
                == 1)
        #expect(
            try scalar(url, "SELECT ZSPOT_LATITUDE = 1.5 AND ZSPOT_LONGITUDE = -2.5 FROM ZSITE WHERE Z_PK = \(row(0))")
                == 1)
        #expect(try scalar(url, "SELECT ZC = 'c1 new' AND ZB = 100 FROM ZSITE WHERE Z_PK = \(row(1))") == 1)
        #expect(try scalar(url, "SELECT ZPARENT FROM ZSITE WHERE Z_PK = \(row(1))") == camp.objectID.primaryKey)
        #expect(
            try scalar(
                url,
                "SELECT Z1_PARENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Camp') FROM ZSITE WHERE Z_PK = \(row(1))"
            )
                == 1)
        #expect(
            try scalar(
                url, "SELECT ZC = 'c2' AND ZB = 200 AND ZSPOT_LATITUDE IS NULL FROM ZSITE WHERE Z_PK = \(row(2))") == 1)
        #expect(try scalar(url, "SELECT ZPARENT FROM ZSITE WHERE Z_PK = \(row(3))") == row(0))
        #expect(try scalar(url, "SELECT ZC = 'c3' AND ZB = 3 FROM ZSITE WHERE Z_PK = \(row(3))") == 1)
    }
}
