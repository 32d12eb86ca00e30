import Foundation
import ObjectGraph
import TestSupport
import Testing

/// info, dump, query and convert, run as real processes on real files.
struct DocumentCommandTests {
    /// A library document written by the XML store, from the bundled model.
    static func libraryDocument() throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        let model = directory.appendingPathComponent("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.project("Library.xcdatamodeld/Library.xcdatamodel/contents"),
            to: model.appendingPathComponent("contents"))
        return directory
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A document package in UIManagedDocument's layout (the store at `StoreContent/persistentStore`) is read by
    /// every inspecting command as the store inside it: the same objects, the same model.
    @Test func everyInspectingCommandReadsADocumentPackage() throws {
        let directory = try Fixtures.temporaryDirectory()
        let flat = directory.appendingPathComponent("library.sqlite")
        let convert = try Docutil.run(["convert", Fixtures.project("Library.xml").path, flat.path])
        #expect(convert.status == 0, "\(convert.stderr)")
        let package = directory.appendingPathComponent("Library.coredata")
        try FileManager.default.createDirectory(
            at: package.appendingPathComponent("StoreContent"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: flat, to: package.appendingPathComponent("StoreContent").appendingPathComponent("persistentStore"))
        for arguments in [
            ["dump"], ["query", "--entity", "Book", "--sort", "title"], ["schema", "--format", "json"],
            ["check"],
        ] {
            let fromPackage = try Docutil.run(arguments + [package.path])
            let fromFile = try Docutil.run(arguments + [flat.path])
            #expect(fromPackage.status == 0, "\(arguments): \(fromPackage.stderr)")
            #expect(fromPackage.stdout == fromFile.stdout, "\(arguments)")
            #expect(!fromPackage.stdout.isEmpty || arguments == ["check"], "\(arguments)")
        }
        let info = try Docutil.run(["info", "--format", "json", package.path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect((try Self.json(info.stdout)["entityCounts"] as? [String: Int])?["Book"] == 2, "\(info.stdout)")
    }

    @Test(.needsRealFixtures)
    func infoDumpAndQueryAnAppleXMLStore() throws {
        let copy = try Fixtures.temporaryDirectory().appendingPathComponent("mapping.xml")
        try FileManager.default.copyItem(
            at: Fixtures.real("xmlstore/fruitsamples__MigrationV2__Models__MappingModel.xcmappingmodel__xcmapping.xml"),
            to: copy)
        let info = try Docutil.run(["info", "--format", "json", copy.path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stderr.contains("inferred"))
        let infoJSON = try Self.json(info.stdout)
        #expect(infoJSON["storeType"] as? String == "XML")
        #expect(infoJSON["uuid"] as? String == "9DA05BB0-3F2A-4C1F-978F-3D70EC917014")
        #expect(
            (infoJSON["entityCounts"] as? [String: Int]) == [
                "XDDevAttributeMapping": 8, "XDDevEntityMapping": 4, "XDDevMappingModel": 1,
                "XDDevRelationshipMapping": 6,
            ])
        #expect((infoJSON["metadata"] as? [String: Any])?["NSStoreModelVersionHashes"] != nil)

        let dump = try Docutil.run(["dump", copy.path])
        #expect(dump.status == 0)
        let objects = try #require(try Self.json(dump.stdout)["objects"] as? [[String: Any]])
        #expect(objects.count == 19)
        let first = try #require(objects.first)
        #expect(first["entity"] as? String == "XDDevAttributeMapping")
        #expect(
            (first["uri"] as? String)?.hasPrefix(
                "x-coredata://9DA05BB0-3F2A-4C1F-978F-3D70EC917014/XDDevAttributeMapping/p") == true)
        #expect((first["values"] as? [String: Any])?.keys.contains("entitymapping") == true)

        let query = try Docutil.run([
            "query", copy.path, "--entity", "XDDevEntityMapping", "--where", "mappingnumber >= $n", "--var", "n=0",
            "--sort=-destinationname", "--limit", "2", "--format", "csv",
        ])
        #expect(query.status == 0, "\(query.stderr)")
        let lines = query.stdout.split(separator: "\r\n")
        try #require(lines.count == 3)
        #expect(lines[0].hasPrefix("entity,uri,"))
    }

    @Test func convertsBetweenTypesAndNeverOverwritesWithoutForce() throws {
        let directory = try Self.libraryDocument()
        let model = directory.appendingPathComponent("Library.xcdatamodel").path
        // Make a document with the XML store through the library, then convert it around.
        let source = directory.appendingPathComponent("library.xml")
        let coordinatorScript = try Docutil.run(["schema", model])
        #expect(coordinatorScript.status == 0)
        try DocumentFixture.writeLibrary(to: source, modelPath: model)
        let binary = directory.appendingPathComponent("library.binary")
        let convert = try Docutil.run(["convert", source.path, binary.path])
        #expect(convert.status == 0, "\(convert.stderr)")
        let again = try Docutil.run(["convert", source.path, binary.path])
        #expect(again.status == 73)
        #expect(again.stderr.contains("--force"))
        let forced = try Docutil.run(["convert", source.path, binary.path, "--force"])
        #expect(forced.status == 0)
        let back = directory.appendingPathComponent("back.data")
        let toXML = try Docutil.run(["convert", binary.path, back.path, "--to", "xml"])
        #expect(toXML.status == 0, "\(toXML.stderr)")
        let first = try Docutil.run(["dump", source.path])
        let last = try Docutil.run(["dump", back.path])
        #expect(first.stdout == last.stdout)
        #expect(first.stdout.contains("\"title\": \"Dune\""))
        let info = try Self.json(try Docutil.run(["info", "--format", "json", binary.path]).stdout)
        #expect(info["storeType"] as? String == "Binary")
        #expect(info["modelSource"] as? String == "embedded")
        #expect((info["entityCounts"] as? [String: Int])?["Book"] == 2)
        // And into SQLite: the same objects, a model we embedded, the WAL state.
        let sqlite = directory.appendingPathComponent("library.sqlite")
        #expect(try Docutil.run(["convert", binary.path, sqlite.path]).status == 0)
        #expect(try Docutil.run(["dump", sqlite.path]).stdout == first.stdout)
        let sqliteInfo = try Self.json(try Docutil.run(["info", "--format", "json", sqlite.path]).stdout)
        #expect(sqliteInfo["storeType"] as? String == "SQLite")
        #expect(sqliteInfo["modelSource"] as? String == "embedded")
        #expect((sqliteInfo["metadata"] as? [String: Any])?["DocutilStoreModel"] == nil)
        #expect(sqliteInfo["wal"] is [String: Any])
        #expect((sqliteInfo["entityCounts"] as? [String: Int])?["Book"] == 2)
        let unknown = try Docutil.run(["convert", source.path, directory.appendingPathComponent("x.unknown").path])
        #expect(unknown.status == 64)
    }

    @Test func queryReportsBadPredicatesAndUnknownEntities() throws {
        let directory = try Self.libraryDocument()
        let source = directory.appendingPathComponent("library.xml")
        try DocumentFixture.writeLibrary(
            to: source, modelPath: directory.appendingPathComponent("Library.xcdatamodel").path)
        let bad = try Docutil.run(["query", source.path, "--entity", "Book", "--where", "pages >"])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("syntax error at offset 7"))
        let unknown = try Docutil.run(["query", source.path, "--entity", "Magazine"])
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("Magazine"))
        let template = try Docutil.run([
            "query", source.path, "--entity", "Book", "--template", "BooksByTitle", "--var", "prefix='du'", "--format",
            "text",
        ])
        #expect(template.status == 0, "\(template.stderr)")
        #expect(template.stdout.contains("title = \"Dune\""))
        #expect(template.stdout.hasSuffix("1 object\n"))
        let sorted = try Docutil.run(["query", source.path, "--entity", "Person", "--sort=-name", "--format", "csv"])
        #expect(
            sorted.stdout.split(separator: "\r\n").dropFirst().map { $0.split(separator: ",")[0] } == [
                "Author", "Friend",
            ])
    }

    @Test func missingAndBadDocuments() throws {
        let missing = try Docutil.run(["info", "/nonexistent/doc.xml"])
        #expect(missing.status == 66)
        let directory = try Fixtures.temporaryDirectory()
        let junk = directory.appendingPathComponent("junk.xml")
        try Data("<database><object type=\"A\" id=\"z1\">".utf8).write(to: junk)
        let truncated = try Docutil.run(["dump", junk.path])
        #expect(truncated.status == 65)
        #expect(truncated.stderr.contains("junk.xml:"))
        let text = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        let unknown = try Docutil.run(["dump", text.path])
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("not a document"))
    }

    @Test(.needsRealFixtures)
    func infoOnASQLiteStoreCountsTablesAndReportsTheWAL() throws {
        let copy = try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.1.sqlite")
        let before = try Data(contentsOf: copy)
        let info = try Docutil.run(["info", "--format", "json", copy.path])
        #expect(info.status == 0, "\(info.stderr)")
        let json = try Self.json(info.stdout)
        #expect(json["storeType"] as? String == "SQLite")
        #expect((json["wal"] as? [String: Any])?["present"] as? Bool == true)
        let counts = try #require(json["entityCounts"] as? [String: Int])
        #expect(counts.count == 16)
        #expect(try Data(contentsOf: copy) == before)
    }
}

/// Writes the lending-library document used by the CLI tests, through the library itself.
enum DocumentFixture {
    static func writeLibrary(to url: URL, modelPath: String) throws {
        let result = try Docutil.run(["schema", modelPath])
        precondition(result.status == 0)
        try LibraryDocument.write(to: url, modelPath: modelPath)
    }
}
