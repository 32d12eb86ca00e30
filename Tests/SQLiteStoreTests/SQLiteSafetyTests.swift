import CSQLite
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// Runs statements on a database with the raw C API (to damage a store the way another program could).
func execute(_ url: URL, _ sql: String) throws {
    try SQLiteScript.execute(url, sql)
}

/// The bytes of a store and its side files, to show that reading changed nothing.
func fileBytes(_ url: URL) -> [String: Data] {
    var result: [String: Data] = [:]
    for suffix in ["", "-wal", "-shm", "-journal"] {
        if let data = FileManager.default.contents(atPath: url.path + suffix) { result[suffix] = data }
    }
    return result
}

/// Nothing read or written through a SQLite store invents or drops a value: values that do not fit, rows that are
/// gone, damaged metadata, hostile names, negative keys, and another writer between read and save.
struct SQLiteSafetyTests {
    /// A store of the company model with Sales (Ann, Bob) saved.
    static func companyStore() throws -> URL {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("company.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        let store = try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        store.close()
        return url
    }

    static func context(_ url: URL, options: [String: String] = [:]) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url, options: options)
        return ManagedObjectContext(coordinator: coordinator)
    }

    static func employee(_ context: ManagedObjectContext, _ name: String) throws -> ManagedObject {
        let request = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "name == %@", FormatArgument(name)))
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: ["'12abc'", "70000000000", "4.5", "x'00ff'"])
    func aValueThatDoesNotFitIsAnErrorNamingWhereNotNil(stored: String) throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE ZEMPLOYEE SET ZSALARY = \(stored) WHERE ZNAME = 'Ann'")
        let context = try Self.context(url)
        do {
            _ = try context.fetch(FetchRequest(entityName: "Employee"))
            Issue.record("reading \(stored) into an Integer 32 did not fail")
        } catch {
            let text = "\(error)"
            #expect(text.contains("Employee.salary"), "\(text)")
            #expect(text.contains("company.sqlite"), "\(text)")
            #expect(text.contains("/Employee/p"), "\(text)")
        }
        // Bob's row is fine and still reads; a fault of Ann fails when it fires, naming Ann.
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        let objects = try ids.map { try context.object(with: $0) }
        var failures = 0
        for object in objects {
            do { _ = try object.attributeValue(forKey: "name") } catch { failures += 1 }
        }
        #expect(failures == 1)
    }

    @Test func aValueKeptRawSurvivesAnUnrelatedEditAndSave() throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE ZEMPLOYEE SET ZSALARY = '12abc' WHERE ZNAME = 'Ann'")
        let context = try Self.context(url, options: ["lenientValues": "YES"])
        let ann = try Self.employee(context, "Ann")
        #expect(try ann.attributeValue(forKey: "salary") == .string("12abc"))
        let store = try #require(context.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        #expect(store.valueWarnings.count == 1)
        #expect(store.valueWarnings.first?.contains("Employee.salary") == true)
        // An edit to another property writes only that column: the stored text stays.
        try ann.setValue(.string("ann@example.com"), forKey: "email")
        try context.save()
        #expect(
            try scalar(url, "SELECT ZSALARY = '12abc' AND typeof(ZSALARY) = 'text' FROM ZEMPLOYEE WHERE ZNAME = 'Ann'")
                == 1)
        #expect(try scalar(url, "SELECT ZEMAIL = 'ann@example.com' FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 1)
        // A new value replaces it; undo brings the raw value back (and redo the new one).
        context.undoManager = UndoManager()
        try ann.setAttributeValue(.integer32(7), forKey: "salary")
        #expect(context.hasChanges)
        #expect(try ann.attributeValue(forKey: "salary") == .integer32(7))
        context.undo()
        #expect(try ann.attributeValue(forKey: "salary") == .string("12abc"))
        #expect(!context.hasChanges)
        context.redo()
        #expect(try ann.attributeValue(forKey: "salary") == .integer32(7))
        context.undo()
        #expect(try ann.attributeValue(forKey: "salary") == .string("12abc"))
        // And a new value replaces it, as a typed value.
        try ann.setAttributeValue(.integer32(5), forKey: "salary")
        try context.save()
        #expect(try scalar(url, "SELECT ZSALARY FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 5)
    }

    /// TEXT that is not UTF-8 (another program can write it) is never read as a string with replacement characters:
    /// it is an error naming the attribute, or, read leniently, its bytes kept as they are and left in the file.
    @Test func textThatIsNotUTF8IsAnErrorOrKeptAsItsBytes() throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE ZEMPLOYEE SET ZNAME = CAST(x'426fff62' AS TEXT) WHERE ZNAME = 'Bob'")
        let strict = try Self.context(url)
        do {
            let names = try strict.fetch(FetchRequest(entityName: "Employee")).map {
                try $0.attributeValue(forKey: "name")
            }
            Issue.record("text that is not UTF-8 was read: \(names)")
        } catch {
            #expect("\(error)".contains("Employee.name"), "\(error)")
            #expect("\(error)".contains("not UTF-8"), "\(error)")
        }
        let context = try Self.context(url, options: ["lenientValues": "YES"])
        let names = try context.fetch(FetchRequest(entityName: "Employee")).map {
            try $0.attributeValue(forKey: "name")
        }
        #expect(names.contains(.binary(Data([0x42, 0x6F, 0xFF, 0x62]))), "\(names)")
        let bob = try #require(
            try context.fetch(FetchRequest(entityName: "Employee")).first {
                try $0.attributeValue(forKey: "name") != .string("Ann")
            })
        try bob.setValue(.string("bob@example.com"), forKey: "email")
        try context.save()
        #expect(
            try scalar(url, "SELECT count(*) FROM ZEMPLOYEE WHERE hex(ZNAME) = '426FFF62' AND typeof(ZNAME) = 'text'")
                == 1)
    }

    /// A to-many relationship without an inverse is one key on each destination: a save that puts one object in two
    /// owners' lists is refused (one owner's link was silently dropped) and leaves the file as it was; an object
    /// moved from one owner to another in one save is moved.
    @Test func anInverselessToManyCannotNameOneObjectFromTwoOwners() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "tags", destination: "Tag", toMany: true)]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("tags.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let tag = try context.insertNewObject(forEntityName: "Tag")
        let a = try context.insertNewObject(forEntityName: "Owner")
        let b = try context.insertNewObject(forEntityName: "Owner")
        try a.setValue(.string("a"), forKey: "name")
        try b.setValue(.string("b"), forKey: "name")
        try a.setObjects([tag], forKey: "tags")
        try context.save()
        func tagCounts() throws -> [String: Int] {
            let again = PersistentStoreCoordinator(model: model)
            try again.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let reader = ManagedObjectContext(coordinator: again)
            var counts: [String: Int] = [:]
            for owner in try reader.fetch(FetchRequest(entityName: "Owner")) {
                counts["\(try owner.attributeValue(forKey: "name").literalText)"] = try owner.objectIDs(forKey: "tags")
                    .count
            }
            return counts
        }
        #expect(try tagCounts() == ["a": 1, "b": 0])
        // b takes the tag a still holds: refused, and nothing of the save is written.
        try b.setObjects([tag], forKey: "tags")
        try b.setValue(.string("b2"), forKey: "name")
        let error = #expect(throws: (any Error).self) { try context.save() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("without an inverse"), "\(String(describing: error))")
        #expect(try tagCounts() == ["a": 1, "b": 0])
        // a lets go of it in the same save: moved.
        try a.setObjects([], forKey: "tags")
        try context.save()
        #expect(try tagCounts() == ["a": 0, "b2": 1])
    }

    /// A model whose owners keep an ordered list of tags, without an inverse.
    static func orderedTagModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "tags", destination: "Tag", toMany: true, ordered: true)]
            ),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
    }

    /// The names of the owner's tags, in order, read from the file.
    static func tagNames(_ url: URL, model: ManagedObjectModel) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let owner = try #require(try context.fetch(FetchRequest(entityName: "Owner")).first)
        return try owner.objects(forKey: "tags").map { try $0.attributeValue(forKey: "name").literalText }
    }

    @Test func anOrderedToManyWithoutAnInverseKeepsItsOrder() throws {
        let model = try Self.orderedTagModel()
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("ordered.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var tags: [ManagedObject] = []
        for name in ["a", "b", "c"] {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValue(.string(name), forKey: "name")
            tags.append(tag)
        }
        let owner = try context.insertNewObject(forEntityName: "Owner")
        // Not the order of the tags' keys, on insert and on a later change.
        try owner.setObjects([tags[2], tags[0], tags[1]], forKey: "tags")
        try context.save()
        #expect(try Self.tagNames(url, model: model) == ["c", "a", "b"])
        try owner.setObjects([tags[1], tags[2]], forKey: "tags")
        try context.save()
        #expect(try Self.tagNames(url, model: model) == ["b", "c"])

        // A store made without the order column (by an earlier docutil) reads in key order and refuses to save
        // another order, leaving the file as it was; key order still saves.
        try execute(url, "UPDATE ZTAG SET Z_FOK_1TAGS = NULL; ALTER TABLE ZTAG DROP COLUMN Z_FOK_1TAGS")
        #expect(try Self.tagNames(url, model: model) == ["b", "c"])
        let old = PersistentStoreCoordinator(model: model)
        try old.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let oldContext = ManagedObjectContext(coordinator: old)
        let oldOwner = try #require(try oldContext.fetch(FetchRequest(entityName: "Owner")).first)
        let oldTags = try oldContext.fetch(
            FetchRequest(entityName: "Tag", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
        let before = fileBytes(url)
        try oldOwner.setObjects([oldTags[2], oldTags[0]], forKey: "tags")
        let error = #expect(throws: (any Error).self) { try oldContext.save() }
        #expect(
            "\(error.map { "\($0)" } ?? "")".contains("no column to keep the order"), "\(String(describing: error))")
        #expect(fileBytes(url) == before)
        oldContext.rollback()
        try oldOwner.setObjects([oldTags[0], oldTags[2]], forKey: "tags")
        try oldContext.save()
        #expect(try Self.tagNames(url, model: model) == ["a", "c"])
    }

    /// Lists that keep their items in order, each item in any number of lists (a many-to-many ordered on one side):
    /// `list` and `item` name the two entities, so that either side can have the smaller entity number.
    static func orderedListModel(list: String, item: String, bothOrdered: Bool = false) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: list, attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: item, inverse: "lists", toMany: true, ordered: true)
                ]),
            EntityDescription(
                name: item, attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "lists", destination: list, inverse: "items", toMany: true, ordered: bothOrdered)
                ]),
        ])
    }

    /// A new SQLite store of `model` (in a new folder) and a context over it.
    static func newListStore(_ model: ManagedObjectModel) throws -> (URL, ManagedObjectContext) {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("lists.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        return (url, ManagedObjectContext(coordinator: coordinator))
    }

    /// The lists of a store by name, read by a context of a coordinator of its own.
    static func lists(_ url: URL, model: ManagedObjectModel) throws -> (ManagedObjectContext, [ManagedObject]) {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let lists = try context.fetch(
            FetchRequest(entityName: "List", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
        return (context, lists)
    }

    /// A new object of `entity` named `name`.
    static func named(_ entity: String, _ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let object = try context.insertNewObject(forEntityName: entity)
        try object.setValue(.string(name), forKey: "name")
        return object
    }

    /// Each object of `entity` by name, with the names of what its relationship `key` holds in order, read from the
    /// file by a coordinator of its own.
    static func orderedNames(_ url: URL, model: ManagedObjectModel, _ entity: String, _ key: String) throws
        -> [String: [String]]
    {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var names: [String: [String]] = [:]
        for object in try context.fetch(FetchRequest(entityName: entity)) {
            names[try object.attributeValue(forKey: "name").literalText] = try object.objects(forKey: key).map {
                try $0.attributeValue(forKey: "name").literalText
            }
        }
        return names
    }

    @Test(arguments: [("Album", "Song"), ("List", "Item")])
    func anOrderedManyToManyKeepsEveryListsOrder(list: String, item: String) throws {
        // Saving the unordered side (an item's lists) wrote its join rows again without their order: every list
        // that item is in lost its place for it, whichever side was written last.
        let model = try Self.orderedListModel(list: list, item: item)
        let (url, context) = try Self.newListStore(model)
        func make(_ entity: String, _ name: String) throws -> ManagedObject {
            try Self.named(entity, name, in: context)
        }
        let (a, b, c, d) = (try make(item, "a"), try make(item, "b"), try make(item, "c"), try make(item, "d"))
        let (one, two) = (try make(list, "one"), try make(list, "two"))
        try one.setObjects([c, a, b], forKey: "items")
        try two.setObjects([b, c], forKey: "items")
        try context.save()
        #expect(
            try Self.orderedNames(url, model: model, list, "items") == ["one": ["c", "a", "b"], "two": ["b", "c"]])
        // a joins two (a's lists change with it): one, which did not change, keeps a where it was.
        try two.setObjects([b, a, c], forKey: "items")
        try context.save()
        #expect(
            try Self.orderedNames(url, model: model, list, "items") == [
                "one": ["c", "a", "b"], "two": ["b", "a", "c"],
            ])
        // d joins one at the front, and c leaves two.
        try one.setObjects([d, c, a, b], forKey: "items")
        try two.setObjects([b, a], forKey: "items")
        try context.save()
        #expect(
            try Self.orderedNames(url, model: model, list, "items") == [
                "one": ["d", "c", "a", "b"], "two": ["b", "a"],
            ])
        #expect(
            try Self.orderedNames(url, model: model, item, "lists").mapValues { Set($0) } == [
                "a": ["one", "two"], "b": ["one", "two"], "c": ["one"], "d": ["one"],
            ])
    }

    @Test(arguments: [("Album", "Song"), ("List", "Item")])
    func aManyToManyOrderedOnBothSidesKeepsBothOrders(list: String, item: String) throws {
        let model = try Self.orderedListModel(list: list, item: item, bothOrdered: true)
        let (url, context) = try Self.newListStore(model)
        func make(_ entity: String, _ name: String) throws -> ManagedObject {
            try Self.named(entity, name, in: context)
        }
        let (a, b) = (try make(item, "a"), try make(item, "b"))
        let (one, two) = (try make(list, "one"), try make(list, "two"))
        try one.setObjects([b, a], forKey: "items")
        try two.setObjects([a, b], forKey: "items")
        try a.setObjects([two, one], forKey: "lists")
        try b.setObjects([one, two], forKey: "lists")
        try context.save()
        #expect(try Self.orderedNames(url, model: model, list, "items") == ["one": ["b", "a"], "two": ["a", "b"]])
        #expect(
            try Self.orderedNames(url, model: model, item, "lists") == ["a": ["two", "one"], "b": ["one", "two"]])
        try a.setObjects([one, two], forKey: "lists")
        try context.save()
        #expect(try Self.orderedNames(url, model: model, list, "items") == ["one": ["b", "a"], "two": ["a", "b"]])
        #expect(
            try Self.orderedNames(url, model: model, item, "lists") == ["a": ["one", "two"], "b": ["one", "two"]])
    }

    /// A new store of lists and items with one list of items ordered and filled (`one`: c, a, b; `two`: b, c).
    static func orderedListStore(list: String, item: String, bothOrdered: Bool = false) throws -> (
        URL, ManagedObjectModel
    ) {
        let model = try Self.orderedListModel(list: list, item: item, bothOrdered: bothOrdered)
        let (url, context) = try Self.newListStore(model)
        var made: [String: ManagedObject] = [:]
        for (entity, name) in [(item, "a"), (item, "b"), (item, "c"), (list, "one"), (list, "two")] {
            made[name] = try Self.named(entity, name, in: context)
        }
        try made["one"]!.setObjects([made["c"]!, made["a"]!, made["b"]!], forKey: "items")
        try made["two"]!.setObjects([made["b"]!, made["c"]!], forKey: "items")
        try context.save()
        return (url, model)
    }

    @Test func anOrderedManyToManysTableIsNamedFromItsOrderedSide() throws {
        // List (2).items ordered ↔ Item (1).lists: the table is List's, as Apple names it (the smaller entity number
        // names it only when neither or both sides are ordered), the order column named after the keys it orders.
        let (url, model) = try Self.orderedListStore(list: "List", item: "Item")
        #expect(try scalar(url, "SELECT count(*) FROM Z_2ITEMS WHERE Z_2LISTS > 0 AND Z_1ITEMS > 0") == 5)
        #expect(try scalar(url, "SELECT count(*) FROM Z_2ITEMS WHERE Z_FOK_1ITEMS > 0") == 5)
        // The same store as an earlier docutil made it (the table named from the unordered side, the order column
        // after List's keys): read and written with its own names.
        try execute(
            url,
            """
            CREATE TABLE Z_1LISTS (Z_1ITEMS INTEGER, Z_2LISTS INTEGER, Z_FOK_2LISTS INTEGER,
                PRIMARY KEY (Z_1ITEMS, Z_2LISTS));
            INSERT INTO Z_1LISTS SELECT Z_1ITEMS, Z_2LISTS, Z_FOK_1ITEMS FROM Z_2ITEMS;
            DROP TABLE Z_2ITEMS;
            """)
        #expect(
            try Self.orderedNames(url, model: model, "List", "items") == ["one": ["c", "a", "b"], "two": ["b", "c"]])
        let (context, lists) = try Self.lists(url, model: model)
        let items = try lists[1].objects(forKey: "items")
        try lists[1].setObjects([items[1], items[0]], forKey: "items")
        try context.save()
        #expect(
            try Self.orderedNames(url, model: model, "List", "items") == ["one": ["c", "a", "b"], "two": ["c", "b"]])
    }

    @Test func aManyToManyStoreWithOneOrderColumnForTwoOrderedSidesReadsOneInKeyOrder() throws {
        // Item (1).lists ↔ List (2).items, both ordered: an earlier docutil kept both orders in one column (the
        // table's owner's, Item.lists). List.items has none: read in key order, and another order is refused.
        let (url, model) = try Self.orderedListStore(list: "List", item: "Item", bothOrdered: true)
        try execute(url, "ALTER TABLE Z_1LISTS DROP COLUMN Z_FOK_1ITEMS")
        #expect(
            try Self.orderedNames(url, model: model, "List", "items") == ["one": ["a", "b", "c"], "two": ["b", "c"]])
        let (context, lists) = try Self.lists(url, model: model)
        let before = fileBytes(url)
        try lists[1].setObjects(try lists[1].objects(forKey: "items").reversed(), forKey: "items")
        let error = #expect(throws: (any Error).self) { try context.save() }
        #expect(
            "\(error.map { "\($0)" } ?? "")".contains("no column to keep the order"), "\(String(describing: error))")
        #expect(fileBytes(url) == before)
    }

    @Test func updatesWriteOnlyTheColumnsThatChanged() throws {
        let url = try Self.companyStore()
        let context = try Self.context(url)
        let ann = try Self.employee(context, "Ann")
        // Another program changes Ann's e-mail and keeps Z_OPT (as a careless writer would).
        try execute(url, "UPDATE ZEMPLOYEE SET ZEMAIL = 'set@elsewhere' WHERE ZNAME = 'Ann'")
        try ann.setAttributeValue(.integer32(2000), forKey: "salary")
        try context.save()
        #expect(try scalar(url, "SELECT ZEMAIL = 'set@elsewhere' FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 1)
        #expect(try scalar(url, "SELECT ZSALARY FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 2000)
    }

    @Test func editingOneAttributeReadsNoToManyRelationship() throws {
        let url = try Self.companyStore()
        let context = try Self.context(url)
        let sales = try #require(try context.fetch(FetchRequest(entityName: "Department")).first)
        try sales.setValue(.string("Sales & Marketing"), forKey: "name")
        // The employees were never read: no object of them is registered.
        #expect(context.registeredObjects.filter { $0.entity.name == "Employee" }.isEmpty)
        try context.save()
        #expect(context.registeredObjects.filter { $0.entity.name == "Employee" }.isEmpty)
        #expect(try Company.names(try Self.context(url), "Employee") == ["Ann", "Bob"])
    }

    @Test func aFaultWhoseRowIsGoneThrowsAndNothingIsWrittenBack() throws {
        let url = try Self.companyStore()
        let context = try Self.context(url)
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        let ann = try context.object(with: ids[0])
        #expect(ann.isFault)
        try execute(url, "DELETE FROM ZEMPLOYEE WHERE Z_PK = \(ids[0].primaryKey)")
        do {
            _ = try ann.attributeValue(forKey: "name")
            Issue.record("a fault whose row is gone read as something")
        } catch {
            #expect(error.code == .faultNotFulfilled)
            #expect(error.objectID == ids[0])
            #expect(error.underlying == nil)
        }
        #expect(ann.isFault)
        #expect(throws: ContextError.self) { try context.existingObject(with: ids[0]) }
        // Through a subclass-style accessor the failure is kept, and the next save reports it.
        let name: String? = ann["name"]
        #expect(name == nil)
        let bob = try context.existingObject(with: ids[1])
        try bob.setValue(.string("Robert"), forKey: "name")
        #expect(throws: ContextError.self) { try context.save() }
        #expect(try Company.names(try Self.context(url), "Employee") == ["Bob"])
        context.rollback()
        #expect(context.pendingFailures.isEmpty)
    }

    @Test func anotherWriterBetweenReadAndSaveIsAConflict() throws {
        let url = try Self.companyStore()
        let mine = try Self.context(url)
        let theirs = try Self.context(url)
        let ann = try Self.employee(mine, "Ann")
        let annThere = try Self.employee(theirs, "Ann")
        try annThere.setAttributeValue(.integer32(3000), forKey: "salary")
        try theirs.save()
        try ann.setValue(.string("ann@here"), forKey: "email")
        do {
            try mine.save()
            Issue.record("a save over another writer's change succeeded")
        } catch {
            guard case .conflicts(let conflicts) = error else {
                Issue.record("not a conflict: \(error)")
                return
            }
            #expect(conflicts.map(\.objectID) == [ann.objectID])
            #expect(conflicts.first?.storedSnapshot?.attributes["salary"] == .integer32(3000))
        }
        #expect(try scalar(url, "SELECT ZSALARY FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 3000)
        #expect(try scalar(url, "SELECT ZEMAIL IS NULL FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 1)
    }

    @Test func unreadableMetadataStopsASaveAndLeavesTheFile() throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE Z_METADATA SET Z_PLIST = x'62706c6973743030ffff'")
        let before = fileBytes(url)
        let context = try Self.context(url)
        #expect(try Company.names(context, "Employee") == ["Ann", "Bob"])
        try Company.department("Support", staff: ["Cy"], in: context)
        do {
            try context.save()
            Issue.record("a save replaced metadata it could not read")
        } catch {
            #expect("\(error)".contains("Z_METADATA"), "\(error)")
        }
        #expect(fileBytes(url)[""] == before[""])
    }

    @Test(arguments: [
        ("UPDATE ZEMPLOYEE SET Z_PK = -3 WHERE ZNAME = 'Ann'", "keys (Z_PK) are positive"),
        ("UPDATE ZDEPARTMENT SET Z_ENT = 99", "Z_ENT = integer 99"),
        ("UPDATE ZDEPARTMENT SET Z_ENT = -1", "Z_ENT = integer -1"),
        ("UPDATE ZEMPLOYEE SET ZDEPARTMENT = -7 WHERE ZNAME = 'Ann'", "not an object key"),
        ("UPDATE ZEMPLOYEE SET ZDEPARTMENT = 'x' WHERE ZNAME = 'Ann'", "not an object key"),
    ])
    func badKeysAndEntityNumbersAreErrors(sql: String, expected: String) throws {
        let url = try Self.companyStore()
        try execute(url, sql)
        let context = try Self.context(url, options: ["readOnly": "YES"])
        do {
            for object in try context.fetch(FetchRequest(entityName: "Employee")) {
                _ = try object.object(forKey: "department")?.attributeValue(forKey: "name")
            }
            Issue.record("\(sql) read without an error")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    /// A fetch of faults reads keys and entity numbers alone (no ID made per row): a bad key is the same error, naming
    /// the table and the value, as in a fetch of values; a row of an entity the model lacks is left out of both alike.
    @Test func aFetchOfFaultsRefusesBadKeysAsAFetchOfValuesDoes() throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE ZEMPLOYEE SET Z_PK = -3 WHERE ZNAME = 'Ann'")
        var faults = FetchRequest(entityName: "Employee")
        faults.includesPropertyValues = false
        do {
            let found = try Self.context(url, options: ["readOnly": "YES"]).fetch(faults)
            Issue.record("a key of -3 fetched \(found.count) faults without an error")
        } catch {
            #expect("\(error)".contains("\"ZEMPLOYEE\": a row has the key integer -3"), "\(error)")
        }

        let other = try Self.companyStore()
        try execute(other, "UPDATE ZEMPLOYEE SET Z_ENT = 99 WHERE ZNAME = 'Ann'")
        let context = try Self.context(other, options: ["readOnly": "YES"])
        let values = try context.fetch(FetchRequest(entityName: "Employee")).map(\.objectID)
        let keyed = try Self.context(other, options: ["readOnly": "YES"]).fetch(faults).map(\.objectID)
        #expect(values.count == 1)
        #expect(keyed == values)
        #expect(try context.count(for: faults) == 1)
    }

    /// A fetch of every entity a table holds still leaves out a row of an entity the model lacks, with a predicate
    /// (whose terms SQLite tests before the entity check), a sort, or neither.
    @Test(arguments: [nil, "name == 'Ann'", "name != 'Nobody'"], [false, true])
    func aRowOfAnEntityTheModelLacksIsLeftOutOfAFetch(predicate: String?, sorted: Bool) throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE ZEMPLOYEE SET Z_ENT = 99 WHERE ZNAME = 'Ann'")
        let context = try Self.context(url, options: ["readOnly": "YES"])
        let request = FetchRequest(
            entityName: "Employee", predicate: try predicate.map { try ObjectPredicate(format: $0) },
            sortDescriptors: sorted ? [ObjectSortDescriptor(keyPath: "name")] : [])
        let names = try context.fetch(request).map { try $0.attributeValue(forKey: "name").stringValue ?? "?" }
        #expect(names == (predicate == "name == 'Ann'" ? [] : ["Bob"]))
    }

    @Test(arguments: [-5, Int64.max - 1])
    func aPrimaryKeyCounterOutOfRangeIsAnError(max: Int64) throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = \(max)")
        let context = try Self.context(url)
        try Company.department("Support", staff: ["Cy", "Di"], in: context)
        #expect(throws: ContextError.self) { try context.save() }
        #expect(try Company.names(try Self.context(url), "Employee") == ["Ann", "Bob"])
    }

    /// A key counter left behind the rows (rows added by SQL without it, a NULL, one lowered) gives new objects keys
    /// above every row of the table, never one that is taken; the counter is raised past them.
    @Test(arguments: ["NULL", "0", "1"])
    func aPrimaryKeyCounterBehindTheRowsGivesFreeKeys(max: String) throws {
        let url = try Self.companyStore()
        try execute(
            url,
            """
            INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSALARY) SELECT MAX(Z_PK) + 40, Z_ENT, 1, 'Zed', 1 FROM ZEMPLOYEE;
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(max);
            """)
        let highest = try scalar(url, "SELECT MAX(Z_PK) FROM ZEMPLOYEE")
        let context = try Self.context(url)
        try Company.department("Support", staff: ["Cy", "Di"], in: context)
        try context.save()
        #expect(try Company.names(try Self.context(url), "Employee") == ["Ann", "Bob", "Cy", "Di", "Zed"])
        #expect(try scalar(url, "SELECT MIN(Z_PK) FROM ZEMPLOYEE WHERE ZNAME IN ('Cy', 'Di')") == highest + 1)
        #expect(try scalar(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee'") == highest + 2)
    }

    @Test func theLargestVersionAFileCanHoldStillSaves() throws {
        let url = try Self.companyStore()
        try execute(url, "UPDATE ZEMPLOYEE SET Z_OPT = 9223372036854775807 WHERE ZNAME = 'Ann'")
        let context = try Self.context(url)
        try Self.employee(context, "Ann").setAttributeValue(.integer32(1), forKey: "salary")
        try context.save()
        #expect(try scalar(url, "SELECT ZSALARY FROM ZEMPLOYEE WHERE ZNAME = 'Ann'") == 1)
    }

    @Test func aMissingEntityColumnIsAMalformedStore() throws {
        let url = try Self.companyStore()
        try execute(
            url,
            """
            CREATE TABLE ZEMPLOYEE2 AS SELECT Z_PK, Z_OPT, ZDEPARTMENT, ZMANAGEDDEPARTMENT, ZSALARY, ZEMAIL, ZNAME FROM ZEMPLOYEE;
            DROP TABLE ZEMPLOYEE; ALTER TABLE ZEMPLOYEE2 RENAME TO ZEMPLOYEE;
            """)
        do {
            _ = try Self.context(url, options: ["readOnly": "YES"])
            Issue.record("a table without Z_ENT opened")
        } catch let error as StoreError {
            #expect(error.code == .corrupt)
            #expect(error.message.contains("Z_ENT"))
        }
    }

    /// Names the SQLite store accepts: letters (any script's), digits (not first) and `_`; nothing else.
    @Test(arguments: [
        ("name", true), ("_private", true), ("Z_9", true), ("Größe", true), ("名前", true), ("x٣", true),
        ("9lives", false), ("٣x", false), ("", false), ("a b", false), ("a-b", false), ("a\"b", false), ("a;", false),
        ("a.b", false), ("a\u{0}b", false), ("a`b", false), ("a~", false), ("@a", false), ("[a]", false),
    ])
    func namesAreLettersDigitsAndUnderscores(name: String, valid: Bool) {
        #expect(SQLiteSchema.isIdentifier(name) == valid, "\(name)")
    }

    @Test func hostileNamesNeverReachSQL() throws {
        SQLiteStore.register()
        let directory = try Fixtures.temporaryDirectory()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "X\"; ATTACH DATABASE 'pwned.db' AS p; --",
                attributes: [AttributeDescription(name: "a", type: .string)])
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        let url = directory.appendingPathComponent("hostile.sqlite")
        do {
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            Issue.record("a model with a hostile entity name made a SQLite store")
        } catch {
            #expect("\(error)".contains("not a valid name"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pwned.db").path))
        #expect(!FileManager.default.fileExists(atPath: "pwned.db"))
    }

    @Test func readingAWALStoreChangesNothingAndCopiesNothing() throws {
        SQLiteStore.register()
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("live.sqlite")
        // A writer keeps the store open, so its WAL holds frames and its -shm exists.
        let writer = PersistentStoreCoordinator(model: try Company.model())
        let store = try writer.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: writer)
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        let before = fileBytes(url)
        let reader = try Self.context(url, options: ["readOnly": "YES"])
        #expect(try Company.names(reader, "Employee") == ["Ann"])
        // Read in place, not from a scratch copy (the store's own record: the temporary folder is shared with tests
        // running at the same time, which make and remove copies of their own).
        let readStore = try #require(reader.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        #expect(readStore.workingDirectory == nil)
        let after = fileBytes(url)
        #expect(after[""] == before[""])
        #expect(after["-wal"] == before["-wal"])
        _ = store
    }

    /// A copy of a WAL store's three files made while a writer had it open (as a backup or files from a Mac arrive):
    /// no process has the copy open, its `-wal` holds Ann.
    static func copiedLiveStore() throws -> URL {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("live.sqlite")
        let copy = try Fixtures.temporaryDirectory().appendingPathComponent("copy.sqlite")
        let writer = PersistentStoreCoordinator(model: try Company.model())
        let store = try writer.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: writer)
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        store.close()
        return copy
    }

    /// Read with its index mapped read-only (`walIndexReadOnly`, which `docutil` sets for every read), a copied WAL
    /// store's three files stay as they were — a reader sharing the index would rebuild it — what the `-wal` holds is
    /// read, and nothing is copied.
    @Test func readingACopiedWALStoreWithItsIndexReadOnlyLeavesItAsItWas() throws {
        let copy = try Self.copiedLiveStore()
        let before = fileBytes(copy)
        #expect(before["-wal"]?.count ?? 0 > 32, "the copy's -wal holds frames")
        #expect(before["-shm"] != nil)
        do {
            let reader = try Self.context(
                copy, options: ["readOnly": "YES", SQLiteStore.walIndexReadOnlyOption: "YES"])
            #expect(try Company.names(reader, "Employee") == ["Ann"])
            let readStore = try #require(reader.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
            #expect(readStore.workingDirectory == nil)
        }
        #expect(fileBytes(copy) == before)
    }

    /// By default a store read in this process leaves the index writable to a store opened later, in the same process,
    /// to write the same file: the writer saves, and the reader then sees what it saved.
    @Test func aStoreOpenedToWriteWhileTheSameFileIsOpenToReadSaves() throws {
        let copy = try Self.copiedLiveStore()
        let reader = try Self.context(copy, options: ["readOnly": "YES"])
        #expect(try Company.names(reader, "Employee") == ["Ann"])
        let writer = try Self.context(copy)
        try Self.employee(writer, "Ann").setAttributeValue(.integer32(7), forKey: "salary")
        try writer.save()
        let again = try Self.context(copy, options: ["readOnly": "YES"])
        #expect(try Self.employee(again, "Ann").attributeValue(forKey: "salary") == .integer32(7))
        _ = reader
    }

    @Test func aWALWithoutItsIndexIsReadFromAScratchCopyThatIsRemoved() throws {
        let url = try Self.companyStore()
        // A WAL with frames and no -shm: as a crashed writer leaves it, copied without its index.
        let folder = try Fixtures.temporaryDirectory()
        let copy = folder.appendingPathComponent("copy.sqlite")
        let writer = try Self.context(url)
        try Self.employee(writer, "Ann").setAttributeValue(.integer32(7), forKey: "salary")
        try writer.save()
        try FileManager.default.copyItem(at: url, to: copy)
        try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: copy.path + "-wal")
        let listing = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        do {
            let reader = try Self.context(copy, options: ["readOnly": "YES"])
            #expect(try Self.employee(reader, "Ann").attributeValue(forKey: "salary") == .integer32(7))
            #expect(Self.scratchFolders().count >= 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == listing)
    }

    /// This process's scratch folders in the temporary directory.
    static func scratchFolders() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
        return names.filter { $0.hasPrefix("docutil-\(getpid())-") }.sorted()
    }

    @Test func aStaleScratchFolderOfADeadProcessIsSwept() throws {
        let stale = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("docutil-999999999-deadbeef")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(atPath: stale.appendingPathComponent("store.sqlite").path, contents: Data()))
        let live = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("docutil-\(getpid())-livelive")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: live) }
        // Opening to read sweeps once a process; the sweep itself is what a fresh `docutil` run does first.
        #expect(ScratchFolders.sweepStale(prefix: "docutil") >= 1)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
    }

    @Test func aMissingExternalFileIsAnErrorNamingTheFile() throws {
        let url = try ExternalDataTests.store()
        let support = url.deletingLastPathComponent().appendingPathComponent(".photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.removeItem(at: support.appendingPathComponent(ExternalDataTests.externalName))
        do {
            _ = try ExternalDataTests.images(url)
            Issue.record("a missing external file read as data")
        } catch {
            #expect("\(error)".contains(ExternalDataTests.externalName), "\(error)")
        }
    }

    @Test func aTemplateFromACompiledModelFilters() throws {
        SQLiteStore.register()
        let loaded = try ModelLoader.load(from: Fixtures.project("Archived/Templates.mom"))
        let model = loaded.model
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("books.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for (title, pages, rating) in [
            ("The Sea", 120, 4.5), ("Dune", 600, 4.8), ("Emma", 400, 3.9), ("The Road", 250, 3.0),
        ] {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setAttributeValue(.integer32(Int32(pages)), forKey: "pages")
            try book.setValue(.double(rating), forKey: "rating")
        }
        try context.save()
        func titles(_ template: String, _ variables: [String: PredicateConstant] = [:]) throws -> [String] {
            let request = try model.fetchRequest(fromTemplate: template, substitutionVariables: variables)
            return try context.fetch(request).compactMap { try $0.attributeValue(forKey: "title").stringValue }.sorted()
        }
        #expect(try titles("LongBooks", ["MIN": .integer(300)]) == ["Dune", "Emma"])
        #expect(try titles("WellRatedThe") == ["The Sea"])
        #expect(try titles("AboutTheSea") == ["The Sea"])
        // NOT pages < 300 OR title IN {"The Road", "Zorba"}
        #expect(try titles("ShortOrListed") == ["Dune", "Emma", "The Road"])
        do {
            _ = try model.fetchRequest(fromTemplate: "Undecodable")
            Issue.record("a template whose predicate could not be read was used")
        } catch {
            #expect(error.code == .undecodable)
        }
        #expect(loaded.warnings.contains { $0.contains("Undecodable") })
    }
}
