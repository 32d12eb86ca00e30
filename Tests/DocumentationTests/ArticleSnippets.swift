import BinaryStore
import Documents
import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

// The code of every DocC article, compiled and run. Each region between `// snippet` and `// end snippet` appears
// verbatim (indentation removed) as a `swift` code block of an article; `ArticleCodeTests` checks both ways.

// snippet
final class Book: ManagedObject {
    var title: String? {
        get { self["title"] }
        set { self["title"] = newValue }
    }
    var author: ManagedObject? {
        get { self[object: "author"] }
        set { self[object: "author"] = newValue }
    }
}
// end snippet

/// A small library model, as the articles use it.
func libraryModel() throws -> ManagedObjectModel {
    // snippet
    let model = try ManagedObjectModel(entities: [
        EntityDescription(
            name: "Book",
            attributes: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "pages", type: .integer32),
            ],
            relationships: [RelationshipDescription(name: "author", destination: "Author", inverse: "books")]),
        EntityDescription(
            name: "Author", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true)
            ]),
    ])
    // end snippet
    return model
}

struct ArticleSnippets {
    @Test func gettingStarted() throws {
        let model = try libraryModel()
        // snippet
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)

        let author = try context.insertNewObject(forEntityName: "Author")
        try author.setValue(.string("Frank Herbert"), forKey: "name")
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Dune"), forKey: "title")
        try book.setValue(.integer(412), forKey: "pages")
        try book.setValue(.object(author), forKey: "author")  // author.books now holds the book too
        try context.save()

        let long = FetchRequest(
            entityName: "Book", predicate: try ObjectPredicate(format: "pages > %d", 300),
            sortDescriptors: [ObjectSortDescriptor(keyPath: "title")])
        for match in try context.fetch(long) {
            print(try match.value(forKey: "title", as: String.self) ?? "untitled")
        }
        // end snippet
        #expect(try context.fetch(long).count == 1)
        #expect(try author.objects(forKey: "books").count == 1)

        // snippet
        try book.setValue(.string("Dune Messiah"), forKey: "title")
        context.processPendingChanges()  // ends one user step
        context.undo()  // the title is "Dune" again
        // end snippet
        #expect(try book.value(forKey: "title", as: String.self) == "Dune")
    }

    @Test func subclasses() throws {
        let coordinator = PersistentStoreCoordinator(model: try libraryModel())
        // snippet
        coordinator.registerClass(Book.self, forEntityName: "Book")
        // end snippet
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        // snippet
        let book = try context.insertNewObject(forEntityName: "Book") as! Book
        book.title = "Dune"
        // end snippet
        #expect(try book.value(forKey: "title", as: String.self) == "Dune")
    }

    @Test func predicates() throws {
        let coordinator = PersistentStoreCoordinator(model: try libraryModel())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let author = try context.insertNewObject(forEntityName: "Author")
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.integer(412), forKey: "pages")
        try book.setValue(.object(author), forKey: "author")
        // snippet
        let predicate = try ObjectPredicate(format: "title BEGINSWITH[c] %@ AND pages >= %d", "du", 100)
        print(predicate.format)  // title BEGINSWITH[c] "du" AND pages >= 100
        let row: PredicateValue = .dictionary(["title": .string("Dune"), "pages": .integer(412)])
        print(try predicate.evaluate(with: row))  // true

        let prolific = FetchRequest(
            entityName: "Author", predicate: try ObjectPredicate(format: "ANY books.pages > 400"))
        print(try context.count(for: prolific))
        print(try book.value(forKeyPath: "author.books.@sum.pages"))
        // end snippet
        #expect(try predicate.evaluate(with: row))
        #expect(try context.count(for: prolific) == 1)
        #expect(try book.value(forKeyPath: "author.books.@sum.pages") == .integer(412))
    }

    @Test func documentsAndSaving() throws {
        let folder = try Fixtures.temporaryDirectory()
        let model = try libraryModel()
        // snippet
        let document = try PersistentDocument(creatingAt: nil, ofType: .sqlite, model: model)
        let context = document.managedObjectContext
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Dune"), forKey: "title")
        let url = folder.appendingPathComponent("Library.sqlite")
        try document.saveAs(to: url)  // an untitled document's first save

        try book.setValue(.string("Dune Messiah"), forKey: "title")
        print(document.isEdited)  // true
        try document.save()  // in place; a failed save leaves the file as it was
        try book.setValue(.string("Children of Dune"), forKey: "title")
        try document.revert()  // back to what the file holds: "Dune Messiah"

        try document.saveCopy(to: folder.appendingPathComponent("Library.xml"), ofType: .xml)
        try document.close()
        // end snippet
        let reopened = try PersistentDocument(contentsOf: url, readOnly: true)
        let titles = try reopened.managedObjectContext.fetch(FetchRequest(entityName: "Book")).map {
            try $0.value(forKey: "title", as: String.self)
        }
        #expect(titles == ["Dune Messiah"])
        try reopened.close()
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Library.xml").path))
    }

    @Test func autosaveAndRecovery() throws {
        let folder = try Fixtures.temporaryDirectory()
        let url = folder.appendingPathComponent("Library.sqlite")
        let first = try PersistentDocument(creatingAt: nil, ofType: .sqlite, model: try libraryModel())
        try first.saveAs(to: url)
        try first.close()
        // snippet
        let document = try PersistentDocument(contentsOf: url, model: try libraryModel())
        document.autosaveInterval = 30  // autosaveIfDue() writes at most this often
        let book = try document.managedObjectContext.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Dune"), forKey: "title")
        try document.autosave()  // the unsaved changes go to a sidecar; the document file is untouched
        // end snippet
        // The process dies here: the sidecar outlives it (kept aside while the document closes).
        let kept = folder.appendingPathComponent("kept-autosave")
        try FileManager.default.copyItem(at: document.autosaveURL, to: kept)
        try document.close(discardingChanges: true)
        try FileManager.default.moveItem(at: kept, to: document.autosaveURL)
        // snippet
        let reopened = try PersistentDocument(contentsOf: url, model: try libraryModel())
        if let found = reopened.foundAutosave {
            print("autosaved on \(found.host)")
            let recovery = try reopened.recoverAutosave()  // the changes are unsaved edits again
            print(recovery.inserted, "inserted")
            try reopened.save()
        }
        // end snippet
        #expect(try reopened.managedObjectContext.count(for: FetchRequest(entityName: "Book")) == 1)
        try reopened.close()
    }

    @Test func storeTypesAndFiles() throws {
        let folder = try Fixtures.temporaryDirectory()
        let model = try libraryModel()
        // snippet
        SQLiteStore.register()
        XMLStore.register()
        BinaryStore.register()

        let url = folder.appendingPathComponent("Library.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Dune"), forKey: "title")
        try context.save()

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        print(metadata["NSStoreType"] ?? .null)  // "SQLite"
        let xml = folder.appendingPathComponent("Library.xml")
        try coordinator.migratePersistentStore(store, to: xml, type: XMLStore.typeName)
        // end snippet
        #expect(metadata["NSStoreType"] == .string("SQLite"))
        #expect(FileManager.default.fileExists(atPath: xml.path))
    }

    @Test func migration() throws {
        let folder = try Fixtures.temporaryDirectory()
        let oldModel = try libraryModel()
        let url = folder.appendingPathComponent("Library.sqlite")
        let first = try PersistentDocument(creatingAt: url, ofType: .sqlite, model: oldModel)
        try first.managedObjectContext.insertNewObject(forEntityName: "Book").setValue(.string("Dune"), forKey: "title")
        try first.save()
        try first.close()
        let newModel = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Book",
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "pages", type: .integer64),
                    AttributeDescription(name: "subtitle", type: .string),
                ],
                relationships: [RelationshipDescription(name: "author", destination: "Author", inverse: "books")]),
            EntityDescription(
                name: "Author", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true)
                ]),
        ])
        // snippet
        let problems = MappingModel.inferenceProblems(from: oldModel, to: newModel)
        for problem in problems { print(problem) }  // empty: a lightweight migration can go from old to new

        let document = try PersistentDocument(contentsOf: url, model: newModel)
        print(document.migratedFrom ?? "already current")  // migrated in place, under the document's lock
        // end snippet
        #expect(problems.isEmpty)
        #expect(document.migratedFrom != nil)
        try document.close()
    }

    @Test func importingLegacyData() throws {
        let folder = try Fixtures.temporaryDirectory()
        let model = try libraryModel()
        try Data("title,pages,author.name\nDune,412,Frank Herbert\nEmma,474,Jane Austen\n".utf8)
            .write(to: folder.appendingPathComponent("Book.csv"))
        try Data(#"[{"name": "Frank Herbert"}, {"name": "Jane Austen"}]"#.utf8)
            .write(to: folder.appendingPathComponent("Author.json"))
        // snippet
        let sources = ["Book.csv", "Author.json"].map { folder.appendingPathComponent($0) }
        let summary = try DocumentImport.importNew(
            sources, to: folder.appendingPathComponent("Library.sqlite"), ofType: .sqlite, model: model,
            options: ImportOptions())
        print(summary.inserted)  // ["Author": 2, "Book": 2]
        // end snippet
        #expect(summary.inserted == ["Author": 2, "Book": 2])
    }

    @Test func aRegisteredImporter() throws {
        let folder = try Fixtures.temporaryDirectory()
        let model = try libraryModel()
        let file = folder.appendingPathComponent("reading.titles")
        try Data("Dune\nEmma\n".utf8).write(to: file)
        // snippet
        DocumentTypeRegistry.register(
            DocumentType(name: "TitleList", fileExtensions: ["titles"], storeType: nil, importer: TitleListImporter()))
        let document = try PersistentDocument(contentsOf: file, model: model)  // untitled, edited
        try document.saveAs(to: folder.appendingPathComponent("Reading.sqlite"))
        // end snippet
        #expect(try document.managedObjectContext.count(for: FetchRequest(entityName: "Book")) == 2)
        try document.close()
    }
}

// snippet
/// Reads a file with one book title per line.
struct TitleListImporter: DocumentImporter {
    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw DocumentError(.noInput, "\(url.path): cannot read")
        }
        guard let book = try target.entity(forKey: "Book", prefix: "key:", in: url) else {
            throw DocumentError(.badData, "the model has no Book entity")
        }
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            let place = ImportPlace.position(line: number + 1, column: 1)
            let title = ImportField(name: "title", node: ImportNode(.string(String(line)), at: place))
            try target.insert(book, fields: [title], at: place, in: url)
            try target.recordRead(from: url)
        }
    }
}
// end snippet
