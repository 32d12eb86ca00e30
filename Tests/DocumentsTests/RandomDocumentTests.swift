import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// A document of ``RandomGraph`` taken through random edits, saves, saves as another type, copies, autosaves (then
/// recovered in a copy of the folder, as after a crash), reverts, and closes and reopens: after each step, every file
/// holds what it should — a save what the document held, a copy the document's state with its unsaved changes, a
/// recovered autosave the state autosaved, a revert the file's state.
struct RandomDocumentTests {
    /// The graph in a file, read by a document of its own (read-only).
    static func stateOfFile(_ url: URL) throws -> [String: [String: String]] {
        let reader = try PersistentDocument(contentsOf: url, readOnly: true)
        defer { try? reader.close(discardingChanges: true) }
        return try RandomGraph.state(reader.managedObjectContext)
    }

    /// A new document of `type` at `name` in a new folder, given `rounds` rounds of random edits (not saved).
    static func randomDocument(
        _ name: String, _ type: DocumentType, model: ManagedObjectModel, rounds: Int,
        _ random: inout RandomGraph.Generator, counter: inout Int
    ) throws -> (PersistentDocument, URL) {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        let document = try PersistentDocument(creatingAt: url, ofType: type, model: model)
        for _ in 0..<rounds { try RandomGraph.edit(document.managedObjectContext, &random, counter: &counter) }
        return (document, url)
    }

    /// A copy of a document's folder entries (its file, a SQLite file's log, an autosave sidecar) in a new folder, as
    /// a crash would have left them (times kept, as `cp -p` keeps them); not the lock, which names this live process.
    static func crashCopy(of url: URL) throws -> URL {
        let folder = try Fixtures.temporaryDirectory()
        let source = url.deletingLastPathComponent()
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path)
        where name.contains(url.lastPathComponent) && !name.hasSuffix(".docutil-lock") {
            let (from, to) = (source.appendingPathComponent(name), folder.appendingPathComponent(name))
            try FileManager.default.copyItem(at: from, to: to)
            // (A package's files too.)
            let inside = FileManager.default.enumerator(atPath: from.path)?.allObjects as? [String] ?? []
            for path in [""] + inside {
                var info = stat()
                #expect(stat(from.appendingPathComponent(path).path, &info) == 0)
                var times = [info.st_atim, info.st_mtim]
                #expect(utimensat(AT_FDCWD, to.appendingPathComponent(path).path, &times, 0) == 0)
            }
        }
        return folder.appendingPathComponent(url.lastPathComponent)
    }

    /// Each type, and a SQLite document in WAL mode (as Apple's apps leave theirs: a log beside the file).
    static let cases = Kind.all.map { ($0, false) } + [(Kind(type: .sqlite), true)]

    @Test(arguments: cases)
    func randomDocumentWorkKeepsEveryFileTrue(kind: Kind, wal: Bool) throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...4 {
            var random = RandomGraph.Generator(state: seed &* 7919)
            var url = try Fixtures.temporaryDirectory().appendingPathComponent("random.\(kind.ext)")
            var document = try PersistentDocument(creatingAt: url, ofType: kind.type, model: model)
            if wal {
                try document.save()
                try document.close()
                try SQLiteScript.execute(url, "PRAGMA journal_mode=WAL")
                document = try PersistentDocument(contentsOf: url)
                #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "a WAL document has its log")
            }
            var counter = 0
            for step in 0..<14 {
                let place = "\(kind)\(wal ? " (WAL)" : ""), seed \(seed), step \(step)"
                try RandomGraph.edit(document.managedObjectContext, &random, counter: &counter)
                let current = try RandomGraph.state(document.managedObjectContext)
                let action = Int.random(in: 0..<7, using: &random)
                do {
                    switch action {
                    case 6:
                        // Undo a few steps (across saves too), perhaps redo some.
                        for _ in 0..<Int.random(in: 1...3, using: &random) { document.managedObjectContext.undo() }
                        if Bool.random(using: &random) { document.managedObjectContext.redo() }
                    case 0:
                        try document.save()
                        #expect(!document.isEdited, "\(place)")
                        #expect(try Self.stateOfFile(url) == current, "\(place): save")
                    case 1:
                        let type = Kind.all.randomElement(using: &random)!
                        let package = Bool.random(using: &random)
                        url = try Fixtures.temporaryDirectory().appendingPathComponent(
                            package ? "renamed.pkg" : "renamed.\(type.ext)")
                        try document.saveAs(to: url, ofType: type.type, asPackage: package)
                        #expect(document.fileURL == url && !document.isEdited, "\(place)")
                        #expect(try Self.stateOfFile(url) == current, "\(place): save as \(type)")
                        #expect(
                            try RandomGraph.state(document.managedObjectContext) == current, "\(place): after save as")
                    case 2:
                        let type = Kind.all.randomElement(using: &random)!
                        let package = Bool.random(using: &random)
                        let copy = try Fixtures.temporaryDirectory().appendingPathComponent(
                            package ? "copy.pkg" : "copy.\(type.ext)")
                        let edited = document.isEdited
                        try document.saveCopy(to: copy, ofType: type.type, asPackage: package)
                        #expect(document.isEdited == edited, "\(place)")
                        #expect(try Self.stateOfFile(copy) == current, "\(place): copy as \(type)")
                    case 3:
                        guard document.isEdited, !document.isUntitled else { break }
                        try document.autosave()
                        // As after a crash: the file and the sidecar, opened by a new session, which recovers.
                        let crashed = try Self.crashCopy(of: url)
                        // (A document never saved is started again at its path, where its autosave is.)
                        let recovered =
                            FileManager.default.fileExists(atPath: crashed.path)
                            ? try PersistentDocument(contentsOf: crashed)
                            : try PersistentDocument(creatingAt: crashed, ofType: document.fileType, model: model)
                        #expect(recovered.foundAutosave != nil, "\(place)")
                        let recovery = try recovered.recoverAutosave()
                        #expect(recovery.warnings.isEmpty, "\(place): \(recovery.warnings)")
                        #expect(
                            try RandomGraph.state(recovered.managedObjectContext) == current,
                            "\(place): recovered autosave")
                        try recovered.save()
                        #expect(try Self.stateOfFile(crashed) == current, "\(place): recovered and saved")
                        try recovered.close()
                    case 4:
                        // (A document never saved has no file to go back to.)
                        guard FileManager.default.fileExists(atPath: url.path) else { break }
                        try document.revert()
                        #expect(!document.isEdited, "\(place)")
                        #expect(
                            try RandomGraph.state(document.managedObjectContext) == (try Self.stateOfFile(url)),
                            "\(place): revert")
                    default:
                        try document.save()
                        try document.close()
                        document = try PersistentDocument(contentsOf: url)
                        #expect(try RandomGraph.state(document.managedObjectContext) == current, "\(place): reopened")
                    }
                    // Edited exactly when a save would change the file.
                    if FileManager.default.fileExists(atPath: url.path) {
                        let differs = try RandomGraph.state(document.managedObjectContext) != Self.stateOfFile(url)
                        #expect(document.isEdited == differs, "\(place), action \(action): edited")
                    }
                } catch {
                    Issue.record("\(place), action \(action): \(error)")
                    return
                }
            }
            try document.close(discardingChanges: true)
        }
    }
}

/// Autosaves recovered after a crash, in a copy of the document's folder (``RandomDocumentTests/crashCopy(of:)``).
struct CrashRecoveryTests {
    @Test(arguments: Kind.all)
    func aRecoveredAutosaveWarnsOnlyOfWhatChangedOnDisk(kind: Kind) throws {
        // Saved twice, so that the session's objects are at version 3 — which an XML file does not keep: read back,
        // every object is at version 1, and every recovered change was reported as "changed on disk".
        let (document, url) = try Docs.saved(kind)
        let ann = try #require(try Docs.find(document, "Ann"))
        try ann.setAttributeValue(.integer32(1), forKey: "salary")
        try document.save()
        try ann.setAttributeValue(.integer32(2), forKey: "salary")
        try document.save()
        try ann.setAttributeValue(.integer32(3), forKey: "salary")
        try document.autosave()
        let crashed = try RandomDocumentTests.crashCopy(of: url)
        let recovered = try PersistentDocument(contentsOf: crashed)
        let recovery = try recovered.recoverAutosave()
        #expect(recovery.updated == 1 && recovery.warnings.isEmpty, "\(recovery.warnings)")
        #expect(try Docs.find(recovered, "Ann")?.attributeValue(forKey: "salary") == .integer32(3))
        try recovered.close(discardingChanges: true)

        // The file changed since (here only its time): a store that keeps versions still tells that Ann did not; an
        // XML file cannot, and says so.
        let again = try RandomDocumentTests.crashCopy(of: url)
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, again.path, &times, 0) == 0)
        let touched = try PersistentDocument(contentsOf: again)
        let warnings = try touched.recoverAutosave().warnings
        if kind.type.name == "XML" {
            #expect(warnings.count == 1 && warnings[0].contains("may have changed on disk"), "\(warnings)")
        } else {
            #expect(warnings.isEmpty, "\(warnings)")
        }
        #expect(try Docs.find(touched, "Ann")?.attributeValue(forKey: "salary") == .integer32(3))
        try touched.close(discardingChanges: true)
        try document.close(discardingChanges: true)
    }

    @Test(arguments: Kind.all)
    func aNewDocumentsAutosaveIsRecoveredWhereItWasStarted(kind: Kind) throws {
        // A document started at a path and autosaved, never saved: after a crash there is a sidecar and no file.
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("new.\(kind.ext)")
        let document = try PersistentDocument(creatingAt: url, ofType: kind.type, model: try Company.model())
        try Company.department("Sales", staff: ["Ann", "Bob"], in: document.managedObjectContext)
        try document.autosave()
        let crashed = try RandomDocumentTests.crashCopy(of: url)
        #expect(!FileManager.default.fileExists(atPath: crashed.path))
        // Opening the path says where the work is.
        #expect {
            _ = try PersistentDocument(contentsOf: crashed)
        } throws: { error in
            guard let error = error as? DocumentError else { return false }
            return error.code == .noInput && error.message.contains("an autosaved new document is beside it")
        }
        // Starting the document there again finds it, and recovering it gives the work back.
        let started = try PersistentDocument(creatingAt: crashed, ofType: kind.type, model: try Company.model())
        #expect(started.foundAutosave?.inserted == 3)
        #expect(started.storeType == kind.type.storeType)
        let recovery = try started.recoverAutosave()
        #expect(recovery.inserted == 3 && recovery.warnings.isEmpty, "\(recovery.warnings)")
        try started.save()
        #expect(!FileManager.default.fileExists(atPath: started.autosaveURL.path))
        try started.close()
        let reader = try PersistentDocument(contentsOf: crashed, readOnly: true)
        #expect(try Company.names(reader.managedObjectContext, "Employee") == ["Ann", "Bob"])
        try document.close(discardingChanges: true)
    }
}

/// `diff` of a random document and its conversions: equal, however the conversion numbered the objects, also when
/// many objects have the same values (then only their relationships tell them apart).
struct RandomDiffTests {
    @Test(arguments: [2, 1000])
    func aRandomDocumentAndItsConversionsCompareEqual(names: Int) throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed &* 104_729)
            var counter = 0
            let (document, url) = try RandomDocumentTests.randomDocument(
                "random.sqlite", .sqlite, model: model, rounds: 6, &random, counter: &counter)
            // Few names: objects alike but for their relationships.
            for entity in ["Group", "Node"] {
                for object in try document.managedObjectContext.fetch(FetchRequest(entityName: entity)) {
                    try object.setValue(.string("n\(Int.random(in: 0..<names, using: &random))"), forKey: "name")
                }
            }
            try document.save()
            for kind in [Kind(type: .xml), Kind(type: .binary)] {
                let copy = try Fixtures.temporaryDirectory().appendingPathComponent("copy.\(kind.ext)")
                try document.saveCopy(to: copy, ofType: kind.type)
                let difference = try DocumentDiff.compare(try DocumentStack.open(url), try DocumentStack.open(copy))
                #expect(
                    difference.isEqual,
                    "seed \(seed), \(kind): \(difference.onlyInA.count) only in A, \(difference.onlyInB.count) only in B, changed \(difference.changed.prefix(3))"
                )
            }
            try document.close()
        }
    }
}

/// A random document migrated (inferred, in place as it is opened) to a version of its model that renames
/// relationships of every kind and adds an attribute: every link is where it was, under its new name.
struct RandomMigrationTests {
    @Test(arguments: Kind.all)
    func aRandomDocumentMigratesWithEveryLink(kind: Kind) throws {
        let (old, new) = (try RandomGraph.model(), try RandomGraph.model(version2: true))
        for seed in UInt64(1)...4 {
            var random = RandomGraph.Generator(state: seed &* 15_485_863)
            var counter = 0
            let (document, url) = try RandomDocumentTests.randomDocument(
                "random.\(kind.ext)", kind.type, model: old, rounds: 5, &random, counter: &counter)
            try document.save()
            let expected = try RandomGraph.state(document.managedObjectContext)
            try document.close()
            let migrated = try PersistentDocument(contentsOf: url, model: new)
            #expect(migrated.migratedFrom != nil, "\(kind), seed \(seed)")
            #expect(
                try RandomGraph.state(migrated.managedObjectContext, version2: true) == expected,
                "\(kind), seed \(seed)")
            try migrated.close()
        }
    }
}

/// `diff` of a random document against a copy edited at random: exactly the objects added, removed and changed, and
/// for each changed one exactly the keys that differ — matched by name, in every pair of store types.
struct RandomEditDiffTests {
    @Test(arguments: [("SQLite", "XML"), ("XML", "Binary"), ("Binary", "SQLite")])
    func diffListsExactlyWhatChanged(first: String, second: String) throws {
        let model = try RandomGraph.model()
        let kinds = Dictionary(uniqueKeysWithValues: Kind.all.map { ($0.type.name, $0) })
        let (a, b) = (try #require(kinds[first]), try #require(kinds[second]))
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed &* 1_299_709)
            var counter = 0
            let (document, url) = try RandomDocumentTests.randomDocument(
                "a.\(a.ext)", a.type, model: model, rounds: 4, &random, counter: &counter)
            try document.save()
            let before = try RandomGraph.state(document.managedObjectContext)
            for _ in 0..<2 { try RandomGraph.edit(document.managedObjectContext, &random, counter: &counter) }
            let after = try RandomGraph.state(document.managedObjectContext)
            let edited = try Fixtures.temporaryDirectory().appendingPathComponent("b.\(b.ext)")
            try document.saveCopy(to: edited, ofType: b.type)
            try document.close(discardingChanges: true)

            let difference = try DocumentDiff.compare(
                try DocumentStack.open(url), try DocumentStack.open(edited), keys: ["Group": "name", "Node": "name"])
            func name(_ id: ManagedObjectID, in opened: OpenedDocument) throws -> String {
                try opened.context.existingObject(with: id).attributeValue(forKey: "name").literalText
            }
            let removed = Set(before.keys).subtracting(after.keys)
            let added = Set(after.keys).subtracting(before.keys)
            var changed: [String: Set<String>] = [:]
            for (object, values) in before where after[object] != nil && after[object] != values {
                changed[object] = Set(values.keys.filter { values[$0] != after[object]?[$0] })
            }
            #expect(difference.onlyInA.count == removed.count, "seed \(seed): removed \(removed.sorted())")
            #expect(difference.onlyInB.count == added.count, "seed \(seed): added \(added.sorted())")
            var reported: [String: Set<String>] = [:]
            let first = try DocumentStack.open(url)
            for change in difference.changed {
                reported[try name(change.a, in: first)] = Set(change.changes.map(\.key))
            }
            #expect(reported == changed, "seed \(seed), \(first.storeType) → \(second)")
        }
    }
}

/// Undo and redo back past a save, where a deletion or an insert was saved: every save and copy writes what the
/// document shows.
struct UndoPastSaveTests {
    /// The employees' departments by name, as the document shows them and as its file holds them.
    static func departments(_ document: PersistentDocument, _ url: URL) throws -> (shown: [String], saved: [String]) {
        func read(_ context: ManagedObjectContext) throws -> [String] {
            try context.fetch(FetchRequest(entityName: "Employee")).map {
                "\(try $0.attributeValue(forKey: "name").literalText): \(try $0.object(forKey: "department")?.attributeValue(forKey: "name").literalText ?? "-")"
            }.sorted()
        }
        let reader = try PersistentDocument(contentsOf: url, readOnly: true)
        defer { try? reader.close() }
        return (try read(document.managedObjectContext), try read(reader.managedObjectContext))
    }

    @Test(arguments: Kind.all)
    func aSavedDeletionUndoneAndRedoneSavesAsShown(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        let context = document.managedObjectContext
        let cy = try #require(try Docs.find(document, "Cy"))
        let research = try #require(try cy.object(forKey: "department"))
        // Research deleted and saved (Cy with it, by the cascade rule), then the deletion undone: both come back as
        // new rows, Cy in Research. (The undo set their relationships first, which made them changed objects too:
        // saved as updates of rows that were gone, the save failed as a conflict.)
        context.delete(research)
        context.processPendingChanges()
        try document.save()
        #expect(try Self.departments(document, url).saved == ["Ann: Sales", "Bob: Sales"])
        context.undo()
        try document.save()
        var (shown, saved) = try Self.departments(document, url)
        #expect(shown == ["Ann: Sales", "Bob: Sales", "Cy: Research"] && saved == shown, "\(kind): \(saved)")
        // Redone: gone again (their properties, set by the redo, change nothing a save writes).
        context.redo()
        try document.save()
        (shown, saved) = try Self.departments(document, url)
        #expect(shown == ["Ann: Sales", "Bob: Sales"] && saved == shown, "\(kind): \(saved)")
        try document.close()
    }

    @Test(arguments: Kind.all)
    func aChangeUndoneWithTheDeletionAfterItSavesAsShown(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        let context = document.managedObjectContext
        let bob = try #require(try Docs.find(document, "Bob"))
        let research = try #require(
            try context.fetch(
                FetchRequest(entityName: "Department", predicate: try ObjectPredicate(format: "name == 'Research'"))
            ).first)
        // Bob moves to Research (unsaved), then is deleted; the deletion undone: Bob is back in Research, a changed
        // object. (The deletion took Bob off the changed list and left the flag: the undo then did not put him back,
        // and the save wrote nothing of the move.)
        try bob.setObject(research, forKey: "department")
        context.processPendingChanges()
        context.delete(bob)
        context.processPendingChanges()
        context.undo()
        try document.save()
        let (shown, saved) = try Self.departments(document, url)
        #expect(shown == ["Ann: Sales", "Bob: Research", "Cy: Research"] && saved == shown, "\(kind): \(saved)")
        try document.close()
    }
}
