import BinaryStore
import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Copies of a store with a context's unsaved changes laid over it (save a copy, save as), and migration that
/// contexts follow, between every pair of file store types.
struct CopyAndMigrationTests {
    static let fileStores = StoreUnderTest.all.filter {
        [SQLiteStore.typeName, XMLStore.typeName, BinaryStore.typeName].contains($0.type)
    }
    static let pairs: [(StoreUnderTest, StoreUnderTest)] = fileStores.flatMap { a in fileStores.map { (a, $0) } }

    /// A saved store (Sales: Ann, Bob; Research: Cy) and a context with unsaved changes over it: Ann renamed to
    /// Anna, Bob deleted, Dee inserted into Research, a new department Ops with Eve.
    static func editedStore(_ store: StoreUnderTest) throws -> (ManagedObjectContext, URL) {
        let coordinator = try store.makeCoordinator(model: try Company.model())
        let context = ManagedObjectContext(coordinator: coordinator)
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        let research = try Company.department("Research", staff: ["Cy"], in: context)
        try context.save()
        let url = try #require(coordinator.persistentStores.first?.description.url)
        let ann = try #require(try find(context, "Employee", "Ann"))
        try ann.setValue(.string("Anna"), forKey: "name")
        context.delete(try #require(try find(context, "Employee", "Bob")))
        let dee = try context.insertNewObject(forEntityName: "Employee")
        try dee.setValue(.string("Dee"), forKey: "name")
        try dee.setObject(research, forKey: "department")
        try Company.department("Ops", staff: ["Eve"], in: context)
        context.processPendingChanges()
        return (context, url)
    }

    static func find(_ context: ManagedObjectContext, _ entity: String, _ name: String) throws -> ManagedObject? {
        try context.fetch(
            FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: "name == %@", FormatArgument(name)))
        )
        .first
    }

    /// Names of the employees of each department in a file, read by a new coordinator.
    static func staff(in url: URL, type: String) throws -> [String: [String]] {
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        try coordinator.addPersistentStore(type: type, url: url, options: ["readOnly": "YES"])
        let context = ManagedObjectContext(coordinator: coordinator)
        var result: [String: [String]] = [:]
        for department in try context.fetch(FetchRequest(entityName: "Department")) {
            let name = try department.attributeValue(forKey: "name").stringValue ?? "?"
            result[name] = try department.objects(forKey: "employees")
                .map { try $0.attributeValue(forKey: "name").stringValue ?? "?" }.sorted()
        }
        return result
    }

    static let before = ["Sales": ["Ann", "Bob"], "Research": ["Cy"]]
    static let after = ["Sales": ["Anna"], "Research": ["Cy", "Dee"], "Ops": ["Eve"]]

    @Test(arguments: pairs)
    func aCopyHoldsTheUnsavedChangesAndTheOriginalStaysAsItWas(from: StoreUnderTest, to: StoreUnderTest) throws {
        let (context, url) = try Self.editedStore(from)
        let original = try Data(contentsOf: url)
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy.\(to.fileExtension ?? "x")")
        let changes = try context.unsavedChanges()
        #expect(changes.inserted.count == 3 && changes.deleted.count == 1)
        let coordinator = context.persistentStoreCoordinator
        let mapping = try coordinator.writeCopy(
            of: try #require(coordinator.persistentStores.first), applying: changes, to: copy, type: to.type)
        // Every new object got a permanent ID in the copy.
        for snapshot in changes.inserted { #expect(mapping[snapshot.objectID]?.isTemporary == false) }
        #expect(try Self.staff(in: copy, type: to.type) == Self.after)
        // The document's own file and its context are as they were: still edited, nothing written.
        #expect(try Data(contentsOf: url) == original)
        #expect(context.hasChanges)
        #expect(try Self.staff(in: url, type: from.type) == Self.before)
        // One complete file: no side files or temporary files beside the copy.
        let names = try FileManager.default.contentsOfDirectory(atPath: copy.deletingLastPathComponent().path)
        #expect(!names.contains { $0.contains("copy.") && $0 != copy.lastPathComponent })
        #expect(!names.contains { $0.contains(SafeReplacement.marker) })
    }

    @Test(arguments: pairs)
    func replacingTheStoreWithACopyLetsTheContextGoOn(from: StoreUnderTest, to: StoreUnderTest) throws {
        let (context, url) = try Self.editedStore(from)
        let original = try Data(contentsOf: url)
        let coordinator = context.persistentStoreCoordinator
        let target = url.deletingLastPathComponent().appendingPathComponent("moved.\(to.fileExtension ?? "x")")
        try context.validateForSave()
        let (store, mapping) = try coordinator.replacePersistentStore(
            try #require(coordinator.persistentStores.first), withCopyAt: target, type: to.type,
            applying: try context.unsavedChanges())
        context.adoptSavedChanges(mapping: mapping)
        #expect(!context.hasChanges)
        #expect(store.description.url == target)
        #expect(coordinator.persistentStores.count == 1)
        // The old file keeps its contents (a SQLite file's log is folded into it when its store closes).
        if from.type != SQLiteStore.typeName { #expect(try Data(contentsOf: url) == original) }
        #expect(try Self.staff(in: url, type: from.type) == Self.before)
        // The same objects keep working: Dee (new, now saved) is changed and saved into the new file.
        let dee = try #require(try Self.find(context, "Employee", "Dee"))
        #expect(!dee.objectID.isTemporary)
        try dee.setAttributeValue(.integer32(4242), forKey: "salary")
        try context.save()
        var expected = Self.after
        expected["Research"] = ["Cy", "Dee"]
        #expect(try Self.staff(in: target, type: to.type) == expected)
        let reread = try #require(try Self.find(context, "Employee", "Anna"))
        #expect(try reread.value(forKeyPath: "department.name") == .string("Sales"))
        // Undo still works across the save as: the salary goes back, and saving writes that.
        context.undo()
        #expect(context.hasChanges)
        try context.save()
        let check = PersistentStoreCoordinator(model: try Company.model())
        try check.addPersistentStore(type: to.type, url: target, options: ["readOnly": "YES"])
        let fresh = ManagedObjectContext(coordinator: check)
        #expect(try Self.find(fresh, "Employee", "Dee")?.attributeValue(forKey: "salary") == .integer32(1000))
    }

    @Test func aMigrationThatRenumbersKeepsTheContextsObjectsAndTheirChanges() throws {
        // SQLite numbers keys per entity (Department 1, Employee 1…); the XML store has one counter, so the
        // migration renumbers, and a context holding objects and unsaved changes must follow without a conflict.
        let sqlite = try #require(Self.fileStores.first { $0.type == SQLiteStore.typeName })
        let coordinator = try sqlite.makeCoordinator(model: try Company.model())
        let context = ManagedObjectContext(coordinator: coordinator)
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        let ann = try #require(try Self.find(context, "Employee", "Ann"))
        let oldID = ann.objectID
        try ann.setAttributeValue(.integer32(7000), forKey: "salary")
        let url = try #require(coordinator.persistentStores.first?.description.url)
        let xml = url.deletingLastPathComponent().appendingPathComponent("migrated.xml")
        try coordinator.migratePersistentStore(
            try #require(coordinator.persistentStores.first), to: xml, type: XMLStore.typeName, contexts: [context])
        #expect(ann.objectID != oldID)
        #expect(context.registeredObject(for: ann.objectID) === ann)
        #expect(ann.hasChanges)
        try context.save()
        let check = PersistentStoreCoordinator(model: try Company.model())
        try check.addPersistentStore(type: XMLStore.typeName, url: xml, options: ["readOnly": "YES"])
        let fresh = ManagedObjectContext(coordinator: check)
        #expect(try Self.find(fresh, "Employee", "Ann")?.attributeValue(forKey: "salary") == .integer32(7000))
        #expect(try Self.find(fresh, "Employee", "Bob")?.value(forKeyPath: "department.name") == .string("Sales"))
    }

    @Test func aCopyThatCannotBeWrittenLeavesNothing() throws {
        let sqlite = try #require(Self.fileStores.first { $0.type == SQLiteStore.typeName })
        let (context, url) = try Self.editedStore(sqlite)
        let folder = url.deletingLastPathComponent()
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let coordinator = context.persistentStoreCoordinator
        let store = try #require(coordinator.persistentStores.first)
        // Writing over the store's own file is refused.
        #expect(throws: StoreError.self) {
            try coordinator.writeCopy(of: store, applying: try context.unsavedChanges(), to: url, type: "XML")
        }
        // A failing write (injected) leaves no temporary file.
        FailureInjection.with({ url, _ in url.lastPathComponent.contains("failing.xml") }) {
            #expect(throws: StoreError.self) {
                try coordinator.writeCopy(
                    of: store, applying: try context.unsavedChanges(), to: folder.appendingPathComponent("failing.xml"),
                    type: "XML")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }

    @Test(arguments: [" ", " 6B1F3C2E-6F0B-4D4A-9C5E-2A1D7E8F9A01", "6B1F3C2E\n"])
    func aStoreUUIDTheXMLStoreWouldTrimIsRefusedThere(uuid: String) throws {
        // A SQLite store whose Z_UUID has white space at an end (written by another program): the XML store's reader
        // trims it, so the copy would name another store (or none, and not open); the binary store keeps it as it is.
        let sqlite = try #require(Self.fileStores.first { $0.type == SQLiteStore.typeName })
        let (context, url) = try Self.editedStore(sqlite)
        try context.save()
        let quoted = uuid.replacingOccurrences(of: "'", with: "''")
        try SQLiteScript.execute(url, "UPDATE Z_METADATA SET Z_UUID = '\(quoted)'")
        let coordinator = PersistentStoreCoordinator(model: context.model)
        let store = try coordinator.addPersistentStore(
            type: SQLiteStore.typeName, url: url, options: ["readOnly": "YES"])
        let folder = url.deletingLastPathComponent()
        let xml = folder.appendingPathComponent("trimmed.xml")
        let error = #expect(throws: StoreError.self) { try coordinator.writeCopy(of: store, to: xml, type: "XML") }
        #expect(error?.message.contains("white space") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: xml.path))
        let binary = folder.appendingPathComponent("kept.binary")
        try coordinator.writeCopy(of: store, to: binary, type: "Binary")
        let reader = PersistentStoreCoordinator(model: context.model)
        #expect(try reader.addPersistentStore(type: "Binary", url: binary).identifier == uuid)
    }

    /// A document whose to-many relationships disagree with their inverses (edited by hand: an owner's `items` lacks
    /// the item whose `owner` it is; a tag's `items` lacks an item that lists the tag) is copied as it is into the
    /// stores that keep both sides, and refused by a SQLite copy, which keeps one side and would take it for both;
    /// the refused copy leaves no file.
    @Test func aCopyIntoSQLiteRefusesRelationshipsThatDisagreeWithTheirInverses() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true)
                ]),
            EntityDescription(
                name: "Item", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
                ]),
            EntityDescription(
                name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true)
                ]),
        ])
        _ = StoreUnderTest.all  // registers the store types
        let folder = try Fixtures.temporaryDirectory()
        let url = folder.appendingPathComponent("edited.xml")
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: XMLStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let owner = try context.insertNewObject(forEntityName: "Owner")
        let item = try context.insertNewObject(forEntityName: "Item")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try item.setObject(owner, forKey: "owner")
        try item.setObjects([tag], forKey: "tags")
        try context.save()
        // Consistent as saved: it copies into SQLite.
        _ = try coordinator.writeCopy(of: store, to: folder.appendingPathComponent("whole.sqlite"), type: "SQLite")

        // The item's object taken out by hand: the owner's items (one-to-many, kept on the items' rows in SQLite)
        // names an object that is not there, which a SQLite copy could not keep.
        do {
            let text = try String(contentsOf: url, encoding: .utf8)
            let start = try #require(text.range(of: "    <object type=\"ITEM\""))
            let end = try #require(text.range(of: "    </object>\n", range: start.upperBound..<text.endIndex))
            let edited = folder.appendingPathComponent("no-item.xml")
            try text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: "").write(
                to: edited, atomically: true, encoding: .utf8)
            let reader = PersistentStoreCoordinator(model: model)
            let source = try reader.addPersistentStore(type: XMLStore.typeName, url: edited)
            let sqlite = folder.appendingPathComponent("no-item.sqlite")
            try Self.expectRefusedSQLiteCopy(of: source, in: reader, to: sqlite, saying: "not in the store")
        }

        for side in ["OWNER", "TAG"] {
            // One side of a pair emptied by hand: the to-many of the owner, then of the tag.
            let text = try String(contentsOf: url, encoding: .utf8)
            var lines = text.components(separatedBy: "\n")
            var inObject = false
            for (n, line) in lines.enumerated() {
                if line.contains("<object type=\"\(side)\"") { inObject = true }
                if inObject, line.contains("name=\"items\""),
                    let range = line.range(of: #" idrefs="[^"]*""#, options: .regularExpression)
                {
                    lines[n].removeSubrange(range)
                    break
                }
            }
            let edited = folder.appendingPathComponent("edited-\(side).xml")
            try lines.joined(separator: "\n").write(to: edited, atomically: true, encoding: .utf8)
            #expect(lines.joined(separator: "\n") != text)
            let reader = PersistentStoreCoordinator(model: model)
            let source = try reader.addPersistentStore(type: XMLStore.typeName, url: edited)
            let sqlite = folder.appendingPathComponent("copy-\(side).sqlite")
            try Self.expectRefusedSQLiteCopy(of: source, in: reader, to: sqlite, saying: "disagree")
            // A binary copy keeps both sides as they are.
            let binary = folder.appendingPathComponent("copy-\(side).binary")
            _ = try reader.writeCopy(of: source, to: binary, type: BinaryStore.typeName)
            let again = PersistentStoreCoordinator(model: model)
            try again.addPersistentStore(type: BinaryStore.typeName, url: binary)
            let readBack = ManagedObjectContext(coordinator: again)
            let copiedItem = try #require(try readBack.fetch(FetchRequest(entityName: "Item")).first)
            let copiedOwner = try #require(try readBack.fetch(FetchRequest(entityName: "Owner")).first)
            let copiedTag = try #require(try readBack.fetch(FetchRequest(entityName: "Tag")).first)
            #expect(try copiedItem.objectIDs(forKey: "owner") == [copiedOwner.objectID])
            #expect(try copiedItem.objectIDs(forKey: "tags") == [copiedTag.objectID])
            let emptied = side == "OWNER" ? copiedOwner : copiedTag
            #expect(try emptied.objectIDs(forKey: "items").isEmpty)
        }
    }

    /// A pair whose sides do not both name each other (a to-many naming an inverse that names none: a model warning)
    /// is not checked as a pair, so a copy into SQLite of such a document goes through.
    @Test func aPairWhoseInverseIsDeclaredOnAnAncestorIsChecked() throws {
        // Owner.specials → SpecialItem, whose inverse `keeper` is declared on Item, SpecialItem's parent.
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "specials", destination: "SpecialItem", inverse: "keeper", toMany: true)
                ]),
            EntityDescription(
                name: "Item", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "keeper", destination: "Owner", inverse: "specials")]),
            EntityDescription(name: "SpecialItem", parent: "Item"),
        ])
        let (folder, url, context) = try Self.newXMLDocument(model, named: "ancestor.xml")
        let owner = try context.insertNewObject(forEntityName: "Owner")
        let special = try context.insertNewObject(forEntityName: "SpecialItem")
        try special.setObject(owner, forKey: "keeper")
        try context.save()
        #expect(try owner.objectIDs(forKey: "specials") == [special.objectID])
        // The owner's `specials` emptied by hand: the special item's `keeper` still names it.
        let text = try String(contentsOf: url, encoding: .utf8)
        let edited = try #require(
            text.range(of: #"name="specials"[^>]* idrefs="[^"]*""#, options: .regularExpression).map { range in
                text.replacingCharacters(
                    in: range,
                    with: String(text[range]).replacingOccurrences(
                        of: #" idrefs="[^"]*""#, with: "", options: .regularExpression))
            })
        let editedURL = folder.appendingPathComponent("ancestor-edited.xml")
        try edited.write(to: editedURL, atomically: true, encoding: .utf8)
        let reader = PersistentStoreCoordinator(model: model)
        let source = try reader.addPersistentStore(type: XMLStore.typeName, url: editedURL)
        try Self.expectRefusedSQLiteCopy(
            of: source, in: reader, to: folder.appendingPathComponent("ancestor.sqlite"), saying: "disagree")
    }

    @Test func aHalfDeclaredInverseIsNotCheckedAsAPair() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true)
                ]),
            EntityDescription(
                name: "Item", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "owner", destination: "Owner")]),
        ])
        _ = StoreUnderTest.all  // registers the store types
        let folder = try Fixtures.temporaryDirectory()
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(
            type: BinaryStore.typeName, url: folder.appendingPathComponent("half.binary"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let owner = try context.insertNewObject(forEntityName: "Owner")
        let item = try context.insertNewObject(forEntityName: "Item")
        try owner.setObjects([item], forKey: "items")
        try item.setObject(owner, forKey: "owner")
        try context.save()
        let copy = folder.appendingPathComponent("half.sqlite")
        _ = try coordinator.writeCopy(of: store, to: copy, type: "SQLite")
        let again = PersistentStoreCoordinator(model: model)
        try again.addPersistentStore(type: "SQLite", url: copy)
        let reader = ManagedObjectContext(coordinator: again)
        let read = try #require(try reader.fetch(FetchRequest(entityName: "Item")).first)
        #expect(try read.objectIDs(forKey: "owner").count == 1)
    }

    /// A to-many relationship without an inverse that names one object from two owners (a binary or XML document
    /// holds it; Core Data warns of such models) is refused by a copy into SQLite, which keeps it as one key on each
    /// destination, and kept by a copy into XML.
    @Test func aCopyIntoSQLiteRefusesADestinationSharedByAnInverselessToMany() throws {
        let model = try Self.ownerTagModel()
        _ = StoreUnderTest.all  // registers the store types
        let folder = try Fixtures.temporaryDirectory()
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(
            type: BinaryStore.typeName, url: folder.appendingPathComponent("shared.binary"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let tag = try context.insertNewObject(forEntityName: "Tag")
        for name in ["a", "b"] {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue(.string(name), forKey: "name")
            try owner.setObjects([tag], forKey: "tags")
        }
        try context.save()
        let sqlite = folder.appendingPathComponent("shared.sqlite")
        try Self.expectRefusedSQLiteCopy(of: store, in: coordinator, to: sqlite, saying: "without an inverse")
        let xml = folder.appendingPathComponent("shared.xml")
        _ = try coordinator.writeCopy(of: store, to: xml, type: XMLStore.typeName)
        let again = PersistentStoreCoordinator(model: model)
        try again.addPersistentStore(type: XMLStore.typeName, url: xml)
        let reader = ManagedObjectContext(coordinator: again)
        let owners = try reader.fetch(FetchRequest(entityName: "Owner"))
        #expect(try owners.map { try $0.objectIDs(forKey: "tags").count } == [1, 1])
    }

    /// A to-many without an inverse naming an object that is gone (its destination deleted: nothing nullifies the
    /// link) is kept by binary and XML documents; a copy into SQLite, which keeps the link on the destination's row,
    /// is refused rather than dropping it.
    @Test func aCopyIntoSQLiteRefusesADanglingLinkOfAnInverselessToMany() throws {
        let model = try Self.ownerTagModel()
        _ = StoreUnderTest.all  // registers the store types
        let folder = try Fixtures.temporaryDirectory()
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(
            type: BinaryStore.typeName, url: folder.appendingPathComponent("gone.binary"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let tag = try context.insertNewObject(forEntityName: "Tag")
        let owner = try context.insertNewObject(forEntityName: "Owner")
        try owner.setObjects([tag], forKey: "tags")
        try context.save()
        context.delete(tag)
        try context.save()
        #expect(try owner.objectIDs(forKey: "tags").count == 1)
        let sqlite = folder.appendingPathComponent("gone.sqlite")
        try Self.expectRefusedSQLiteCopy(of: store, in: coordinator, to: sqlite, saying: "not in the store")
    }

    /// An XML document whose to-many names one object twice (`idrefs="z105 z105"`, edited by hand) reads it as one
    /// link — a to-many is a set — so every copy holds the same links as the document.
    @Test func anIdGivenTwiceInAToManyIsOneLink() throws {
        let model = try Self.ownerTagModel()
        let (folder, url, context) = try Self.newXMLDocument(model, named: "twice.xml")
        let owner = try context.insertNewObject(forEntityName: "Owner")
        let first = try context.insertNewObject(forEntityName: "Tag")
        let second = try context.insertNewObject(forEntityName: "Tag")
        try owner.setObjects([first, second], forKey: "tags")
        try context.save()
        let text = try String(contentsOf: url, encoding: .utf8)
        let range = try #require(text.range(of: #"idrefs="z[0-9]+ z[0-9]+""#, options: .regularExpression))
        let ids = text[range].dropFirst(8).dropLast().split(separator: " ")
        try text.replacingCharacters(in: range, with: "idrefs=\"\(ids[0]) \(ids[1]) \(ids[0])\"").write(
            to: url, atomically: true, encoding: .utf8)
        let reader = PersistentStoreCoordinator(model: model)
        let store = try reader.addPersistentStore(type: XMLStore.typeName, url: url)
        let readContext = ManagedObjectContext(coordinator: reader)
        let read = try #require(try readContext.fetch(FetchRequest(entityName: "Owner")).first)
        #expect(try read.objectIDs(forKey: "tags").count == 2)
        _ = try reader.writeCopy(of: store, to: folder.appendingPathComponent("twice.sqlite"), type: "SQLite")
    }

    /// A new XML document of `model` called `name` in a folder of its own, and a context on it.
    static func newXMLDocument(_ model: ManagedObjectModel, named name: String) throws -> (
        folder: URL, url: URL, context: ManagedObjectContext
    ) {
        _ = StoreUnderTest.all  // registers the store types
        let folder = try Fixtures.temporaryDirectory()
        let url = folder.appendingPathComponent(name)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: XMLStore.typeName, url: url)
        return (folder, url, ManagedObjectContext(coordinator: coordinator))
    }

    /// Owners with `tags`, a to-many without an inverse, and tags.
    static func ownerTagModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "tags", destination: "Tag", toMany: true)]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
    }

    /// A copy of `store` into SQLite at `url` is refused with an error saying `text`, and leaves no file.
    static func expectRefusedSQLiteCopy(
        of store: any PersistentStore, in coordinator: PersistentStoreCoordinator, to url: URL, saying text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) {
            try coordinator.writeCopy(of: store, to: url, type: "SQLite")
        }
        #expect(
            error?.description.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: url.path), sourceLocation: sourceLocation)
    }
}
