import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// A save's inserts of one entity are written as a run through one statement whose bindings are not cleared between
/// rows, each row binding every column: a value missing from a row (nil, no destination) is written as NULL, never
/// the row before's, whatever kind of value.
@Suite struct InsertRunTests {
    static let entities = """
        <entity name="Item">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="number" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="when" optional="YES" attributeType="Date"/>
            <attribute name="blob" optional="YES" attributeType="Binary"/>
            <relationship name="group" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Group" inverseName="items" inverseEntity="Group"/>
        </entity>
        <entity name="Group">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="group" inverseEntity="Item"/>
        </entity>
        """

    /// A model of `entities` (as `PrimaryKeyRowTests` makes them).
    static func model(_ entities: String) throws -> ManagedObjectModel { try PrimaryKeyRowTests.model(entities) }

    /// Objects written with the keys they had elsewhere (an XML store numbers every object from one counter) raise
    /// each root entity's `Z_MAX` to its highest key, whatever the order of the entities' runs: objects inserted
    /// after get keys of their own.
    @Test func keysGivenElsewhereRaiseEachRootsCounter() throws {
        SQLiteStore.register()
        XMLStore.register()
        let model = try Self.model(
            #"<entity name="Car"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
                + #"<entity name="Van" parentEntity="Car"/>"#
                + #"<entity name="Group"><attribute name="name" optional="YES" attributeType="String"/></entity>"#)
        let directory = try Fixtures.temporaryDirectory()
        let coordinator = PersistentStoreCoordinator(model: model)
        let xml = try coordinator.addPersistentStore(
            type: XMLStore.typeName, url: directory.appendingPathComponent("cars.xml"))
        let context = ManagedObjectContext(coordinator: coordinator)
        for (i, entity) in ["Group", "Car", "Van", "Group", "Car", "Van", "Van", "Group"].enumerated() {
            try context.insertNewObject(forEntityName: entity).setAttributeValue(
                .string("\(entity) \(i)"), forKey: "name")
        }
        try context.save()
        let url = directory.appendingPathComponent("cars.sqlite")
        let (_, mapping) = try coordinator.replacePersistentStore(xml, withCopyAt: url, type: SQLiteStore.typeName)
        context.adoptSavedChanges(mapping: mapping)
        let highestCar = try scalar(url, "SELECT MAX(Z_PK) FROM ZCAR")
        let highestGroup = try scalar(url, "SELECT MAX(Z_PK) FROM ZGROUP")
        #expect(highestCar > 5 && highestGroup > 5, "the copy keeps the XML store's keys")
        #expect(try scalar(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Car'") == highestCar)
        #expect(try scalar(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Group'") == highestGroup)
        // New objects of each root get keys past those.
        try context.insertNewObject(forEntityName: "Van").setAttributeValue(.string("new van"), forKey: "name")
        try context.insertNewObject(forEntityName: "Group").setAttributeValue(.string("new group"), forKey: "name")
        try context.save()
        #expect(try scalar(url, "SELECT Z_PK FROM ZCAR WHERE ZNAME = 'new van'") == highestCar + 1)
        #expect(try scalar(url, "SELECT Z_PK FROM ZGROUP WHERE ZNAME = 'new group'") == highestGroup + 1)
        #expect(try scalar(url, "SELECT COUNT(*) FROM ZCAR") == 6)
        #expect(try scalar(url, "SELECT COUNT(*) FROM ZGROUP") == 4)
    }

    /// Rows alternate between every value set and none, in one save: read back from a new coordinator, each row
    /// holds its own values.
    @Test func aRowWithoutAValueWritesNullAfterARowWithOne() throws {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("run.sqlite")
        let model = try Self.model(Self.entities)
        let count = 9
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: "SQLite", url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            let group = try context.insertNewObject(forEntityName: "Group")
            for i in 0..<count {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setAttributeValue(.integer64(Int64(i)), forKey: "number")
                guard i % 2 == 0 else { continue }
                try item.setAttributeValue(.string("item \(i) with a text longer than a few bytes"), forKey: "name")
                try item.setAttributeValue(.double(Double(i) / 3), forKey: "price")
                try item.setAttributeValue(.date(Date(timeIntervalSinceReferenceDate: Double(i))), forKey: "when")
                try item.setAttributeValue(.binary(Data(repeating: UInt8(i), count: 40)), forKey: "blob")
                try item.setObject(group, forKey: "group")
            }
            try context.save()
        }
        #expect(try scalar(url, "SELECT COUNT(*) FROM ZITEM WHERE ZNAME IS NULL") == Int64(count / 2))
        #expect(try scalar(url, "SELECT COUNT(*) FROM ZITEM WHERE ZGROUP IS NULL") == Int64(count / 2))
        #expect(try scalar(url, "SELECT COUNT(*) FROM ZITEM WHERE ZBLOB IS NULL") == Int64(count / 2))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "number")]
        let items = try context.fetch(request)
        #expect(items.count == count)
        for (i, item) in items.enumerated() {
            let set = i % 2 == 0
            #expect(try item.attributeValue(forKey: "number") == .integer64(Int64(i)))
            #expect(
                try item.attributeValue(forKey: "name")
                    == (set ? .string("item \(i) with a text longer than a few bytes") : .null), "row \(i)")
            #expect(try item.attributeValue(forKey: "price") == (set ? .double(Double(i) / 3) : .null), "row \(i)")
            #expect(
                try item.attributeValue(forKey: "when")
                    == (set ? .date(Date(timeIntervalSinceReferenceDate: Double(i))) : .null), "row \(i)")
            #expect(
                try item.attributeValue(forKey: "blob")
                    == (set ? .binary(Data(repeating: UInt8(i), count: 40)) : .null),
                "row \(i)")
            #expect((try item.object(forKey: "group") == nil) == !set, "row \(i)")
        }
    }
}
