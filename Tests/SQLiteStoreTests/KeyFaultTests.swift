import Foundation
import TestSupport
import Testing

@testable import ObjectGraph
@testable import SQLiteStore

/// A fetch of faults from a SQLite store reads keys and entity numbers, and the context makes each plain object
/// without an ID: the ID is made the first time it is asked for, and is the one the store names the row by. Uniquing,
/// firing, saving and counting see no difference.
struct KeyFaultTests {
    /// A registered subclass: its initializer is given an ID.
    final class KeyedItem: ManagedObject {}

    static func faultsRequest(sortedByName: Bool) -> FetchRequest {
        var request = FetchRequest(entityName: "Item")
        request.includesPropertyValues = false
        if sortedByName { request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name", ascending: false)] }
        return request
    }

    static func madeID(_ object: ManagedObject) -> Bool {
        if case .made = object.identity { return true }
        return false
    }

    /// Items and special items (one table) sorted by name: the keys come in many runs of either entity.
    @Test(arguments: [false, true])
    func faultsMakeTheirIDsWhenAsked(sortedByName: Bool) throws {
        let (coordinator, store) = try StreamedFetchTests.store(items: 300, specials: 200)
        let request = Self.faultsRequest(sortedByName: sortedByName)
        let expected = try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(request)
        #expect(expected.count == 500)
        let keys = try #require(try store.objectKeys(for: request, entityNames: ["Item", "SpecialItem"]))
        #expect(keys.objectIDs == expected)
        #expect(keys.entityNames.sorted() == ["Item", "SpecialItem"])

        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try context.fetch(request)
        #expect(objects.count == 500)
        #expect(objects.allSatisfy { $0.isFault })
        let anyMade = objects.contains { Self.madeID($0) }
        #expect(!anyMade, "an ID was made before it was asked for")
        #expect(objects.map(\.objectID) == expected)
        #expect(objects.allSatisfy { Self.madeID($0) })
        for object in objects {
            // Made once: asked again, the same instance.
            #expect(object.objectID === object.objectID)
            #expect(object.entity.name == object.objectID.entityName)
            #expect(context.registeredObject(for: object.objectID) === object)
        }
        let again = try context.fetch(request)
        #expect(zip(again, objects).allSatisfy { $0 === $1 })
        // Fired, each reads its own row (and version: every row was saved once).
        #expect(objects.allSatisfy { $0.storedVersion == 0 })
        for object in objects {
            let number = try #require(try object.value(forKey: "number", as: Int64.self))
            #expect(try object.value(forKey: "name", as: String.self) == "item \(number)")
            #expect(object.entity.name == (number < 300 ? "Item" : "SpecialItem"))
            #expect(object.storedVersion == 1)
        }
        #expect(objects.map(\.objectID) == expected)
        #expect(try context.count(for: request) == 500)
        var special = request
        special.entityName = "SpecialItem"
        #expect(try context.count(for: special) == 200)
    }

    /// A fault found first by key is the object an ID names later, and the other way round; a changed one saves.
    @Test func keysAndIDsFindTheSameObjects() throws {
        let (coordinator, _) = try StreamedFetchTests.store(items: 50, specials: 0)
        let context = ManagedObjectContext(coordinator: coordinator)
        let ids = try context.fetchObjectIDs(Self.faultsRequest(sortedByName: false))
        // Some objects registered by ID before the fetch of faults.
        let early = try ids.enumerated().filter { $0.offset % 7 == 0 }.map {
            try context.existingObject(with: $0.element)
        }
        let objects = try context.fetch(Self.faultsRequest(sortedByName: false))
        #expect(objects.count == 50)
        for (offset, object) in objects.enumerated() where offset % 7 == 0 { #expect(object === early[offset / 7]) }
        let changed = objects[3]
        #expect(!Self.madeID(changed))
        try changed.setAttributeValue(.string("renamed"), forKey: "name")
        try context.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.existingObject(with: ids[3]).value(forKey: "name", as: String.self) == "renamed")
    }

    /// A registered subclass is made with its ID, as before.
    @Test func aSubclassIsGivenItsID() throws {
        let (coordinator, _) = try StreamedFetchTests.store(items: 20, specials: 5)
        coordinator.registerClass(KeyedItem.self, forEntityName: "Item")
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = Self.faultsRequest(sortedByName: false)
        request.includesSubentities = false
        let objects = try context.fetch(request)
        #expect(objects.count == 20)
        #expect(objects.allSatisfy { $0 is KeyedItem && Self.madeID($0) })
    }

    /// Keys far beyond the others go to the registry's dictionary (their IDs made then), and a second fetch finds
    /// them there.
    @Test func farKeysAreFoundAgain() throws {
        let (coordinator, store) = try StreamedFetchTests.store(items: 10, specials: 0)
        let url = try #require(store.description.url)
        coordinator.removePersistentStore(store)
        let database = try SQLiteDatabase(path: url.path, readOnly: false)
        try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 5000000")
        database.close()
        let reopened = PersistentStoreCoordinator(model: try StreamedFetchTests.model())
        _ = try reopened.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let writer = ManagedObjectContext(coordinator: reopened)
        for i in 0..<10 {
            try writer.insertNewObject(forEntityName: "Item").setAttributeValue(.string("far \(i)"), forKey: "name")
        }
        try writer.save()

        let context = ManagedObjectContext(coordinator: reopened)
        let objects = try context.fetch(Self.faultsRequest(sortedByName: false))
        #expect(objects.count == 20)
        let keys = objects.map(\.objectID.primaryKey)
        #expect(keys.filter { $0 > 5_000_000 }.count == 10)
        #expect(context.registered.countInTables < 20, "the far keys should be in the dictionary")
        let again = try context.fetch(Self.faultsRequest(sortedByName: false))
        #expect(zip(again, objects).allSatisfy { $0 === $1 })
        for object in objects { #expect(context.registeredObject(for: object.objectID) === object) }
    }

    /// Keys at the edge of what an object keeps beside its flags (56 bits) and beyond it: each object has its row's ID
    /// and values, and its flags work as before.
    @Test func keysBeyondWhatFitsBesideTheFlagsMakeTheirIDsAtOnce() throws {
        let (coordinator, store) = try StreamedFetchTests.store(items: 5, specials: 0)
        // Neighbouring keys across the edge (they share the registry's table), and the largest key (alone, in its
        // dictionary).
        let edge: Int64 = (1 << 55) - 1
        let keys: [Int64] = [edge - 1, edge, edge + 1, edge + 2, .max]
        for (row, key) in zip(1..., keys) {
            try store.database.run("UPDATE ZITEM SET Z_PK = \(key) WHERE Z_PK = \(row)")
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try context.fetch(Self.faultsRequest(sortedByName: false))
        #expect(objects.count == 5)
        #expect(objects.prefix(4).map { Self.madeID($0) } == [false, false, true, true])
        // Deleted (which makes its ID), an object made from a key keeps both.
        let plain = objects[1]
        context.delete(plain)
        #expect(plain.isDeleted)
        #expect(objects.map(\.objectID.primaryKey) == keys)
        #expect(plain.isDeleted)
        for (object, number) in zip(objects, 0...) {
            #expect(context.registeredObject(for: object.objectID) === object)
            #expect(try object.value(forKey: "name", as: String.self) == "item \(number)")
            #expect(object.storedVersion == 1)
        }
        try context.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(
            try reader.fetch(Self.faultsRequest(sortedByName: false)).map(\.objectID.primaryKey) == [
                edge - 1, edge + 1, edge + 2, .max,
            ])
    }

    /// An object made from a key keeps its key beside its flags and its version: setting either changes neither
    /// the key nor the other, for any key that fits (negative ones too) and any flags.
    @Test(arguments: [1, 4_096, (1 << 55) - 1, -(1 << 55), -1] as [Int64])
    func aKeyKeptBesideTheFlagsStaysWhole(key: Int64) throws {
        let layout = try #require(try StreamedFetchTests.model().layout(of: "Item"))
        let prefix = ObjectIDPrefix(storeIdentifier: "S", entityName: "Item")
        #expect(ManagedObject.keyFitsBesideFlags(key))
        let object = ManagedObject(layout: layout, prefix: prefix, key: key)
        #expect(!Self.madeID(object))
        object.flags = ManagedObject.Flags(rawValue: 0xFF)
        object.storeVersion = -1
        #expect(object.flags.rawValue == 0xFF)
        object.flags.remove(.deleted)
        #expect(object.flags.rawValue == 0xFD)
        #expect(!Self.madeID(object))
        #expect(object.objectID == prefix.objectID(key))
        #expect(Self.madeID(object))
        #expect(object.flags.rawValue == 0xFD)
        #expect(object.storeVersion == -1)
        // Keys beyond are made into IDs at once.
        for beyond in [Int64(1) << 55, .max, .min, -(1 << 55) - 1] {
            #expect(!ManagedObject.keyFitsBesideFlags(beyond))
            let far = ManagedObject(layout: layout, prefix: prefix, key: beyond)
            #expect(Self.madeID(far))
            #expect(far.objectID.primaryKey == beyond)
            #expect(far.flags.isEmpty)
        }
    }

    /// A fetch of values of more rows than the coordinator's row cache holds hands each row over by key: the objects
    /// are filled (values and version) with their IDs not made, and are the objects those IDs name.
    @Test func aFullFetchOfMoreRowsThanTheCacheHoldsMakesNoIDs() throws {
        let (coordinator, _) = try StreamedFetchTests.store(items: 50_010, specials: 7)
        let context = ManagedObjectContext(coordinator: coordinator)
        let ids = try context.fetchObjectIDs(Self.faultsRequest(sortedByName: false))
        #expect(ids.count == 50_017)
        // Some registered by ID first: the fetch fills and returns those same objects.
        let early = try [0, 17, 40_000, 50_016].map { try context.existingObject(with: ids[$0]) }
        let objects = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(objects.count == 50_017)
        #expect(zip([0, 17, 40_000, 50_016], early).allSatisfy { objects[$0] === $1 })
        let made = objects.filter { Self.madeID($0) }.count
        #expect(made == 4, "only the objects registered by ID beforehand have IDs")
        #expect(objects.allSatisfy { !$0.isFault && $0.storedVersion == 1 })
        // The version was kept beside the key: still no ID made.
        #expect(objects.filter { Self.madeID($0) }.count == 4)
        #expect(objects.map(\.objectID) == ids)
        for (object, id) in zip(objects, ids) where id.primaryKey % 997 == 0 {
            #expect(context.registeredObject(for: id) === object)
            #expect(object.entity.name == id.entityName)
            let number = try #require(try object.value(forKey: "number", as: Int64.self))
            #expect(try object.value(forKey: "name", as: String.self) == "item \(number)")
        }
        let again = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(zip(again, objects).allSatisfy { $0 === $1 })
    }

    /// A snapshot known by key equals, and hashes as, the same snapshot known by ID.
    @Test func aSnapshotKnownByKeyEqualsOneKnownByID() throws {
        let layout = try #require(try StreamedFetchTests.model().layout(of: "Item"))
        let prefix = ObjectIDPrefix(storeIdentifier: "S", entityName: "Item")
        let values = SlotValues(layout: layout, values: [.integer64(3), .string("three")])
        let byKey = ObjectSnapshot(identity: .key(prefix, 7), version: 2, values: values)
        let byID = ObjectSnapshot(objectID: prefix.objectID(7), version: 2, values: values)
        let otherKey = ObjectSnapshot(identity: .key(prefix, 8), version: 2, values: values)
        let otherEntity = ObjectSnapshot(
            identity: .key(ObjectIDPrefix(storeIdentifier: "S", entityName: "SpecialItem"), 7), version: 2,
            values: values)
        #expect(byKey == byID)
        #expect(byID == byKey)
        #expect(byKey.hashValue == byID.hashValue)
        #expect(byKey != otherKey)
        #expect(byKey != otherEntity)
        #expect(otherEntity != byID)
        #expect(byKey.objectID == prefix.objectID(7))
        // Given an ID, it is known by it.
        var renamed = byKey
        renamed.objectID = prefix.objectID(9)
        guard let id = renamed.identity.madeID else {
            Issue.record("a snapshot given an ID is still known by key")
            return
        }
        #expect(id.primaryKey == 9)
        #expect(renamed != byKey)
    }

    /// A value set through the attribute subscript on a fault whose row another coordinator deleted: not kept, and the
    /// next save throws the failure (the setter trapped, taking the row's absence for a programmer's error).
    @Test func aValueSetOnAFaultWhoseRowIsGoneWaitsForTheSave() throws {
        let (coordinator, store) = try StreamedFetchTests.store(items: 3, specials: 0)
        let url = try #require(store.description.url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let id = try #require(try context.fetchObjectIDs(FetchRequest(entityName: "Item")).first)
        let fault = try context.object(with: id)
        #expect(fault.isFault)
        // Another coordinator deletes the row.
        let other = PersistentStoreCoordinator(model: try StreamedFetchTests.model())
        try other.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let elsewhere = ManagedObjectContext(coordinator: other)
        elsewhere.delete(try elsewhere.existingObject(with: id))
        try elsewhere.save()
        fault["name"] = "lost"
        #expect(fault.isFault)
        #expect(throws: ContextError.self) { try context.save() }
    }
}
