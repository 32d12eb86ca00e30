import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// Opening a document with a model it was not written with: migrated in place when opened to write, read with the
/// model it was written with (and said so) when opened to read.
@Suite struct OpenMigrationTests {
    /// An `.xcdatamodeld` bundle holding both versions of ``MigrationTests``' model, the second current.
    static func bundle(in folder: URL) throws -> URL {
        let bundle = folder.appendingPathComponent("Library.xcdatamodeld")
        try ModelLoader.writeXcodeModel(
            try MigrationSupport.model(MigrationTests.version1), to: bundle.appendingPathComponent("V1.xcdatamodel"))
        try ModelLoader.writeXcodeModel(
            try MigrationSupport.model(MigrationTests.version2), to: bundle.appendingPathComponent("V2.xcdatamodel"))
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>V2.xcdatamodel</string></dict></plist>
            """.utf8
        ).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle
    }

    static func writers(_ context: ManagedObjectContext) throws -> [String] {
        let request = FetchRequest(entityName: "Writer", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")])
        return try context.fetch(request).map { writer in
            let alias = try writer.value(forKey: "alias")
            let country = try writer.value(forKey: "country")
            return "\(try writer.value(forKey: "name")) \(alias) \(country)"
        }
    }

    @Test(arguments: ["SQLite", "XML", "Binary"])
    func aDocumentOpenedToWriteIsMigratedInPlace(type: String) throws {
        let (_, new, folder, source, before) = try MigrationTests.versionOneStore(type: type)
        let document = try PersistentDocument(contentsOf: source, model: new)
        #expect(document.migratedFrom == "the document's own model (embedded)")
        #expect(!document.isEdited)
        #expect(
            try Self.writers(document.managedObjectContext) == [
                #"string("Le Guin") string("Ursula") string("NZ")"#, #"string("Tolstoy") null string("NZ")"#,
            ])
        try document.close()
        #expect(try Data(contentsOf: source) != before)
        // The file now is a version-2 document: its metadata carries version 2's hashes, and it opens as it is.
        let reopened = try DocumentStack.open(source)
        #expect(reopened.model.entityVersionHashes == new.entityVersionHashes)
        let recorded = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: source)
        guard case .dictionary(let hashes)? = recorded["NSStoreModelVersionHashes"] else {
            Issue.record("no version hashes in the migrated document's metadata")
            return
        }
        #expect(
            hashes.mapValues { value -> Data? in if case .data(let d) = value { d } else { nil } }
                == new.entityVersionHashes.mapValues { $0 })
        // Nothing is left beside it: no temporary file, no lock file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["library.store"])
    }

    @Test(arguments: ["SQLite", "XML", "Binary"])
    func aDocumentOpenedToReadIsReadWithTheModelItWasWrittenWith(type: String) throws {
        let (old, new, folder, source, before) = try MigrationTests.versionOneStore(type: type)
        let readOnly = try PersistentDocument(contentsOf: source, model: new, readOnly: true)
        #expect(readOnly.migratedFrom == nil)
        #expect(readOnly.modelSource == "written")
        #expect(readOnly.coordinator.model.entityVersionHashes == old.entityVersionHashes)
        #expect(readOnly.warnings.contains { $0.contains("a document opened read-only is not migrated") })
        #expect(try readOnly.managedObjectContext.count(for: FetchRequest(entityName: "Author")) == 2)
        try readOnly.close()

        let notMigrating = try PersistentDocument(contentsOf: source, model: new, migration: .never)
        #expect(notMigrating.modelSource == "written")
        #expect(notMigrating.warnings.contains { $0.contains("migration is off") })
        try notMigrating.close()

        // DocumentStack.open reads (the commands' way): the version of the bundle given that wrote it, said so.
        let bundle = try Self.bundle(in: try Fixtures.temporaryDirectory())
        let opened = try DocumentStack.open(source, model: bundle)
        #expect(opened.modelSource == "written")
        #expect(
            opened.warnings == [
                "it was written with version V1 of Library.xcdatamodeld, not with the model given: read with the model it was written with ('docutil migrate' moves it to the model given)"
            ])
        #expect(try opened.context.count(for: FetchRequest(entityName: "Author")) == 2)
        opened.store.close()
        #expect(try Data(contentsOf: source) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["library.store"])

        // Asked to migrate while read-only: refused, never written.
        #expect(throws: DocumentError.self) {
            try DocumentStack.open(source, model: bundle, readOnly: true, migration: DocumentMigrationOptions())
        }
        // Opened to write, DocumentStack.open migrates, naming the version it started from.
        let migrated = try DocumentStack.open(source, model: bundle, readOnly: false)
        #expect(migrated.modelSource == "given")
        #expect(
            migrated.warnings.first
                == "migrated in place from version V1 of Library.xcdatamodeld to the model given (6 object(s))")
        #expect(try Self.writers(migrated.context).count == 2)
        migrated.store.close()
        #expect(try DocumentStack.open(source).model.entityVersionHashes == new.entityVersionHashes)
    }

    /// A migration inference can't make stops the open with the reasons; the file is as it was and nothing is left.
    @Test(arguments: ["SQLite", "XML", "Binary"])
    func aMigrationThatCannotBeInferredStopsTheOpen(type: String) throws {
        let (_, _, folder, source, before) = try MigrationTests.versionOneStore(type: type)
        let narrowed = try MigrationSupport.model(
            MigrationTests.version1.replacingOccurrences(
                of: #"<attribute name="pages" optional="YES" attributeType="Integer 32""#,
                with: #"<attribute name="pages" optional="YES" attributeType="Date""#))
        let error = try #require(throws: DocumentError.self) {
            try PersistentDocument(contentsOf: source, model: narrowed)
        }
        #expect(error.code == .badData)
        #expect(error.message.contains("Book.pages: changes type from Integer 32 to Date"))
        #expect(try Data(contentsOf: source) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["library.store"])
    }

    /// Another process holding the document open for writing: the open is refused before anything is migrated.
    @Test func aDocumentOpenElsewhereIsNotMigrated() throws {
        let (_, new, _, source, before) = try MigrationTests.versionOneStore(type: "SQLite")
        let lock = try DocumentLock.acquire(for: source, program: "another editor")
        defer { lock.release() }
        let error = try #require(throws: DocumentError.self) { try PersistentDocument(contentsOf: source, model: new) }
        #expect(error.code == .conflict)
        let bundle = try Self.bundle(in: try Fixtures.temporaryDirectory())
        let migrating = try #require(throws: DocumentError.self) {
            try DocumentMigration.migrate(source, model: bundle)
        }
        #expect(migrating.code == .conflict)
        #expect(migrating.message.contains("another editor"))
        #expect(try Data(contentsOf: source) == before)
    }

    /// An autosaved version written with the old model waits to be recovered: the document is not migrated under it.
    @Test func aDocumentWithAnAutosaveWaitingIsNotMigrated() throws {
        let (old, new, _, source, _) = try MigrationTests.versionOneStore(type: "XML")
        do {
            let editing = try PersistentDocument(contentsOf: source, model: old)
            let shelf = try editing.managedObjectContext.insertNewObject(forEntityName: "Shelf")
            try shelf.setValue(.string("Poetry"), forKey: "label")
            try editing.autosave()
            // The session ends without closing (a crash): the autosave stays.
        }
        let before = try Data(contentsOf: source)
        let document = try PersistentDocument(contentsOf: source, model: new)
        #expect(document.migratedFrom == nil)
        #expect(document.foundAutosave != nil)
        #expect(document.warnings.contains { $0.contains("not migrated while an autosaved version is there") })
        try document.close()
        #expect(try Data(contentsOf: source) == before)
    }

    /// The model the document carries is the model given (the hashes it records were computed another way): read as
    /// it is, nothing migrated.
    @Test func theSameModelIsNeverMigrated() throws {
        let (old, _, _, source, before) = try MigrationTests.versionOneStore(type: "SQLite")
        let document = try PersistentDocument(contentsOf: source, model: old)
        #expect(document.migratedFrom == nil)
        #expect(document.modelSource == "given")
        #expect(document.warnings.isEmpty)
        try document.close()
        #expect(try Data(contentsOf: source) == before)
    }

    /// An app's document class gives its model from the hook, as NSPersistentDocument apps do: a document written
    /// with the earlier version is migrated to it too.
    @Test func anAppsModelFromTheHookMigratesToo() throws {
        let (_, new, _, source, _) = try MigrationTests.versionOneStore(type: "Binary")
        let document = try LibraryDocument(contentsOf: source)
        #expect(document.migratedFrom == "the document's own model (embedded)")
        #expect(document.modelSource == "app")
        #expect(document.coordinator.model.entityVersionHashes == new.entityVersionHashes)
        #expect(try Self.writers(document.managedObjectContext).count == 2)
        try document.close()
    }
}

/// An app's document class with its own model (version 2 of ``MigrationTests``' model).
final class LibraryDocument: PersistentDocument {
    static let appModel = Result { try MigrationSupport.model(MigrationTests.version2) }

    override class func managedObjectModel(for url: URL, ofType type: DocumentType) throws(DocumentError) -> (
        model: ManagedObjectModel, source: String, warnings: [String]
    ) {
        do {
            return (try appModel.get(), "app", [])
        } catch {
            throw DocumentError(.badData, "the app's model: \(error)")
        }
    }
}
