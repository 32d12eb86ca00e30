import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// A shelf class with its own rule: its rows must become objects, so that the rule runs.
final class RuledShelf: ManagedObject {
    override func validateForInsert() throws(ObjectValidationError) {
        if case .string("forbidden")? = try? attributeValue(forKey: "label") {
            throw ObjectValidationError(
                .custom, entityName: "Shelf", key: "label", objectID: objectID, "this shelf is not allowed")
        }
    }
}

/// A batched import into a new SQLite document writes rows of plain entities without making objects: the result
/// must be what making objects gives (values, links by key in any order and across batches, keys numbered 1…N),
/// every problem must be listed as the object path lists it, and entities with behaviour of their own still get
/// objects.
@Suite struct BatchedImportTests {
    static func folder(_ files: [String: String]) throws -> URL {
        let folder = try Fixtures.temporaryDirectory()
        for (name, text) in files {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return folder
    }

    static func bookRows(_ range: Range<Int>, shelves: Int) -> String {
        var text = "id,isbn,title,pages,shelf.label\n"
        for i in range {
            let id = String(format: "8E0E2A2C-1F1D-4C35-9E4B-%012d", i)
            text += "\(id),\(String(format: "%010d", i)),Book \(i),\(1 + i % 900),S\(i % shelves)\n"
        }
        return text
    }

    @Test func rowsLinkByKeyInAnyOrderAcrossBatches() throws {
        let shelves = 7
        let early = DocumentImport.batchSize + 5_000
        // Books read before their shelves (links made at the end) and after them (links made at once).
        let folder = try Self.folder([
            "early/Book.csv": Self.bookRows(0..<early, shelves: shelves),
            "Shelf.csv": "label\n" + (0..<shelves).map { "S\($0)\n" }.joined(),
            "late/Book.csv": Self.bookRows(early..<early + 100, shelves: shelves),
        ])
        let out = folder.appendingPathComponent("out.sqlite")
        let summary = try DocumentImport.importNew(
            ["early/Book.csv", "Shelf.csv", "late/Book.csv"].map { folder.appendingPathComponent($0) }, to: out,
            ofType: .sqlite, model: ImportTests.model(), options: ImportOptions())
        #expect(summary.inserted == ["Book": early + 100, "Shelf": shelves])
        #expect(summary.batched)
        // Written with its journal in memory: nothing is left beside it, and it is whole.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "Shelf.csv", "early", "late", "out.sqlite",
            ])

        let document = try PersistentDocument(contentsOf: out, model: ImportTests.model())
        defer { _ = try? document.close() }
        let context = document.managedObjectContext
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Book"))
        #expect(Set(ids.map(\.primaryKey)) == Set(Int64(1)...Int64(early + 100)))
        for shelf in 0..<shelves {
            var request = FetchRequest(entityName: "Book")
            request.predicate = try ObjectPredicate(format: "shelf.label == 'S\(shelf)'")
            let expected = (0..<early + 100).filter { $0 % shelves == shelf }.count
            #expect(try context.count(for: request) == expected, "S\(shelf)")
        }
        // Values as the object path sets them: parsed by type, defaults for columns the file lacks.
        var request = FetchRequest(entityName: "Book")
        request.predicate = try ObjectPredicate(format: "title == 'Book 20001'")
        let book = try #require(try context.fetch(request).first)
        #expect(try book.attributeValue(forKey: "pages") == .integer16(Int16(1 + 20001 % 900)))
        #expect(try book.attributeValue(forKey: "isbn") == .string("0000020001"))
        #expect(try book.attributeValue(forKey: "readCount") == .integer64(0))
        #expect(try book.attributeValue(forKey: "rating") == .float(2.5))
        let shelf = try #require(try book.object(forKey: "shelf"))
        #expect(try shelf.attributeValue(forKey: "label") == .string("S\(20001 % shelves)"))
        let members = (0..<early + 100).filter { $0 % shelves == 20001 % shelves }.count
        #expect(try shelf.objects(forKey: "books").count == members)
    }

    @Test func rowProblemsAreListedAsObjectsListThem() throws {
        let book = """
            id,isbn,title,pages,shelf.label
            8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0001,0441172717,Dune,0,S0
            8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0002,abc,Dune Messiah,x,S0
            8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0003,0441172719,,300,Nope
            not-a-uuid,0441172710,Children of Dune,70000,S0

            """
        let folder = try Self.folder(["Book.csv": book, "Shelf.csv": "label\nS0\n"])
        let sources = ["Book.csv", "Shelf.csv"].map { folder.appendingPathComponent($0) }
        func problems(_ body: () throws -> Void) -> [String] {
            do {
                try body()
                Issue.record("the import succeeded; expected problems")
            } catch let error as DocumentError {
                #expect(error.code == .badData)
                return error.message.split(separator: "\n").map(String.init).sorted()
            } catch {
                Issue.record("unexpected error \(error)")
            }
            return []
        }
        let out = folder.appendingPathComponent("out.sqlite")
        let batched = problems {
            try DocumentImport.importNew(
                sources, to: out, ofType: .sqlite, model: ImportTests.model(), options: ImportOptions())
        }
        let inMemory = problems {
            let document = try PersistentDocument(creatingAt: nil, ofType: .sqlite, model: ImportTests.model())
            try DocumentImport.read(
                sources, into: ImportTarget(context: document.managedObjectContext, options: ImportOptions()))
        }
        #expect(batched == inMemory)
        let path = folder.appendingPathComponent("Book.csv").path
        for line in [
            "\(path):2:1: Book.pages: 0 is less than the minimum 1",
            "\(path):3:1: Book.isbn: \"abc\" does not match /[0-9X]+/",
            "\(path):3:1: Book.isbn: \"abc\" is shorter than 10 characters",
            "\(path):3:55: Book.pages: 'x': not an integer",
            "\(path):4:1: Book.title: a value is required",
            "\(path):4:54: shelf.label: no Shelf has label = Nope",
            "\(path):5:1: Book.id: 'not-a-uuid': not a UUID",
            "\(path):5:40: Book.pages: '70000': out of range for Integer 16",
            "nothing was imported (9 problems)",
        ] {
            #expect(batched.contains { $0.contains(line) }, "missing \(line) in \(batched)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["Book.csv", "Shelf.csv"])
    }

    @Test func entitiesWithAClassOfTheirOwnStillBecomeObjects() throws {
        DocumentStack.registerStoreTypes()
        let folder = try Self.folder(["Shelf.csv": "label\nkitchen\nforbidden\nhall\n"])
        let coordinator = PersistentStoreCoordinator(model: try ImportTests.model())
        coordinator.registerClass(RuledShelf.self, forEntityName: "Shelf")
        try coordinator.addPersistentStore(type: "SQLite", url: folder.appendingPathComponent("shelves.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager = nil
        let target = ImportTarget(context: context, options: ImportOptions(), batchSize: 2)
        do {
            try DocumentImport.read([folder.appendingPathComponent("Shelf.csv")], into: target)
            Issue.record("the class's rule did not run")
        } catch {
            #expect(error.message.contains("Shelf.csv:3:1: Shelf.label: this shelf is not allowed"), "\(error.message)")
        }
    }

    @Test func entitiesWithDerivedAttributesStillBecomeObjects() throws {
        DocumentStack.registerStoreTypes()
        let model = try MigrationSupport.model(DerivedAttributeTests.entities)
        let folder = try Self.folder(["Book.csv": "title\nDune\nEarthsea\n"])
        let out = folder.appendingPathComponent("out.sqlite")
        try DocumentImport.importNew(
            [folder.appendingPathComponent("Book.csv")], to: out, ofType: .sqlite, model: model,
            options: ImportOptions())
        let document = try PersistentDocument(contentsOf: out, model: model)
        defer { _ = try? document.close() }
        let books = try document.managedObjectContext.fetch(FetchRequest(entityName: "Book"))
        #expect(
            Set(try books.map { try $0.attributeValue(forKey: "shout") }) == [.string("DUNE"), .string("EARTHSEA")])
    }
}

extension BatchedImportTests {
    /// Shelves and books whose title is unique per shelf: a constraint over a relationship, which only the store
    /// checks (its unique index).
    static let shelvedTitles = """
        <entity name="Shelf">
            <attribute name="label" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
        </entity>
        <entity name="Book">
            <attribute name="title" attributeType="String"/>
            <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="title"/>
                    <constraint value="shelf"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        """

    /// A batch the store refuses while the next is being read: the import fails with the store's reason, and
    /// nothing is left.
    @Test(arguments: [100, DocumentImport.batchSize + 3_000])
    func aBatchTheStoreRefusesLeavesNothing(repeatAt row: Int) throws {
        DocumentStack.registerStoreTypes()
        var books = "title,shelf.label\n"
        for i in 0..<DocumentImport.batchSize + 5_000 { books += "Book \(i == row ? 0 : i),S0\n" }
        let folder = try Self.folder(["Shelf.csv": "label\nS0\n", "Book.csv": books])
        let out = folder.appendingPathComponent("out.sqlite")
        do {
            try DocumentImport.importNew(
                ["Shelf.csv", "Book.csv"].map { folder.appendingPathComponent($0) }, to: out, ofType: .sqlite,
                model: MigrationSupport.model(Self.shelvedTitles), options: ImportOptions())
            Issue.record("the import succeeded with a repeated title on one shelf")
        } catch let error as DocumentError {
            #expect(error.code == .io)
            #expect(error.message.contains("UNIQUE constraint failed"), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["Book.csv", "Shelf.csv"])
    }

    /// A value the model makes unique, repeated in the input or already in the document, is reported where it is
    /// repeated, whichever way the import goes (rows into a new document, objects into an existing one).
    @Test func aRepeatedUniqueValueIsReportedWhereItRepeats() throws {
        let books = """
            id,isbn,title
            8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0001,0441172717,Dune
            8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0002,0441172718,Dune Messiah
            8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0003,0441172717,Dune again

            """
        let folder = try Self.folder([
            "Book.csv": books,
            "more/Book.csv": "id,isbn,title\n8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0004,0441172718,Again\n",
        ])
        let source = folder.appendingPathComponent("Book.csv")
        let repeated =
            "\(source.path):4:1: Book.isbn: 0441172717 is already used by the object at \(source.path):2:1 (the model makes it unique)"
        let out = folder.appendingPathComponent("out.sqlite")
        let model = try ImportTests.model()
        func expectProblems(_ lines: [String], _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("the import succeeded with a repeated ISBN")
            } catch let error as DocumentError {
                #expect(error.code == .badData)
                for line in lines { #expect(error.message.contains(line), "\(error.message)") }
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        expectProblems([repeated]) {
            try DocumentImport.importNew([source], to: out, ofType: .sqlite, model: model, options: ImportOptions())
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))

        // Into an existing document (objects): repeats within the input and of values already there.
        try DocumentImport.importNew(
            [folder.appendingPathComponent("more/Book.csv")], to: out, ofType: .sqlite, model: model,
            options: ImportOptions())
        let before = try Data(contentsOf: out)
        let already =
            "\(source.path):3:1: Book.isbn: 0441172718 is already used by an object already in the document"
        expectProblems([repeated, already]) {
            try DocumentImport.importInto([source], document: out, model: model, options: ImportOptions())
        }
        #expect(try Data(contentsOf: out) == before)

        // An XML document does not enforce uniqueness: the same rows import.
        try DocumentImport.importNew(
            [source], to: folder.appendingPathComponent("out.xml"), ofType: .xml, model: model, options: ImportOptions()
        )
    }
}
