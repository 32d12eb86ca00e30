import Foundation
import ObjectGraph
import TestSupport
import Testing

struct MergePolicyTests {
    /// Two contexts change the same employee; the second save meets a conflict.
    func conflict(_ policy: MergePolicy) throws -> (ManagedObjectContext, ManagedObjectContext, ManagedObject) {
        let first = try Company.context()
        let coordinator = first.persistentStoreCoordinator
        let employee = try first.insertNewObject(forEntityName: "Employee")
        try employee.setValue(.string("Ann"), forKey: "name")
        try employee.setValue(.string("ann@a.com"), forKey: "email")
        try first.save()

        let second = ManagedObjectContext(coordinator: coordinator)
        second.mergePolicy = policy
        let copy = try second.existingObject(with: employee.objectID)
        // The first context changes name and salary and saves.
        try employee.setValue(.string("Anne"), forKey: "name")
        try employee.setAttributeValue(.integer32(2000), forKey: "salary")
        try first.save()
        // The second changes salary and email from the old version.
        try copy.setAttributeValue(.integer32(3000), forKey: "salary")
        try copy.setValue(.string("anne@b.com"), forKey: "email")
        return (first, second, copy)
    }

    func stored(_ context: ManagedObjectContext) throws -> (String?, Int64?, String?) {
        let fresh = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let e = try #require(fresh.fetch(FetchRequest(entityName: "Employee")).first)
        return (
            try e.attributeValue(forKey: "name").stringValue, try e.attributeValue(forKey: "salary").int64Value,
            try e.attributeValue(forKey: "email").stringValue
        )
    }

    @Test func errorPolicyReportsTheConflict() throws {
        let (_, second, copy) = try conflict(.error)
        let error = try #require(throws: ContextError.self) { try second.save() }
        guard case .conflicts(let conflicts) = error else { Issue.record("expected conflicts: \(error)"); return }
        #expect(conflicts.map(\.objectID) == [copy.objectID])
        #expect(conflicts.first?.storedSnapshot?.version == 2)
        #expect(try stored(second) == ("Anne", 2000, "ann@a.com"))
    }

    @Test func storeTrumpsKeepsTheStoresChangesAndOurOthers() throws {
        let (_, second, _) = try conflict(.storeTrumps)
        try second.save()
        #expect(try stored(second) == ("Anne", 2000, "anne@b.com"))
    }

    @Test func objectTrumpsKeepsOurChangesAndTheStoresOthers() throws {
        let (_, second, _) = try conflict(.objectTrumps)
        try second.save()
        #expect(try stored(second) == ("Anne", 3000, "anne@b.com"))
    }

    @Test func overwriteWritesOurObjectWhole() throws {
        let (_, second, _) = try conflict(.overwrite)
        try second.save()
        #expect(try stored(second) == ("Ann", 3000, "anne@b.com"))
    }

    @Test func rollbackDiscardsOurChanges() throws {
        let (_, second, copy) = try conflict(.rollback)
        try second.save()
        #expect(try stored(second) == ("Anne", 2000, "ann@a.com"))
        #expect(try copy.attributeValue(forKey: "salary") == .integer32(2000))
    }

    /// A deletion meets a row another context changed since it was read (the deleted object unchanged here, or changed
    /// before it was deleted): the error policy reports it and the row stays; every other policy retries with the
    /// stored version and the row goes.
    @Test(arguments: [MergePolicy.error, .rollback, .objectTrumps, .storeTrumps, .overwrite], [false, true])
    func aDeletionMeetsAChangedRow(policy: MergePolicy, changedFirst: Bool) throws {
        let first = try Company.context()
        let employee = try first.insertNewObject(forEntityName: "Employee")
        try employee.setValue(.string("Ann"), forKey: "name")
        try first.save()
        let second = ManagedObjectContext(coordinator: first.persistentStoreCoordinator)
        second.mergePolicy = policy
        let copy = try second.existingObject(with: employee.objectID)
        try employee.setAttributeValue(.integer32(2000), forKey: "salary")
        try first.save()
        if changedFirst { try copy.setValue(.string("Annie"), forKey: "name") }
        #expect(try copy.committedValues(forKeys: ["name"]) == ["name": .string("Ann")])
        second.delete(copy)
        #expect(try copy.changedValues().isEmpty == !changedFirst)
        let fresh = ManagedObjectContext(coordinator: first.persistentStoreCoordinator)
        if policy == .error {
            let error = try #require(throws: ContextError.self) { try second.save() }
            guard case .conflicts(let conflicts) = error else { Issue.record("expected conflicts: \(error)"); return }
            #expect(conflicts.map(\.objectID) == [copy.objectID])
            #expect(try fresh.fetch(FetchRequest(entityName: "Employee")).count == 1)
        } else {
            try second.save()
            #expect(try fresh.fetch(FetchRequest(entityName: "Employee")).isEmpty)
        }
    }

    @Test func mergingAnotherContextsSaveRefreshesObjects() throws {
        let first = try Company.context()
        let employee = try first.insertNewObject(forEntityName: "Employee")
        try employee.setValue(.string("Ann"), forKey: "name")
        try first.save()
        let second = ManagedObjectContext(coordinator: first.persistentStoreCoordinator)
        let copy = try second.existingObject(with: employee.objectID)
        var saved: SavedChanges?
        let token = first.addObserver(for: .didSave) { saved = $0.savedChanges }
        try employee.setValue(.string("Anne"), forKey: "name")
        try first.save()
        token.cancel()
        var refreshed: [ManagedObject] = []
        let observation = second.addObserver(for: .objectsDidChange) { refreshed = $0.refreshed }
        try second.mergeChanges(fromContextDidSave: try #require(saved))
        #expect(try copy.attributeValue(forKey: "name") == .string("Anne"))
        #expect(refreshed.first === copy)
        observation.cancel()
        // A delete saved in the first context removes the object from the second.
        first.delete(employee)
        var deletion: SavedChanges?
        let token2 = first.addObserver(for: .didSave) { deletion = $0.savedChanges }
        try first.save()
        token2.cancel()
        try second.mergeChanges(fromContextDidSave: try #require(deletion))
        #expect(second.registeredObject(for: employee.objectID) == nil)
    }
}

/// Two stores under one coordinator, split by configuration: the schedule demo.
struct ConfigurationTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Session",
                    attributes: [
                        AttributeDescription(name: "title", type: .string),
                        AttributeDescription(name: "start", type: .date),
                    ]),
                EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)]),
            ],
            configurations: [
                Configuration(name: "Monday", entities: ["Session"]),
                Configuration(name: "Tuesday", entities: ["Session"]),
                Configuration(name: "Notes", entities: ["Note"]),
            ])
    }

    @Test func oneFetchSortsAcrossBothStores() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        let monday = try coordinator.addPersistentStore(type: "InMemory", configuration: "Monday")
        let tuesday = try coordinator.addPersistentStore(type: "InMemory", configuration: "Tuesday")
        let context = ManagedObjectContext(coordinator: coordinator)
        let schedule: [(String, Double, any PersistentStore)] = [
            ("Keynote", 9, monday), ("Core Data", 14, monday), ("Undo", 10, tuesday), ("Predicates", 16, tuesday),
            ("Lunch", 12, monday),
        ]
        for (title, hour, store) in schedule {
            let session = try context.insertNewObject(forEntityName: "Session")
            try session.setValue(.string(title), forKey: "title")
            let day = store === monday ? 0.0 : 86_400
            try session.setValue(.date(Date(timeIntervalSinceReferenceDate: day + hour * 3600)), forKey: "start")
            context.assign(session, to: store)
        }
        try context.save()
        let sessions = try context.fetch(
            FetchRequest(entityName: "Session", sortDescriptors: [ObjectSortDescriptor(keyPath: "start")]))
        #expect(
            try sessions.map { try $0.attributeValue(forKey: "title").stringValue } == [
                "Keynote", "Lunch", "Core Data", "Undo", "Predicates",
            ])
        #expect(sessions.filter { $0.objectID.storeIdentifier == monday.identifier }.count == 3)
        #expect(sessions.filter { $0.objectID.storeIdentifier == tuesday.identifier }.count == 2)
        // A second context, fresh from the stores, sees the same order.
        let other = ManagedObjectContext(coordinator: coordinator)
        let again = try other.fetch(
            FetchRequest(
                entityName: "Session", sortDescriptors: [ObjectSortDescriptor(keyPath: "start", ascending: false)]))
        #expect(
            try again.map { try $0.attributeValue(forKey: "title").stringValue } == [
                "Predicates", "Undo", "Core Data", "Lunch", "Keynote",
            ])
        // Entities outside every store's configuration cannot be saved.
        _ = try context.insertNewObject(forEntityName: "Note")
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.description.contains("no store holds entity Note"))
    }

    @Test func unknownConfigurationsAndTypesAreErrors() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        #expect(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: "InMemory", configuration: "Friday")
        }
        let error = try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: "Papyrus") }
        #expect(error.message.contains("InMemory"))
    }
}

struct MigrationTests {
    @Test func migratesAStoreToAnotherURLAndType() throws {
        JSONTestStore.register()
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        let coordinator = context.persistentStoreCoordinator
        let source = try #require(coordinator.persistentStores.first)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("company.testjson")
        let migrated = try coordinator.migratePersistentStore(source, to: url, type: JSONTestStore.typeName)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(migrated.identifier == source.identifier)
        #expect(coordinator.persistentStores.count == 1)
        #expect(coordinator.persistentStores.first === migrated)
        // The same context keeps working against the new store.
        let ann = try #require(
            context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Ann'")))
                .first)
        try ann.setAttributeValue(.integer32(5000), forKey: "salary")
        try context.save()
        // A new coordinator opening the file sees everything, relationships included.
        let reopened = PersistentStoreCoordinator(model: try Company.model())
        try reopened.addPersistentStore(type: JSONTestStore.typeName, url: url)
        let fresh = ManagedObjectContext(coordinator: reopened)
        #expect(try Company.names(fresh, "Employee") == ["Ann", "Bob"])
        let stored = try #require(
            fresh.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Ann'")))
                .first)
        #expect(try stored.attributeValue(forKey: "salary") == .integer32(5000))
        #expect(try stored.value(forKeyPath: "department.name") == .string("Sales"))
        // Metadata reads without adding the store, by type or by detecting it from the content.
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect(metadata["NSStoreUUID"] == .string(source.identifier))
        #expect(throws: StoreError.self) {
            try PersistentStoreCoordinator.metadataForPersistentStore(at: url.appendingPathExtension("missing"))
        }
    }

    /// Every row a fetch reads (two, or hundreds: the cache takes them together at the end) is in the row cache
    /// with its values: objects of another context fill from it without asking the store.
    @Test(arguments: [2, 700])
    func theRowCacheSparesTheIncrementalStore(staff: Int) throws {
        IncrementalTestStore.register()
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        let store = try #require(
            try coordinator.addPersistentStore(type: IncrementalTestStore.typeName) as? IncrementalTestStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        let names = (0..<staff).map { "E\($0)" }
        try Company.department("Sales", staff: names, in: context)
        try context.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Employee")).count == staff)
        let afterFetch = store.snapshotRequests
        let again = ManagedObjectContext(coordinator: coordinator)
        let ids = try again.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        var read: [String] = []
        for id in ids {
            guard case .string(let name) = try again.object(with: id).attributeValue(forKey: "name") else { continue }
            read.append(name)
        }
        #expect(store.snapshotRequests == afterFetch)
        #expect(read.sorted() == names.sorted())
    }

    @Test func executeReturnsEveryResultType() throws {
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann", "Bob", "Cid"], in: context)
        try context.save()
        var request = FetchRequest(entityName: "Employee", resultType: .dictionary)
        request.propertiesToFetch = [
            .property("department.name"), .expression(.aggregate(.sum, of: "salary", as: "total")),
        ]
        request.propertiesToGroupBy = ["department.name"]
        guard case .dictionaries(let rows) = try context.execute(request) else { Issue.record("dictionaries"); return }
        #expect(rows.count == 1 && rows[0]["total"] == .integer(3000) && rows[0]["department.name"] == .string("Sales"))
        request.resultType = .count
        guard case .count(3) = try context.execute(request) else { Issue.record("count"); return }
        request.resultType = .managedObjectID
        request.fetchLimit = 2
        guard case .objects(let ids) = try context.execute(request) else { Issue.record("ids"); return }
        #expect(ids.count == 2)
    }

    /// Dictionary results (and their aggregates) are the stores' state, as Core Data's are whatever
    /// `includesPendingChanges` says: a changed value, an unsaved insert and an unsaved deletion are not in them,
    /// and reading them changes nothing in the context. Objects, IDs and counts include the changes.
    @Test func dictionaryResultsAreTheStoredState() throws {
        let context = try Company.context()
        let sales = try Company.department("Sales", staff: ["Ann", "Bob", "Cid"], in: context)
        try context.save()
        let staff = try context.fetch(
            FetchRequest(entityName: "Employee", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
        try staff[0].setAttributeValue(.integer32(5000), forKey: "salary")
        context.delete(staff[2])
        try Company.department("Hires", staff: ["Dan"], in: context)
        let dan = try context.fetch(
            FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Dan'")))
        #expect(dan.count == 1)
        try sales.mutableObjects(forKey: "employees").add(try #require(dan.first))
        var totals = FetchRequest(entityName: "Employee", resultType: .dictionary)
        totals.propertiesToFetch = [
            .property("department.name"), .expression(.aggregate(.sum, of: "salary", as: "total")),
        ]
        totals.propertiesToGroupBy = ["department.name"]
        var rows = FetchRequest(entityName: "Employee", resultType: .dictionary)
        rows.propertiesToFetch = [.property("name"), .property("salary")]
        rows.sortDescriptors = [ObjectSortDescriptor(keyPath: "name")]
        for includesPendingChanges in [true, false] {
            totals.includesPendingChanges = includesPendingChanges
            rows.includesPendingChanges = includesPendingChanges
            guard case .dictionaries(let grouped) = try context.execute(totals) else {
                Issue.record("dictionaries")
                return
            }
            #expect(grouped.count == 1)
            #expect(grouped.first?["total"] == .integer(3000) && grouped.first?["department.name"] == .string("Sales"))
            guard case .dictionaries(let read) = try context.execute(rows) else {
                Issue.record("dictionaries")
                return
            }
            #expect(read.map { $0["name"]?.string } == ["Ann", "Bob", "Cid"])
            #expect(read.first?["salary"] == .integer(1000))
        }
        // The context's changes are as they were; objects and counts include them.
        #expect(try staff[0].attributeValue(forKey: "salary") == .integer32(5000))
        #expect(staff[2].isDeleted)
        #expect(try Company.names(context, "Employee") == ["Ann", "Bob", "Dan"])
        var count = FetchRequest(entityName: "Employee", resultType: .count)
        guard case .count(3) = try context.execute(count) else {
            Issue.record("count with the changes")
            return
        }
        count.includesPendingChanges = false
        guard case .count(3) = try context.execute(count) else {
            Issue.record("count of the stored objects")
            return
        }
        try context.save()
        totals.includesPendingChanges = true
        guard case .dictionaries(let saved) = try context.execute(totals) else {
            Issue.record("dictionaries")
            return
        }
        #expect(saved.count == 1 && saved.first?["total"] == .integer(7000))
    }

    @Test func aSaveAcrossStoresIsAllOrNothing() throws {
        JSONTestStore.register()
        let coordinator = PersistentStoreCoordinator(model: try ConfigurationTests.model())
        let directory = try Fixtures.temporaryDirectory()
        let sessions = try coordinator.addPersistentStore(
            type: JSONTestStore.typeName, configuration: "Monday", url: directory.appendingPathComponent("a.testjson"))
        try coordinator.addPersistentStore(
            type: JSONTestStore.typeName, configuration: "Notes", url: directory.appendingPathComponent("b.testjson"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let session = try context.insertNewObject(forEntityName: "Session")
        try session.setValue(.string("First"), forKey: "title")
        try context.save()
        let before = try Data(contentsOf: sessions.description.url!)
        try session.setValue(.string("Changed"), forKey: "title")
        let note = try context.insertNewObject(forEntityName: "Note")
        try note.setValue(.string("hello"), forKey: "text")
        JSONTestStore.failNextWrite = true
        #expect(throws: ContextError.self) { try context.save() }
        // Neither store changed: the session store's file is as before, the notes store has no file.
        #expect(try Data(contentsOf: sessions.description.url!) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.testjson").path))
        #expect(context.hasChanges)
        try context.save()
        #expect(try Data(contentsOf: sessions.description.url!) != before)
    }

    @Test func objectIDsRoundTripThroughURIs() throws {
        let context = try Company.context()
        let employee = try context.insertNewObject(forEntityName: "Employee")
        let temporary = employee.objectID.uriRepresentation.absoluteString
        #expect(temporary.hasPrefix("x-coredata:///Employee/t"))
        try employee.setValue(.string("Ann"), forKey: "name")
        try context.save()
        let uri = employee.objectID.uriRepresentation
        let store = try #require(context.persistentStoreCoordinator.persistentStores.first)
        #expect(uri.absoluteString == "x-coredata://\(store.identifier)/Employee/p1")
        #expect(context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) == employee.objectID)
        #expect(
            context.persistentStoreCoordinator.managedObjectID(
                forURIRepresentation: URL(string: "x-coredata://nope/Employee/p1")!) == nil)
        #expect(
            context.persistentStoreCoordinator.managedObjectID(
                forURIRepresentation: URL(string: "x-coredata://\(store.identifier)/Nope/p1")!) == nil)
        #expect(ManagedObjectID(uriRepresentation: URL(string: "https://example.com")!) == nil)
    }
}
