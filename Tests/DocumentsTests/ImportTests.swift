import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// A made-up legacy format: one shelf per line, `label|book title;book title…`.
struct ShelfListImporter: DocumentImporter {
    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw DocumentError(.io, "\(url.path): \(error)")
        }
        let shelf = try target.entity(forKey: "Shelf", prefix: "key:", in: url)
        guard let shelf else { throw DocumentError(.badData, "no Shelf entity") }
        for (number, line) in text.split(separator: "\n").enumerated() {
            let parts = line.split(separator: "|", omittingEmptySubsequences: false)
            let place = ImportPlace.position(line: number + 1, column: 1)
            guard parts.count == 2 else {
                target.problem("expected LABEL|TITLES", at: place, in: url)
                continue
            }
            let books = parts[1].split(separator: ";").enumerated().map { index, title in
                ImportNode(
                    .object([
                        ImportField(name: "title", node: ImportNode(.string(String(title)), at: place)),
                        ImportField(name: "isbn", node: ImportNode(.string("10000000\(number)\(index)"), at: place)),
                        ImportField(name: "id", node: ImportNode(.string(UUID().uuidString), at: place)),
                    ]), at: place)
            }
            try target.insert(
                shelf,
                fields: [
                    ImportField(name: "label", node: ImportNode(.string(String(parts[0])), at: place)),
                    ImportField(name: "books", node: ImportNode(.array(books), at: place)),
                ], at: place, in: url)
            try target.recordRead(from: url)
        }
    }
}

/// The importers and the import hook, through the library.
struct ImportTests {
    static func model() throws -> ManagedObjectModel {
        try ModelLoader.load(from: Fixtures.project("Library.xcdatamodeld")).model
    }

    static func write(_ name: String, _ data: Data) throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// Imports into an in-memory document and returns it.
    static func imported(_ url: URL, options: ImportOptions = ImportOptions()) throws -> PersistentDocument {
        let document = try PersistentDocument(creatingAt: nil, ofType: .sqlite, model: model())
        let target = ImportTarget(context: document.managedObjectContext, options: options)
        try DocumentImport.read([url], into: target)
        return document
    }

    static func objects(_ document: PersistentDocument, _ entity: String) throws -> [ManagedObject] {
        try document.managedObjectContext.fetch(FetchRequest(entityName: entity))
    }

    static func expectFailure(_ url: URL, containing text: String, options: ImportOptions = ImportOptions()) {
        do {
            _ = try imported(url, options: options)
            Issue.record("\(url.lastPathComponent) imported; expected an error containing \(text)")
        } catch let error as DocumentError {
            #expect(error.code == .badData)
            #expect(error.message.contains(text), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func anAppRegisteredImporterOpensAnUntitledEditedDocument() throws {
        DocumentTypeRegistry.register(
            DocumentType(name: "ShelfList", fileExtensions: ["shelves"], storeType: nil, importer: ShelfListImporter()))
        let url = try Self.write("home.shelves", Data("Attic|Dune;Emma\nKitchen|\n".utf8))
        let document = try PersistentDocument(contentsOf: url, model: Self.model())
        #expect(document.isUntitled)
        #expect(document.isEdited)
        #expect(document.importedFrom == url)
        #expect(document.undoManager?.canUndo == false)
        let shelves = try Self.objects(document, "Shelf")
        #expect(Set(try shelves.map { try $0.value(forKey: "label", as: String.self) }) == ["Attic", "Kitchen"])
        let attic = try #require(try shelves.first { try $0.value(forKey: "label", as: String.self) == "Attic" })
        #expect(try attic.objects(forKey: "books").count == 2)
        #expect(throws: DocumentError.self) { try document.save() }
        let out = url.deletingLastPathComponent().appendingPathComponent("home.sqlite")
        try document.saveAs(to: out)
        #expect(!document.isEdited)
        #expect(document.fileURL == out)
        try document.close()
        let reopened = try PersistentDocument(contentsOf: out, readOnly: true)
        #expect(try Self.objects(reopened, "Book").count == 2)
    }

    @Test func genericJSONCreatesNestedObjects() throws {
        let url = try Self.write(
            "library.json",
            Data(
                #"""
                {"Shelf": [{"label": "Top", "books": [
                    {"title": "Dune", "isbn": "0441172717", "id": "8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0001",
                     "pages": 412, "price": "12.50", "rating": 4.5, "isSigned": true, "published": "1965-08-01",
                     "author": {"name": "Frank Herbert", "born": "1920-10-08T00:00:00Z"}}]}],
                 "author": [{"name": "Ursula K. Le Guin"}]}
                """#.utf8))
        let document = try Self.imported(url)
        let book = try #require(try Self.objects(document, "Book").first)
        #expect(try book.value(forKey: "pages", as: Int16.self) == 412)
        #expect(try book.attributeValue(forKey: "price") == .decimal(Decimal(string: "12.50")!))
        #expect(try book.attributeValue(forKey: "rating") == .float(4.5))
        #expect(try book.object(forKey: "shelf")?.value(forKey: "label", as: String.self) == "Top")
        #expect(try book.object(forKey: "author")?.value(forKey: "name", as: String.self) == "Frank Herbert")
        #expect(try Self.objects(document, "Author").count == 2)
    }

    @Test func jsonValuesOfTheWrongKindAreReportedAtTheirLine() throws {
        let url = try Self.write(
            "Book.json", Data("[{\"title\": \"A\",\n  \"pages\": \"many\", \"isSigned\": 3}]".utf8))
        Self.expectFailure(url, containing: "Book.json:2:12: Book.pages: 'many': not an integer")
        Self.expectFailure(url, containing: "Book.json:2:32: Book.isSigned: only 0 and 1 are booleans")
        // The model's rules are checked too, in the same run: the record lacks isbn and id.
        Self.expectFailure(url, containing: "Book.json:1:2: Book.isbn: a value is required")
    }

    @Test func propertyListsXMLAndBinaryImportWithNativeValues() throws {
        let published = Date(timeIntervalSinceReferenceDate: 12_345)
        let books = PropertyList.array([
            .dictionary([
                "title": .string("Dune"), "isbn": .string("0441172717"),
                "id": .string("8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0001"), "published": .date(published),
                "cover": .data(Data([1, 2, 3])), "pages": .integer(412), "weight": .real(0.5),
            ])
        ])
        let root = PropertyList.dictionary(["Book": books])
        let binary = try Self.write("books.plist", BinaryPropertyListWriter.data(root))
        let xml = try Self.write(
            "xml.plist",
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><array><dict>
                <key>title</key><string>Dune</string><key>isbn</key><string>0441172717</string>
                <key>id</key><string>8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0001</string>
                <key>published</key><date>2001-01-01T03:25:45Z</date><key>cover</key><data>AQID</data>
                <key>pages</key><integer>412</integer><key>weight</key><real>0.5</real>
                </dict></array></plist>
                """.utf8))
        for (url, entity) in [(binary, nil), (xml, "Book")] as [(URL, String?)] {
            let document = try Self.imported(url, options: ImportOptions(entity: entity))
            let book = try #require(try Self.objects(document, "Book").first)
            #expect(try book.attributeValue(forKey: "published") == .date(published))
            #expect(try book.attributeValue(forKey: "cover") == .binary(Data([1, 2, 3])))
            #expect(try book.attributeValue(forKey: "weight") == .double(0.5))
        }
        let bad = try Self.write(
            "Book.plist",
            BinaryPropertyListWriter.data(.array([.dictionary(["title": .string("A"), "pages": .date(published)])])))
        Self.expectFailure(bad, containing: "Book.plist: 0.pages: Book.pages: expected a number, found a date")
    }

    @Test func keyedArchivesOfPlainObjectsImport() throws {
        // An NSKeyedArchiver archive of [{"label": "Attic"}, {"label": NSNull}] as an old Cocoa app writes it.
        let objects: [PropertyList] = [
            .string("$null"),
            .dictionary(["NS.objects": .array([.uid(2), .uid(7)]), "$class": .uid(6)]),
            .dictionary(["NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(4)]), "$class": .uid(5)]),
            .string("label"),
            .string("Attic"),
            .dictionary(["$classname": .string("NSDictionary"), "$classes": .array([.string("NSDictionary")])]),
            .dictionary(["$classname": .string("NSMutableArray"), "$classes": .array([.string("NSArray")])]),
            .dictionary(["NS.keys": .array([.uid(3)]), "NS.objects": .array([.uid(8)]), "$class": .uid(5)]),
            .dictionary(["$class": .uid(9)]),
            .dictionary(["$classname": .string("NSNull"), "$classes": .array([.string("NSNull")])]),
        ]
        let archive = PropertyList.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$objects": .array(objects),
            "$top": .dictionary(["root": .uid(1)]),
        ])
        let url = try Self.write("Shelf.archive", BinaryPropertyListWriter.data(archive))
        // The second shelf has no label (NSNull), which the model requires.
        Self.expectFailure(url, containing: "Shelf.label: a value is required")
        let fixed = objects.enumerated().map { $0.offset == 8 ? PropertyList.string("Cellar") : $0.element }
        var good = archive
        if case .dictionary(var top) = archive {
            top["$objects"] = .array(fixed)
            good = .dictionary(top)
        }
        let goodURL = try Self.write("Shelf.archive", BinaryPropertyListWriter.data(good))
        let document = try Self.imported(goodURL)
        let labels = try Self.objects(document, "Shelf").map { try $0.value(forKey: "label", as: String.self) }
        #expect(Set(labels) == ["Attic", "Cellar"])
    }

    @Test func plainSQLiteTablesImportByName() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("legacy.db")
        try Data().write(to: url)
        try SQLiteScript.execute(
            url,
            """
            CREATE TABLE shelf (label TEXT);
            INSERT INTO shelf VALUES ('Attic'), ('Cellar');
            CREATE TABLE book (title TEXT, isbn TEXT, id TEXT, pages INTEGER, weight REAL, "shelf.label" TEXT);
            INSERT INTO book VALUES ('Dune', '0441172717', '8E0E2A2C-1F1D-4C35-9E4B-9B8D3F1E0001', 412, 0.5, 'Cellar');
            CREATE TABLE unrelated (x);
            """)
        let before = try Data(contentsOf: url)
        let document = try Self.imported(url)
        let book = try #require(try Self.objects(document, "Book").first)
        #expect(try book.object(forKey: "shelf")?.value(forKey: "label", as: String.self) == "Cellar")
        #expect(try Self.objects(document, "Shelf").count == 2)
        // Reading never changes the database or leaves files beside it.
        #expect(try Data(contentsOf: url) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["legacy.db"])
        try SQLiteScript.execute(url, "INSERT INTO book VALUES ('Bad', '0441172717', 'x', 'many', 0, NULL);")
        Self.expectFailure(
            url, containing: "legacy.db: table book rowid 2 column pages: Book.pages: 'many': not an integer")
    }
}
