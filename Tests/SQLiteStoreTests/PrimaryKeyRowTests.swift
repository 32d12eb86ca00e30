import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// Entities a store's `Z_PRIMARYKEY` does not name: a new entity gets a row on its first insert; an entity renamed by
/// a migration (Core Data keeps the row's old name) is found by its renaming identifier.
@Suite struct PrimaryKeyRowTests {
    static func model(_ entities: String) throws -> ManagedObjectModel {
        try ModelLoader.readContents(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\(entities)</model>
                """.utf8))
    }

    @Test func aNewEntityGetsItsRowOnItsFirstInsert() throws {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("cars.sqlite")
        let v1 = try Self.model(
            #"<entity name="Car"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
                + #"<entity name="Van" parentEntity="Car"/>"#)
        do {
            let coordinator = PersistentStoreCoordinator(model: v1)
            try coordinator.addPersistentStore(type: "SQLite", url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            try context.insertNewObject(forEntityName: "Car").setValue(.string("one"), forKey: "name")
            try context.save()
        }
        #expect(try scalar(url, "SELECT COUNT(*) FROM Z_PRIMARYKEY") == 2)
        // Version 2 adds a sub-entity (stored in Car's table): the store opens, reads, and writes it.
        let v2 = try Self.model(
            #"<entity name="Car"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
                + #"<entity name="Van" parentEntity="Car"/><entity name="Bus" parentEntity="Car"/>"#)
        let coordinator = PersistentStoreCoordinator(model: v2)
        try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Car")) == 1)
        #expect(try context.count(for: FetchRequest(entityName: "Bus")) == 0)
        // Reading added nothing.
        #expect(try scalar(url, "SELECT COUNT(*) FROM Z_PRIMARYKEY") == 2)
        try context.insertNewObject(forEntityName: "Bus").setValue(.string("two"), forKey: "name")
        try context.save()
        // The next free number, its parent's number, and keys from the root's row.
        #expect(try scalar(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Bus'") == 3)
        #expect(try scalar(url, "SELECT Z_SUPER FROM Z_PRIMARYKEY WHERE Z_NAME = 'Bus'") == 1)
        #expect(try scalar(url, "SELECT Z_ENT FROM ZCAR WHERE ZNAME = 'two'") == 3)
        #expect(try scalar(url, "SELECT Z_PK FROM ZCAR WHERE ZNAME = 'two'") == 2)
        let again = ManagedObjectContext(coordinator: coordinator)
        let buses = try again.fetch(FetchRequest(entityName: "Bus"))
        #expect(try buses.map { try $0.value(forKey: "name") } == [.string("two")])
    }

    /// CoreDataPlus's SampleModel_V2 store: its model renamed ExpensiveSportCar to LuxuryCar (renaming identifier);
    /// Z_PRIMARYKEY still names the old entity. Its objects read as LuxuryCar, and new ones are written with its
    /// number.
    @Test(.needsRealFixtures) func anEntityRenamedByAMigrationKeepsItsNumber() throws {
        SQLiteStore.register()
        let url = try Fixtures.copySQLiteStore(
            "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite")
        let model = try SQLiteStoreFile(url: url).storedModel().model
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "LuxuryCar")
        request.includesSubentities = false
        #expect(try context.count(for: request) == 5)
        #expect(try context.count(for: FetchRequest(entityName: "Car")) == 125)
        let car = try context.insertNewObject(forEntityName: "LuxuryCar")
        try car.setValue(.string("NEW-1"), forKey: "numberPlate")
        try context.save()
        #expect(try scalar(url, "SELECT Z_ENT FROM ZCAR WHERE ZNUMBERPLATE = 'NEW-1'") == 3)
        #expect(try scalar(url, "SELECT COUNT(*) FROM Z_PRIMARYKEY") == 4)
    }
}
