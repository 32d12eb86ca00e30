import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// A document type under test, with the extension its files get.
struct Kind: Sendable, CustomStringConvertible {
    let type: DocumentType
    var description: String { type.name }
    var ext: String { type.fileExtensions[0] }
    static let all = [Kind(type: .xml), Kind(type: .binary), Kind(type: .sqlite)]
}

/// Helpers shared by the document tests.
enum Docs {
    /// A new, saved document at a new path: departments Sales (Ann, Bob) and Research (Cy).
    static func saved(_ kind: Kind, name: String = "doc") throws -> (PersistentDocument, URL) {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("\(name).\(kind.ext)")
        let document = try PersistentDocument(creatingAt: url, ofType: kind.type, model: try Company.model())
        try Company.department("Sales", staff: ["Ann", "Bob"], in: document.managedObjectContext)
        try Company.department("Research", staff: ["Cy"], in: document.managedObjectContext)
        try document.save()
        return (document, url)
    }

    static func find(_ document: PersistentDocument, _ name: String) throws -> ManagedObject? {
        try document.managedObjectContext.fetch(
            FetchRequest(
                entityName: "Employee", predicate: try ObjectPredicate(format: "name == %@", FormatArgument(name)))
        ).first
    }

    static func salary(_ document: PersistentDocument, _ name: String) throws -> AttributeValue? {
        try find(document, name)?.attributeValue(forKey: "salary")
    }

    /// The employees' names in a file, read by a separate read-only document.
    static func names(in url: URL) throws -> [String] {
        let reader = try PersistentDocument(contentsOf: url, model: try Company.model(), readOnly: true)
        return try Company.names(reader.managedObjectContext, "Employee")
    }

    static func setSalary(_ document: PersistentDocument, _ name: String, _ value: Int32) throws {
        try #require(try find(document, name)).setAttributeValue(.integer32(value), forKey: "salary")
        document.managedObjectContext.processPendingChanges()
    }
}

struct PersistentDocumentTests {
    @Test(arguments: Kind.all)
    func aNewDocumentIsWrittenOnlyByItsFirstSave(kind: Kind) throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("new.\(kind.ext)")
        let document = try PersistentDocument(creatingAt: url, ofType: kind.type, model: try Company.model())
        #expect(!document.isEdited)
        try Company.department("Sales", staff: ["Ann"], in: document.managedObjectContext)
        #expect(document.isEdited)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try document.save()
        #expect(!document.isEdited)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(document.storeType == kind.type.storeType)
        // The same objects go on being edited and saved into the file.
        try Docs.setSalary(document, "Ann", 2000)
        try document.save()
        try document.close()
        #expect(try Docs.names(in: url) == ["Ann"])
        let reopened = try PersistentDocument(contentsOf: url)
        #expect(try Docs.salary(reopened, "Ann") == .integer32(2000))
        #expect(reopened.fileType.name == kind.type.name)
    }

    @Test(arguments: Kind.all)
    func editedFollowsTheSavePointThroughUndoAndRedo(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        let context = document.managedObjectContext
        #expect(!document.isEdited)
        try Docs.setSalary(document, "Ann", 10)
        #expect(document.isEdited)
        context.undo()
        #expect(!document.isEdited)
        context.redo()
        #expect(document.isEdited)
        try document.save()
        #expect(!document.isEdited)
        // Undo across the save: edited again, and saving writes the undone state.
        context.undo()
        #expect(document.isEdited)
        try document.save()
        #expect(try Docs.salary(PersistentDocument(contentsOf: url, readOnly: true), "Ann") == .integer32(1000))
        // Save, undo, then a different change: a plain counter would read zero; the document is edited.
        context.redo()
        try document.save()
        context.undo()
        try Docs.setSalary(document, "Bob", 20)
        #expect(document.isEdited)
        #expect(document.undoManager?.stateToken != document.savePointToken)
        #expect(document.changeCount.undone == 1 && document.changeCount.done == 1)
    }

    @Test(arguments: Kind.all)
    func saveAsMovesTheDocumentAndLeavesTheOldFile(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        let original = try Data(contentsOf: url)
        try Docs.setSalary(document, "Ann", 3000)
        for target in Kind.all {
            let moved = url.deletingLastPathComponent().appendingPathComponent("as-\(target.type.name).\(target.ext)")
            try document.saveAs(to: moved, ofType: target.type)
            #expect(document.fileURL == moved)
            #expect(document.fileType.name == target.type.name)
            #expect(!document.isEdited)
            #expect(try Docs.salary(PersistentDocument(contentsOf: moved, readOnly: true), "Ann") == .integer32(3000))
            // The document goes on in its new file.
            try Docs.setSalary(document, "Cy", 40)
            try document.save()
            #expect(try Docs.salary(PersistentDocument(contentsOf: moved, readOnly: true), "Cy") == .integer32(40))
        }
        if kind.type.name != "SQLite" { #expect(try Data(contentsOf: url) == original) }
        #expect(try Docs.salary(PersistentDocument(contentsOf: url, readOnly: true), "Ann") == .integer32(1000))
        // The old file is free: another writer may open it.
        _ = try PersistentDocument(contentsOf: url)
    }

    @Test(arguments: Kind.all)
    func saveACopyKeepsTheDocumentWhereItIsAndEdited(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        try Docs.setSalary(document, "Bob", 5000)
        let inserted = try document.managedObjectContext.insertNewObject(forEntityName: "Employee")
        try inserted.setValue(.string("Dee"), forKey: "name")
        for target in Kind.all {
            let copy = url.deletingLastPathComponent().appendingPathComponent("copy-\(target.type.name).\(target.ext)")
            try document.saveCopy(to: copy, ofType: target.type)
            let reader = try PersistentDocument(contentsOf: copy, readOnly: true)
            #expect(try Company.names(reader.managedObjectContext, "Employee") == ["Ann", "Bob", "Cy", "Dee"])
            #expect(try Docs.salary(reader, "Bob") == .integer32(5000))
        }
        #expect(document.isEdited)
        #expect(document.fileURL == url)
        #expect(inserted.objectID.isTemporary)
        #expect(try Docs.names(in: url) == ["Ann", "Bob", "Cy"])
        try document.save()
        #expect(try Docs.names(in: url) == ["Ann", "Bob", "Cy", "Dee"])
    }

    @Test(arguments: Kind.all)
    func revertDiscardsChangesAndReadsTheFileAgain(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        try Docs.setSalary(document, "Ann", 1)
        try document.revert()
        #expect(!document.isEdited)
        #expect(document.undoManager?.canUndo == false)
        #expect(try Docs.salary(document, "Ann") == .integer32(1000))
        // A change made on disk by someone else is picked up by revert.
        try Self.changeOnDisk(url, kind: kind)
        try document.revert()
        #expect(try Docs.salary(document, "Bob") == .integer32(777))
    }

    /// Changes Bob's salary in the file behind the document's back (another writer that ignores the lock).
    static func changeOnDisk(_ url: URL, kind: Kind) throws {
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        try coordinator.addPersistentStore(type: kind.type.storeType ?? "", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let bob = try #require(
            try context.fetch(
                FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Bob'"))
            )
            .first)
        try bob.setAttributeValue(.integer32(777), forKey: "salary")
        try context.save()
        for store in coordinator.persistentStores { store.close() }
        // Whole-second file systems aside, a rewrite within the same instant still differs in its status time.
    }

    @Test(arguments: Kind.all)
    func aSaveOverAFileChangedElsewhereIsRefusedUnlessForced(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        // The document's own saves never look like someone else's.
        try Docs.setSalary(document, "Ann", 11)
        try document.save()
        try Docs.setSalary(document, "Ann", 12)
        try document.save()
        try Self.changeOnDisk(url, kind: kind)
        try Docs.setSalary(document, "Ann", 13)
        #expect {
            try document.save()
        } throws: { ($0 as? DocumentError)?.code == .conflict }
        #expect(document.isEdited)
        try document.save(force: true)
        #expect(!document.isEdited)
        #expect(try Docs.salary(PersistentDocument(contentsOf: url, readOnly: true), "Ann") == .integer32(13))
    }

    @Test(arguments: Kind.all)
    func aDeletedFileIsNotQuietlyWrittenAgain(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        try Docs.setSalary(document, "Ann", 14)
        try FileManager.default.removeItem(at: url)
        #expect {
            try document.save()
        } throws: { ($0 as? DocumentError)?.code == .conflict }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        let elsewhere = url.deletingLastPathComponent().appendingPathComponent("rescued.\(kind.ext)")
        try document.saveAs(to: elsewhere)
        #expect(try Docs.salary(PersistentDocument(contentsOf: elsewhere, readOnly: true), "Ann") == .integer32(14))
    }

    @Test(arguments: Kind.all)
    func closeRefusesUnsavedChangesUnlessDiscarding(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        try Docs.setSalary(document, "Ann", 15)
        #expect {
            try document.close()
        } throws: { ($0 as? DocumentError)?.code == .refused }
        try document.close(discardingChanges: true)
        #expect(try Docs.salary(PersistentDocument(contentsOf: url, readOnly: true), "Ann") == .integer32(1000))
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(names == [url.lastPathComponent])
    }

    @Test(arguments: Kind.all)
    func oneWriterAtATimeAndReadersAlongside(kind: Kind) throws {
        let (document, url) = try Docs.saved(kind)
        #expect {
            _ = try PersistentDocument(contentsOf: url)
        } throws: { error in
            guard let error = error as? DocumentError, error.code == .conflict else { return false }
            return error.message.contains("process \(getpid())")
        }
        #expect(PersistentDocument.lockHolder(of: url)?.pid == getpid())
        let reader = try PersistentDocument(contentsOf: url, readOnly: true)
        #expect(try Company.names(reader.managedObjectContext, "Employee") == ["Ann", "Bob", "Cy"])
        try document.close()
        #expect(PersistentDocument.lockHolder(of: url) == nil)
        _ = try PersistentDocument(contentsOf: url)
    }

    @Test(arguments: Kind.all)
    func autosaveWritesASidecarThatRecoveryLaysOverTheFile(kind: Kind) throws {
        let url: URL
        let original: Data
        do {
            let (document, saved) = try Docs.saved(kind)
            url = saved
            original = try Data(contentsOf: url)
            try Docs.setSalary(document, "Ann", 16)
            // An update to nil: recovered as nil (not left out as no change).
            #expect(try Docs.salary(document, "Cy") != .null)
            try #require(try Docs.find(document, "Cy")).setValue(.null, forKey: "salary")
            let dee = try document.managedObjectContext.insertNewObject(forEntityName: "Employee")
            try dee.setValue(.string("Dee"), forKey: "name")
            try dee.setValue(.null, forKey: "salary")
            let cy = try #require(try Docs.find(document, "Cy"))
            try dee.setObject(try cy.object(forKey: "department"), forKey: "department")
            document.managedObjectContext.delete(try #require(try Docs.find(document, "Bob")))
            // Autosave never validates: Eve has no name, which a save would refuse.
            _ = try document.managedObjectContext.insertNewObject(forEntityName: "Employee")
            #expect(throws: DocumentError.self) { try document.save() }
            try document.autosave()
            #expect(FileManager.default.fileExists(atPath: document.autosaveURL.path))
            // The session ends without saving or discarding: the document object goes, the sidecar stays.
        }
        if kind.type.name != "SQLite" { #expect(try Data(contentsOf: url) == original) }
        let found = try #require(try PersistentDocument.autosave(of: url))
        #expect(found.inserted == 2 && found.deleted == 1 && found.pid == getpid())
        let document = try PersistentDocument(contentsOf: url)
        #expect(document.foundAutosave != nil)
        #expect(!document.isEdited)
        // Autosaving over an earlier session's sidecar is refused until it is recovered or discarded.
        #expect(throws: DocumentError.self) { try document.autosave() }
        let recovery = try document.recoverAutosave()
        #expect(recovery.inserted == 2 && recovery.deleted == 1)
        #expect(document.isEdited)
        #expect(try Docs.salary(document, "Ann") == .integer32(16))
        #expect(try Docs.salary(document, "Cy") == .null)
        #expect(try Docs.find(document, "Bob") == nil)
        let dee = try #require(try Docs.find(document, "Dee"))
        #expect(try dee.attributeValue(forKey: "salary") == .null)
        #expect(try dee.value(forKeyPath: "department.name") == .string("Research"))
        // The recovered graph is as invalid as it was: fix it, save, and the sidecar is gone.
        #expect(throws: DocumentError.self) { try document.save() }
        let nameless = try #require(
            try document.managedObjectContext.fetch(
                FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == nil"))
            ).first)
        try nameless.setValue(.string("Eve"), forKey: "name")
        try document.save()
        #expect(try PersistentDocument.autosave(of: url) == nil)
        #expect(try Company.names(document.managedObjectContext, "Employee") == ["Ann", "Cy", "Dee", "Eve"])
    }

    /// A sidecar that lists an object twice (damage: a session inserts, updates or deletes an object once) or names a
    /// changed key that is not a name is not taken for an autosave: an error naming the sidecar and the entry, the
    /// document and the sidecar as they were, never two new objects where the session had one.
    @Test(arguments: ["inserted", "updated", "deleted", "across", "changed"])
    func aSidecarListingAnObjectTwiceIsNotRecovered(damage: String) throws {
        let kind = Kind(type: .xml)
        let url: URL
        let sidecar: URL
        do {
            let (document, saved) = try Docs.saved(kind)
            url = saved
            sidecar = document.autosaveURL
            try Docs.setSalary(document, "Ann", 17)
            let dee = try document.managedObjectContext.insertNewObject(forEntityName: "Employee")
            try dee.setValue(.string("Dee"), forKey: "name")
            document.managedObjectContext.delete(try #require(try Docs.find(document, "Bob")))
            try document.autosave()
        }
        guard case .dictionary(var root) = try PropertyList.read(try Data(contentsOf: sidecar)),
            case .array(let inserted)? = root["inserted"], case .array(let updated)? = root["updated"],
            case .array(let deleted)? = root["deleted"], !inserted.isEmpty, !updated.isEmpty, !deleted.isEmpty
        else {
            Issue.record("the sidecar is not as written")
            return
        }
        let place: String
        switch damage {
        case "inserted", "updated", "deleted":
            let entries = root[damage]?.array ?? []
            root[damage] = .array(entries + entries.prefix(1))
            place = "\(damage)[\(entries.count)]"
        case "across":
            // Bob both updated and deleted.
            guard case .dictionary(var entry) = updated[0], case .dictionary(let gone) = deleted[0] else { return }
            entry["id"] = gone["id"]
            root["updated"] = .array([.dictionary(entry)] + updated.dropFirst())
            place = "deleted[0]"
        default:
            guard case .dictionary(var entry) = updated[0] else { return }
            entry["changed"] = .array([.string("salary"), .integer(3)])
            root["updated"] = .array([.dictionary(entry)] + updated.dropFirst())
            place = "updated[0]"
        }
        try BinaryPropertyListWriter.data(.dictionary(root)).write(to: sidecar)
        let before = try Data(contentsOf: url)
        let damaged = try Data(contentsOf: sidecar)
        // (A sidecar that cannot be read is reported when the document opens, as any other.)
        do {
            _ = try PersistentDocument(contentsOf: url)
            Issue.record("a damaged sidecar was taken for an autosave")
        } catch {
            #expect(error.code == .badData)
            #expect(error.message.contains(sidecar.path) && error.message.contains("(\(place):"), "\(error)")
            #expect(error.message.hasSuffix("move this file away to open it without the autosave"))
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try Data(contentsOf: sidecar) == damaged)
    }

    @Test func discardingAnAutosaveRemovesIt() throws {
        let kind = Kind(type: .xml)
        let url: URL
        do {
            let (document, saved) = try Docs.saved(kind)
            url = saved
            try Docs.setSalary(document, "Ann", 17)
            try document.autosave()
        }
        let document = try PersistentDocument(contentsOf: url)
        try document.discardAutosave()
        #expect(try PersistentDocument.autosave(of: url) == nil)
        #expect(try Docs.salary(document, "Ann") == .integer32(1000))
    }

    @Test func aCleanCloseAndARevertRemoveThisSessionsSidecar() throws {
        let (document, url) = try Docs.saved(Kind(type: .binary))
        try Docs.setSalary(document, "Ann", 18)
        try document.autosave()
        try document.revert()
        #expect(try PersistentDocument.autosave(of: url) == nil)
        try Docs.setSalary(document, "Ann", 19)
        try document.autosave()
        try document.close(discardingChanges: true)
        #expect(try PersistentDocument.autosave(of: url) == nil)
    }
}

/// Documents that are package folders in UIManagedDocument's layout.
struct DocumentPackageTests {
    @Test(arguments: Kind.all)
    func aPackageOpensSavesAndSavesAsWithItsContent(kind: Kind) throws {
        let folder = try Fixtures.temporaryDirectory()
        let url = folder.appendingPathComponent("Notes.pkg")
        let document = try PersistentDocument(
            creatingAt: url, ofType: kind.type, model: try Company.model(), asPackage: true)
        try Company.department("Sales", staff: ["Ann"], in: document.managedObjectContext)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try document.save()
        #expect(document.isPackage)
        let store = DocumentPackage.storeURL(in: url)
        #expect(FileManager.default.fileExists(atPath: store.path))
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("DocumentMetadata.plist").path))
        // Additional content the app keeps in the package is left alone, and travels with save as and copies.
        try Data("kept".utf8).write(to: url.appendingPathComponent("notes.txt"))
        try Docs.setSalary(document, "Ann", 42)
        try document.save()
        #expect(try Data(contentsOf: url.appendingPathComponent("notes.txt")) == Data("kept".utf8))
        try document.close()
        // Reopened (type found from the store inside), locked, autosaved beside the package.
        let reopened = try PersistentDocument(contentsOf: url)
        #expect(reopened.isPackage && reopened.fileType.name == kind.type.name)
        #expect(try Docs.salary(reopened, "Ann") == .integer32(42))
        #expect(throws: DocumentError.self) { _ = try PersistentDocument(contentsOf: url) }
        try Docs.setSalary(reopened, "Ann", 43)
        try reopened.autosave()
        #expect(reopened.autosaveURL.path == folder.appendingPathComponent(".Notes.pkg.docutil-autosave").path)
        let moved = folder.appendingPathComponent("Moved.pkg")
        try reopened.saveAs(to: moved)
        #expect(reopened.fileURL == moved && reopened.isPackage)
        #expect(try Data(contentsOf: moved.appendingPathComponent("notes.txt")) == Data("kept".utf8))
        #expect(try Docs.salary(PersistentDocument(contentsOf: moved, readOnly: true), "Ann") == .integer32(43))
        #expect(try Docs.salary(PersistentDocument(contentsOf: url, readOnly: true), "Ann") == .integer32(42))
        // A copy as a single file, and a package never replaces an existing folder.
        let flat = folder.appendingPathComponent("flat.\(kind.ext)")
        try reopened.saveCopy(to: flat, asPackage: false)
        #expect(try Docs.salary(PersistentDocument(contentsOf: flat, readOnly: true), "Ann") == .integer32(43))
        #expect {
            try reopened.saveCopy(to: url, force: true)
        } throws: { ($0 as? DocumentError)?.code == .cannotCreate }
        // The package's old name is free again.
        _ = try PersistentDocument(contentsOf: url)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.contains(".docutil-tmp-") }, "\(names)")
    }

    @Test func aFolderThatIsNotAPackageIsRefused() throws {
        let folder = try Fixtures.temporaryDirectory()
        #expect {
            _ = try PersistentDocument(contentsOf: folder)
        } throws: { ($0 as? DocumentError)?.code == .noInput }
    }
}
