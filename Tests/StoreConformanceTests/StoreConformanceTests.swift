import BinaryStore
import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// A store type under test: how to add a fresh store of it to a coordinator.
struct StoreUnderTest: Sendable, CustomStringConvertible {
    let type: String
    let fileExtension: String?
    var description: String { type }

    /// A coordinator with one new, empty store of this type (in a new temporary directory when it needs a file).
    func makeCoordinator(model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        try makeStore(model: model, named: "store").coordinator
    }

    /// ``makeCoordinator(model:)``, with the store's file (`name` and the type's extension) when it has one.
    func makeStore(model: ManagedObjectModel, named name: String) throws -> (
        coordinator: PersistentStoreCoordinator, url: URL?
    ) {
        let coordinator = PersistentStoreCoordinator(model: model)
        let url = try fileExtension.map { try Fixtures.temporaryDirectory().appendingPathComponent("\(name).\($0)") }
        try coordinator.addPersistentStore(type: type, url: url)
        return (coordinator, url)
    }

    /// A context over a copy of the store file at `url` (of this type) into a new file of type `other`, made by
    /// `migratePersistentStore`.
    func copy(of url: URL, into other: StoreUnderTest, model: ManagedObjectModel) throws -> ManagedObjectContext {
        let source = PersistentStoreCoordinator(model: model)
        try source.addPersistentStore(type: type, url: url)
        let copy = try Fixtures.temporaryDirectory().appendingPathComponent("copy.\(other.fileExtension ?? "")")
        try source.migratePersistentStore(source.persistentStores[0], to: copy, type: other.type)
        let reader = PersistentStoreCoordinator(model: model)
        try reader.addPersistentStore(type: other.type, url: copy)
        return ManagedObjectContext(coordinator: reader)
    }

    /// Every store type the conformance suite runs against. Stores added by later issues join this list.
    static let all: [StoreUnderTest] = {
        JSONTestStore.register()
        IncrementalTestStore.register()
        XMLStore.register()
        BinaryStore.register()
        SQLiteStore.register()
        return [
            StoreUnderTest(type: SQLiteStore.typeName, fileExtension: "sqlite"),
            StoreUnderTest(type: XMLStore.typeName, fileExtension: "xml"),
            StoreUnderTest(type: BinaryStore.typeName, fileExtension: "binary"),
            StoreUnderTest(type: "InMemory", fileExtension: nil),
            StoreUnderTest(type: JSONTestStore.typeName, fileExtension: "testjson"),
            StoreUnderTest(type: IncrementalTestStore.typeName, fileExtension: nil),
        ]
    }()
}

/// Composite values in every store type that stores them: written, read back from the file by a new coordinator,
/// and queried by member.
struct CompositeConformanceTests {
    static let stores = StoreUnderTest.all.filter { $0.type != JSONTestStore.typeName }

    @Test(arguments: stores)
    func compositeValuesRoundTrip(store: StoreUnderTest) throws {
        let model = try Quakes.model()
        let (coordinator, url) = try store.makeStore(model: model, named: "quakes")
        let context = ManagedObjectContext(coordinator: coordinator)
        try Quakes.populate(context)
        try context.save()

        // Read back through a new coordinator when the store has a file; else through a fresh context.
        var reader = coordinator
        if let url {
            reader = PersistentStoreCoordinator(model: model)
            try reader.addPersistentStore(type: store.type, url: url)
        }
        let again = ManagedObjectContext(coordinator: reader)
        let quakes = try again.fetch(FetchRequest(entityName: "Quake"))
        #expect(quakes.count == 3)
        for quake in quakes {
            guard case .string(let code) = try quake.attributeValue(forKey: "code") else {
                Issue.record("no code")
                continue
            }
            #expect(try quake.attributeValue(forKey: "magnitude") == Quakes.magnitudes[code], "\(store) \(code)")
        }
        let strong = try again.fetch(
            FetchRequest(entityName: "Quake", predicate: try ObjectPredicate(format: "magnitude.richter > 4.5")))
        #expect(try strong.map { try $0.attributeValue(forKey: "code") } == [.string("ak1")])
        let north = try again.fetch(
            FetchRequest(
                entityName: "Quake", predicate: try ObjectPredicate(format: "magnitude.epicentre.latitude > 60")))
        #expect(north.count == 1)
        // A member the composite does not have is an error, in a value and in a key path.
        #expect(throws: ObjectGraphError.self) {
            try quakes[0].setAttributeValue(.composite(["bogus": .double(1)]), forKey: "magnitude")
        }
        #expect(throws: ContextError.self) {
            try again.fetch(
                FetchRequest(entityName: "Quake", predicate: try ObjectPredicate(format: "magnitude.bogus > 1")))
        }
    }
}

/// One suite every store type must pass: insert, fetch, update, delete, save, rollback, reset, undo, redo,
/// uniquing, faults, notifications, validation, delete rules and optimistic locking.
struct StoreConformanceTests {
    func stack(_ store: StoreUnderTest, rule: DeleteRule = .cascade) throws -> ManagedObjectContext {
        ManagedObjectContext(coordinator: try store.makeCoordinator(model: try Company.model(departmentRule: rule)))
    }

    func fresh(_ context: ManagedObjectContext) -> ManagedObjectContext {
        ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
    }

    @Test(arguments: StoreUnderTest.all)
    func insertSaveAndFetch(store: StoreUnderTest) throws {
        let context = try stack(store)
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        let other = fresh(context)
        #expect(try Company.names(other, "Employee") == ["Ann", "Bob"])
        let request = FetchRequest(
            entityName: "Employee",
            predicate: try ObjectPredicate(format: "department.name == 'Sales' AND name != 'Ann'"))
        #expect(try other.fetch(request).map { try $0.attributeValue(forKey: "name") } == [.string("Bob")])
        #expect(try other.count(for: FetchRequest(entityName: "Department")) == 1)
        let ids = try other.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        #expect(ids.allSatisfy { !$0.isTemporary })
    }

    @Test(arguments: StoreUnderTest.all)
    func updateAndDelete(store: StoreUnderTest) throws {
        let context = try stack(store)
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        let ann = try #require(
            context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Ann'")))
                .first)
        try ann.setAttributeValue(.integer32(4242), forKey: "salary")
        let bob = try #require(
            context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Bob'")))
                .first)
        context.delete(bob)
        try context.save()
        let other = fresh(context)
        let employees = try other.fetch(FetchRequest(entityName: "Employee"))
        #expect(employees.count == 1)
        #expect(try employees.first?.attributeValue(forKey: "salary") == .integer32(4242))
        #expect(try employees.first?.value(forKeyPath: "department.employees.@count") == .integer(1))
    }

    @Test(arguments: StoreUnderTest.all)
    func rollbackAndReset(store: StoreUnderTest) throws {
        let context = try stack(store)
        let sales = try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        try sales.setValue(.string("Marketing"), forKey: "name")
        try Company.department("IT", staff: [], in: context)
        context.delete(try sales.objects(forKey: "employees")[0])
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try sales.attributeValue(forKey: "name") == .string("Sales"))
        #expect(try Company.names(context, "Department") == ["Sales"])
        #expect(try Company.names(context, "Employee") == ["Ann"])
        #expect(context.undoManager?.canUndo == false)
        context.reset()
        #expect(context.registeredObjects.isEmpty)
        #expect(try Company.names(context, "Department") == ["Sales"])
    }

    @Test(arguments: StoreUnderTest.all)
    func undoAndRedoAcrossSaves(store: StoreUnderTest) throws {
        let context = try stack(store)
        let sales = try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        try sales.setValue(.string("Sales & Marketing"), forKey: "name")
        context.processPendingChanges()
        try context.save()
        context.undo()
        #expect(try sales.attributeValue(forKey: "name") == .string("Sales"))
        #expect(context.hasChanges)
        try context.save()
        #expect(try Company.names(fresh(context), "Department") == ["Sales"])
        context.redo()
        try context.save()
        #expect(try Company.names(fresh(context), "Department") == ["Sales & Marketing"])
        // Undoing the save of an insert deletes the object; redo brings it back.
        let it = try Company.department("IT", staff: [], in: context)
        context.processPendingChanges()
        try context.save()
        context.undo()
        #expect(it.isDeleted)
        try context.save()
        #expect(try Company.names(fresh(context), "Department") == ["Sales & Marketing"])
        context.redo()
        try context.save()
        #expect(try Company.names(fresh(context), "Department") == ["IT", "Sales & Marketing"])
    }

    @Test(arguments: StoreUnderTest.all)
    func uniquingAndFaults(store: StoreUnderTest) throws {
        let context = try stack(store)
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        let other = fresh(context)
        let id = try #require(other.fetchObjectIDs(FetchRequest(entityName: "Employee")).first)
        let reader = fresh(context)
        let fault = try reader.object(with: id)
        #expect(fault.isFault)
        #expect(try fault.attributeValue(forKey: "name") == .string("Ann"))
        #expect(!fault.isFault)
        #expect(try reader.fetch(FetchRequest(entityName: "Employee")).first === fault)
        let department = try #require(try fault.object(forKey: "department"))
        #expect(try department.objects(forKey: "employees").first === fault)
        try reader.refresh(fault, mergeChanges: false)
        #expect(fault.isFault)
        #expect(try fault.attributeValue(forKey: "name") == .string("Ann"))
    }

    @Test(arguments: StoreUnderTest.all)
    func notifications(store: StoreUnderTest) throws {
        let context = try stack(store)
        var changes: [(Int, Int, Int)] = []
        var saves: [SavedChanges] = []
        var willSave = 0
        let t1 = context.addObserver(for: .objectsDidChange) {
            changes.append(($0.inserted.count, $0.updated.count, $0.deleted.count))
        }
        let t2 = context.addObserver(for: .didSave) { if let s = $0.savedChanges { saves.append(s) } }
        let t3 = context.addObserver(for: .willSave) { _ in willSave += 1 }
        let sales = try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        context.processPendingChanges()
        #expect(changes.count == 1 && changes[0].0 == 3)
        try context.save()
        #expect(willSave == 1)
        #expect(saves.count == 1 && saves[0].inserted.count == 3)
        try sales.setValue(.string("S"), forKey: "name")
        try sales.setValue(.string("Sa"), forKey: "name")
        context.processPendingChanges()
        #expect(changes.last! == (0, 1, 0))
        context.delete(sales)
        try context.save()
        #expect(saves.last?.deleted.count == 3)
        [t1, t2, t3].forEach { $0.cancel() }
        try Company.department("IT", staff: [], in: context)
        context.processPendingChanges()
        #expect(changes.count == 3)
    }

    @Test(arguments: StoreUnderTest.all)
    func validationAndDeleteRules(store: StoreUnderTest) throws {
        let context = try stack(store, rule: .deny)
        let sales = try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        context.delete(sales)
        #expect(throws: ContextError.self) { try context.save() }
        context.rollback()
        let employee = try context.insertNewObject(forEntityName: "Employee")
        try employee.setAttributeValue(.integer32(200_000), forKey: "salary")
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(Set(error.validationErrors.map(\.code)) == [.required, .aboveMaximum])
        #expect(try fresh(context).count(for: FetchRequest(entityName: "Employee")) == 1)

        let cascading = try stack(store, rule: .cascade)
        let it = try Company.department("IT", staff: ["Cid", "Dee"], in: cascading)
        try cascading.save()
        cascading.delete(it)
        try cascading.save()
        #expect(try fresh(cascading).count(for: FetchRequest(entityName: "Employee")) == 0)
    }

    @Test(arguments: StoreUnderTest.all)
    func optimisticLocking(store: StoreUnderTest) throws {
        let context = try stack(store)
        let sales = try Company.department("Sales", staff: [], in: context)
        try context.save()
        let second = fresh(context)
        let copy = try second.existingObject(with: sales.objectID)
        try sales.setValue(.string("A"), forKey: "name")
        try context.save()
        try copy.setValue(.string("B"), forKey: "name")
        #expect(throws: ContextError.self) { try second.save() }
        second.mergePolicy = .objectTrumps
        try second.save()
        #expect(try Company.names(fresh(context), "Department") == ["B"])
        // A delete of a stale object conflicts too.
        let third = fresh(context)
        let stale = try third.existingObject(with: sales.objectID)
        try copy.setValue(.string("C"), forKey: "name")
        try second.save()
        third.delete(stale)
        #expect(throws: ContextError.self) { try third.save() }
    }
}

/// File stores: everything saved is there after reopening with a new coordinator.
struct StoreRoundTripTests {
    static let fileStores = StoreUnderTest.all.filter { $0.fileExtension != nil }

    @Test(arguments: fileStores)
    func everyValueAndRelationshipSurvivesReopening(store: StoreUnderTest) throws {
        let model = try Catalog.model()
        let coordinator = try store.makeCoordinator(model: model)
        let url = try #require(coordinator.persistentStores.first?.description.url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 40)
        try context.save()
        let expected = try Catalog.describe(context)
        #expect(expected.count == 47)

        let reopened = PersistentStoreCoordinator(model: model)
        try reopened.addPersistentStore(type: store.type, url: url)
        let fresh = ManagedObjectContext(coordinator: reopened)
        #expect(try Catalog.describe(fresh) == expected)
        // Changes and deletes are written too.
        let first = try #require(
            fresh.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "name == 'item 1'")))
                .first)
        try first.setValue(.string("renamed"), forKey: "name")
        fresh.delete(try #require(fresh.fetch(FetchRequest(entityName: "Tag")).first))
        try fresh.save()
        let after = try Catalog.describe(fresh)
        let third = PersistentStoreCoordinator(model: model)
        try third.addPersistentStore(type: store.type, url: url)
        #expect(try Catalog.describe(ManagedObjectContext(coordinator: third)) == after)
    }
}

/// Store metadata holds any property-list value: every store keeps what its format can hold and refuses the rest at
/// save (the file unchanged), never dropping or replacing a value.
struct StoreMetadataTests {
    static let appValue: PropertyList = .dictionary([
        "count": .integer(3), "ratio": .real(0.5), "flag": .boolean(true),
        "when": .date(Date(timeIntervalSince1970: 0)),
        "bytes": .data(Data([0, 1, 2])), "names": .array([.string("a"), .string("b")]),
    ])
    static let archiveOnly: PropertyList = .array([.uid(7), .null])

    /// The package's own file stores (the test stores keep no metadata).
    static let stores = StoreRoundTripTests.fileStores.filter {
        [SQLiteStore.typeName, XMLStore.typeName, BinaryStore.typeName].contains($0.type)
    }

    @Test(arguments: stores)
    func appMetadataIsKeptOrRefusedWhole(store: StoreUnderTest) throws {
        let model = try Catalog.model()
        let coordinator = try store.makeCoordinator(model: model)
        let persistent = try #require(coordinator.persistentStores.first)
        let url = try #require(persistent.description.url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 2)
        persistent.metadata["app"] = Self.appValue
        try context.save()
        let saved = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: store.type, at: url)
        #expect(saved["app"] == Self.appValue)

        let before = try Data(contentsOf: url)
        persistent.metadata["archive"] = Self.archiveOnly
        try Catalog.populate(context, count: 1)
        if store.type == XMLStore.typeName {
            // An XML property list has no form for either value: the save is refused and the file left as it was.
            let error = #expect(throws: (any Error).self) { try context.save() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("no form in an XML property list"))
            #expect(try Data(contentsOf: url) == before)
        } else {
            try context.save()
            let after = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: store.type, at: url)
            #expect(after["archive"] == Self.archiveOnly)
            #expect(after["app"] == Self.appValue)
        }
    }
}

/// An update sets some attributes to nil and others to values, one or several at a time: every store type keeps
/// exactly those changes (an update's values travel by slot, where nil is an empty slot its changed keys name).
struct NilUpdateConformanceTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "count", type: .integer64),
                    AttributeDescription(name: "score", type: .double),
                ])
        ])
    }

    @Test(arguments: StoreUnderTest.all)
    func anUpdateToNilIsSavedAsNil(store: StoreUnderTest) throws {
        let model = try Self.model()
        let (coordinator, url) = try store.makeStore(model: model, named: "notes")
        let writer = ManagedObjectContext(coordinator: coordinator)
        for i in 0..<3 {
            let note = try writer.insertNewObject(forEntityName: "Note")
            try note.setAttributeValue(.string("note \(i)"), forKey: "title")
            try note.setAttributeValue(.integer64(Int64(i)), forKey: "count")
            try note.setAttributeValue(.double(Double(i) + 0.5), forKey: "score")
        }
        try writer.save()

        func notes(_ coordinator: PersistentStoreCoordinator) throws -> [[AttributeValue]] {
            var request = FetchRequest(entityName: "Note")
            request.sortDescriptors = [ObjectSortDescriptor(keyPath: "score", ascending: true)]
            let context = ManagedObjectContext(coordinator: coordinator)
            let values = try context.fetch(request).map { note in
                try ["title", "count", "score"].map { try note.attributeValue(forKey: $0) }
            }
            withExtendedLifetime(context) {}
            return values
        }
        // Two changes to one note (nil and a value), one change to nil of another, in one save; then another save.
        let editor = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Note")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "count", ascending: true)]
        let fetched = try editor.fetch(request)
        try #require(fetched.count == 3)
        try fetched[0].setAttributeValue(.null, forKey: "title")
        try fetched[0].setAttributeValue(.integer64(40), forKey: "count")
        try fetched[1].setAttributeValue(.null, forKey: "count")
        try editor.save()
        try fetched[2].setAttributeValue(.null, forKey: "title")
        try editor.save()

        let expected: [[AttributeValue]] = [
            [.null, .integer64(40), .double(0.5)],
            [.string("note 1"), .null, .double(1.5)],
            [.null, .integer64(2), .double(2.5)],
        ]
        #expect(try notes(coordinator) == expected, "\(store) through its coordinator")
        if let url {
            let reader = PersistentStoreCoordinator(model: model)
            try reader.addPersistentStore(type: store.type, url: url)
            #expect(try notes(reader) == expected, "\(store) read back from its file")
        }
    }
}
