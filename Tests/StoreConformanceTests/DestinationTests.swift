import Foundation
import ObjectGraph
import TestSupport
import Testing

/// What a relationship may point at when it is saved, in every store with a file: an object that is gone (a
/// relationship without an inverse, after its destination was deleted) is kept as the reference it is and the
/// document opens again; an object no store of this document could hold (a made-up ID: another store's, a key
/// that is not positive) is refused, and the file is left as it was.
struct DestinationTests {
    static let fileStores = StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" }

    /// A document of `store`'s type with two saved items, the first seeing the second (`seeAlso` has no inverse).
    static func document(_ store: StoreUnderTest) throws -> (URL, ManagedObjectContext, [ManagedObject]) {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("doc.\(store.fileExtension ?? "")")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: store.type, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let first = try context.insertNewObject(forEntityName: "Item")
        try first.setAttributeValue(.string("first"), forKey: "name")
        let second = try context.insertNewObject(forEntityName: "Item")
        try second.setAttributeValue(.string("second"), forKey: "name")
        try first.setObject(second, forKey: "seeAlso")
        try context.save()
        return (url, context, [first, second])
    }

    /// The item called `name`.
    static func item(_ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest(
            entityName: "Item", predicate: try ObjectPredicate(format: "name == %@", FormatArgument(name)))
        return try #require(try context.fetch(request).first)
    }

    static func reopen(_ store: StoreUnderTest, _ url: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: store.type, url: url)
        return ManagedObjectContext(coordinator: coordinator)
    }

    @Test(arguments: fileStores)
    func aReferenceToADeletedObjectIsKeptAndTheDocumentOpens(store: StoreUnderTest) throws {
        let (url, context, items) = try Self.document(store)
        let gone = items[1].objectID
        context.delete(items[1])
        try context.save()

        let again = try Self.reopen(store, url)
        let first = try Self.item("first", in: again)
        #expect(try first.objectIDs(forKey: "seeAlso") == [gone])
        // The object it names is gone: reading it is an error naming it, never another object or nil.
        do {
            _ = try first.object(forKey: "seeAlso")?.attributeValue(forKey: "name")
            Issue.record("\(store): a deleted object was read")
        } catch {
            #expect("\(error)".contains(gone.uriString), "\(error)")
        }
        // A later save keeps the reference as it is.
        try first.setAttributeValue(.string("first, again"), forKey: "name")
        try again.save()
        let third = try Self.reopen(store, url)
        let reread = try #require(try third.fetch(FetchRequest(entityName: "Item")).first)
        #expect(try reread.objectIDs(forKey: "seeAlso") == [gone])
    }

    /// IDs no store of the document hands out: a key that is not positive, another store's key.
    static func madeUp(_ store: any PersistentStore) -> [ManagedObjectID] {
        [
            ManagedObjectID(entityName: "Item", storeIdentifier: store.identifier, primaryKey: -5),
            ManagedObjectID(entityName: "Item", storeIdentifier: store.identifier, primaryKey: 0),
            ManagedObjectID(entityName: "Item", storeIdentifier: "ANOTHER-STORE", primaryKey: 1),
        ]
    }

    @Test(arguments: fileStores)
    func aMadeUpDestinationIsRefusedAndTheFileKept(store: StoreUnderTest) throws {
        let (url, context, items) = try Self.document(store)
        let storeObject = try #require(context.persistentStoreCoordinator.persistentStores.first)
        for id in Self.madeUp(storeObject) {
            let before = try Data(contentsOf: url)
            // On an object being inserted, and on a change of a saved one.
            let inserted = try context.insertNewObject(forEntityName: "Item")
            try inserted.setObject(try context.object(with: id), forKey: "seeAlso")
            do {
                try context.save()
                Issue.record("\(store): a link to \(id) was saved")
            } catch {
                #expect("\(error)".contains("seeAlso"), "\(error)")
                #expect("\(error)".contains(id.uriString), "\(error)")
            }
            context.rollback()
            try items[0].setObject(try context.object(with: id), forKey: "seeAlso")
            #expect(throws: ContextError.self) { try context.save() }
            context.rollback()
            #expect(try Data(contentsOf: url) == before)
        }
        // The document is as it was saved.
        let again = try Self.reopen(store, url)
        #expect(try again.fetch(FetchRequest(entityName: "Item")).count == 2)
    }
}

/// A reference to an object that is gone keeps naming nothing: a new object never takes its key, and a copy that
/// renumbers objects (into a store with one key counter) never gives its key to another object.
struct DanglingKeyTests {
    @Test(arguments: DestinationTests.fileStores)
    func aNewObjectNeverTakesTheKeyOfAReferenceToADeletedObject(store: StoreUnderTest) throws {
        let (url, context, items) = try DestinationTests.document(store)
        let gone = items[1].objectID
        context.delete(items[1])
        try context.save()
        // Reopened, the deleted object's key is the highest any object had: a new object must not take it.
        let again = try DestinationTests.reopen(store, url)
        let fresh = try again.insertNewObject(forEntityName: "Item")
        try fresh.setAttributeValue(.string("new"), forKey: "name")
        try again.save()
        #expect(fresh.objectID.primaryKey != gone.primaryKey)
        let third = try DestinationTests.reopen(store, url)
        let first = try DestinationTests.item("first", in: third)
        #expect(try first.objectIDs(forKey: "seeAlso") == [gone])
        #expect(throws: (any Error).self) { try first.object(forKey: "seeAlso")?.attributeValue(forKey: "name") }
    }

    /// An owner and `count` items (`item 0`, …) saved in a document of `store`'s type, each item of `links` seeing
    /// another (`seeAlso` has no inverse), the items of `deleted` then deleted; copied into XML whole (what save as
    /// does) or streamed a batch at a time (what `docutil convert` does), and the copy opened.
    static func xmlCopy(
        _ store: StoreUnderTest, streamed: Bool, items count: Int, links: [(Int, Int)], deleted: [Int]
    ) throws -> ManagedObjectContext {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("items.\(store.fileExtension ?? "")")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        let added = try coordinator.addPersistentStore(type: store.type, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try context.insertNewObject(forEntityName: "Owner")
        var items: [ManagedObject] = []
        for i in 0..<count {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(.string("item \(i)"), forKey: "name")
            items.append(item)
        }
        for (from, to) in links { try items[from].setObject(items[to], forKey: "seeAlso") }
        try context.save()
        for i in deleted { context.delete(items[i]) }
        try context.save()
        let copyURL = try Fixtures.temporaryDirectory().appendingPathComponent("copy.xml")
        if streamed {
            try coordinator.exportCopy(of: added, to: copyURL, type: "XML")
        } else {
            try coordinator.writeCopy(of: added, to: copyURL, type: "XML")
        }
        let reader = PersistentStoreCoordinator(model: try Catalog.model())
        try reader.addPersistentStore(type: "XML", url: copyURL)
        return ManagedObjectContext(coordinator: reader)
    }

    @Test(arguments: DestinationTests.fileStores, [false, true])
    func aRenumberedCopyKeepsAReferenceToADeletedObjectNamingNothing(store: StoreUnderTest, streamed: Bool) throws {
        // 130 items and an owner: keys repeat across entities in the SQLite and binary stores, so an XML copy
        // renumbers every object from 101 — over the deleted item's key.
        let copy = try Self.xmlCopy(store, streamed: streamed, items: 130, links: [(0, 110)], deleted: [110])
        #expect(try copy.fetch(FetchRequest(entityName: "Item")).count == 129)
        let first = try DestinationTests.item("item 0", in: copy)
        let seen = try first.objectIDs(forKey: "seeAlso")
        #expect(seen.count == 1)
        // Still naming no object of the copy.
        #expect(throws: (any Error).self) { try first.object(forKey: "seeAlso")?.attributeValue(forKey: "name") }
    }

    @Test(arguments: DestinationTests.fileStores, [false, true])
    func referencesToDeletedObjectsStayApartInACopy(store: StoreUnderTest, streamed: Bool) throws {
        // 250 items, the first 110 each seeing one of the last 110, which are deleted. Copied into XML, the 141
        // objects left are renumbered over some of the deleted keys (SQLite, binary) or keep theirs (XML): references
        // whose keys an object now has move, and must not land on the key another reference kept.
        let copy = try Self.xmlCopy(
            store, streamed: streamed, items: 250, links: (0..<110).map { ($0, 140 + $0) }, deleted: Array(140..<250))
        let objects = Set(try copy.fetch(FetchRequest(entityName: "Item")).map(\.objectID))
        #expect(objects.count == 140)
        var seen: Set<ManagedObjectID> = []
        for i in 0..<110 {
            let item = try DestinationTests.item("item \(i)", in: copy)
            let ids = try item.objectIDs(forKey: "seeAlso")
            #expect(ids.count == 1)
            seen.formUnion(ids)
        }
        #expect(seen.count == 110, "\(store), streamed \(streamed): 110 references became \(seen.count)")
        #expect(seen.isDisjoint(with: objects))
        // New objects in the copy never take the key of such a reference (the copy's counter may be below them).
        var added: [ManagedObject] = []
        for i in 0..<300 {
            let item = try copy.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(.string("new \(i)"), forKey: "name")
            added.append(item)
        }
        try copy.save()
        let keys = Set(seen.map(\.primaryKey))
        #expect(added.allSatisfy { !keys.contains($0.objectID.primaryKey) })
    }

    @Test(arguments: DestinationTests.fileStores.filter { $0.type != "XML" }, [false, true])
    func aCopyIntoXMLRefusesAReferenceToAMissingObjectOfASubEntity(store: StoreUnderTest, streamed: Bool) throws {
        // An item sees a special item that is then deleted: the store keeps the reference (a SpecialItem). An XML
        // document names a missing object by its key alone and reads it back as an Item, so the copy is refused
        // rather than change what the reference names; nothing is written.
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("items.\(store.fileExtension ?? "")")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        let added = try coordinator.addPersistentStore(type: store.type, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try context.insertNewObject(forEntityName: "Item")
        let special = try context.insertNewObject(forEntityName: "SpecialItem")
        let other = try context.insertNewObject(forEntityName: "SpecialItem")
        try item.setObject(special, forKey: "seeAlso")
        try other.setObject(item, forKey: "seeAlso")
        try context.save()
        let gone = special.objectID
        context.delete(special)
        try context.save()
        let copyURL = try Fixtures.temporaryDirectory().appendingPathComponent("copy.xml")
        do {
            if streamed {
                try coordinator.exportCopy(of: added, to: copyURL, type: "XML")
            } else {
                try coordinator.writeCopy(of: added, to: copyURL, type: "XML")
            }
            Issue.record("\(store), streamed \(streamed): the copy was written")
        } catch {
            #expect("\(error)".contains(gone.uriString), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: copyURL.path))
        // A reference to an object that is there, of a sub-entity, is copied as it is.
        try item.setObject(other, forKey: "seeAlso")
        try context.save()
        try coordinator.writeCopy(of: added, to: copyURL, type: "XML")
        let reader = PersistentStoreCoordinator(model: try Catalog.model())
        try reader.addPersistentStore(type: "XML", url: copyURL)
        let copyContext = ManagedObjectContext(coordinator: reader)
        let copied = try copyContext.fetch(FetchRequest(entityName: "Item"))
        let plain = try #require(copied.first { $0.entityName == "Item" })
        #expect(try plain.objectIDs(forKey: "seeAlso").map(\.entityName) == ["SpecialItem"])
    }

    @Test
    func anXMLDocumentRefusesToSaveAReferenceToADeletedObjectOfASubEntity() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("items.xml")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try context.insertNewObject(forEntityName: "Item")
        let special = try context.insertNewObject(forEntityName: "SpecialItem")
        try item.setObject(special, forKey: "seeAlso")
        try context.save()
        let before = try Data(contentsOf: url)
        context.delete(special)
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try Data(contentsOf: url) == before)
        // Pointed elsewhere first, the deletion saves.
        try item.setObject(nil, forKey: "seeAlso")
        try context.save()
    }
}
