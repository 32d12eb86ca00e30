import Foundation
import TestSupport
import Testing

/// `docutil diff` on documents and models, through real processes.
struct DiffCommandTests {
    static func report(_ output: String) throws -> [String: Any] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(root["formatVersion"] as? Int == 1)
        return root
    }

    /// Converts `source` to each other store type; returns the copies.
    static func conversions(of source: URL) throws -> [URL] {
        let folder = try Fixtures.temporaryDirectory()
        var outputs: [URL] = []
        for type in ["xml", "binary", "sqlite"] {
            let output = folder.appendingPathComponent("copy.\(type)")
            let result = try Docutil.run(["convert", source.path, output.path])
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append(output)
        }
        return outputs
    }

    @Test func aDocumentEqualsItsConversionToEveryStoreType() throws {
        let library = Fixtures.project("Library.xml")
        for copy in try Self.conversions(of: library) {
            let result = try Docutil.run(["diff", library.path, copy.path])
            #expect(result.status == 0, "\(copy.lastPathComponent): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try Docutil.run(["diff", copy.path, library.path]).status == 0)
        }
    }

    /// A value that is not a number — a date's, a float's — is the same value as itself: a document with them has
    /// no differences from itself or from its binary copy (NaN is not equal to NaN in arithmetic, but a stored one
    /// is the same value as another).
    @Test func notANumberIsTheSameAsItself() throws {
        let folder = try Fixtures.temporaryDirectory()
        var text = try String(contentsOf: Fixtures.project("Library.xml"), encoding: .utf8)
        for (from, to) in [
            (#"type="date">-1000000000.00000000000000000000<"#, #"type="date">nan<"#),
            (#"type="float">2.5<"#, #"type="float">nan<"#),
        ] {
            let range = try #require(text.range(of: from))
            text.replaceSubrange(range, with: to)
        }
        let document = folder.appendingPathComponent("nan.xml")
        try Data(text.utf8).write(to: document)
        let copy = folder.appendingPathComponent("nan.binary")
        #expect(try Docutil.run(["convert", document.path, copy.path]).status == 0)
        for other in [document, copy] {
            let result = try Docutil.run(["diff", document.path, other.path])
            #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
        }
    }

    @Test(.needsRealFixtures) func realStoresEqualTheirConversionsEvenWhenObjectsWereRenumbered() throws {
        // The XML store has one key counter for all entities: converting a store whose entities reuse keys
        // renumbers objects, which diff pairs by contents and relationships.
        for path in [
            "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite",
            "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite",
            "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_2.0.1.sqlite",
            "sqlite/duckduckgo__BrowserServicesKit__Tests__BookmarksTests__Resources__Bookmarks_V5.sqlite",
        ] {
            let store = try Fixtures.copySQLiteStore(path)
            for copy in try Self.conversions(of: store) {
                let result = try Docutil.run(["diff", store.path, copy.path])
                #expect(result.status == 0, "\(path) → \(copy.lastPathComponent): \(result.stdout.prefix(2_000))")
            }
        }
    }

    @Test func editsMadeWithOpenAreListedAndNothingElse() throws {
        let folder = try Fixtures.temporaryDirectory()
        let original = folder.appendingPathComponent("before.xml")
        try FileManager.default.copyItem(at: Fixtures.project("Library.xml"), to: original)
        let edited = folder.appendingPathComponent("after.sqlite")
        #expect(try Docutil.run(["convert", original.path, edited.path]).status == 0)
        let session = try Docutil.run([
            "open", edited.path, "-c", "set Book/p104 title='Dune (1965)' pages=412", "-c", "insert Shelf label='New'",
            "-c", "set Author/p102 email='frank@example.com'", "-c", "save",
        ])
        #expect(session.status == 0, "\(session.stderr)")
        let result = try Docutil.run(["diff", original.path, edited.path, "--format", "json"])
        #expect(result.status == 1)
        let report = try Self.report(result.stdout)
        #expect((report["onlyInA"] as? [Any])?.isEmpty == true)
        let added = try #require(report["onlyInB"] as? [String])
        #expect(added.count == 1 && added[0].contains("/Shelf/p"))
        let changed = try #require(report["changed"] as? [[String: Any]])
        #expect(changed.count == 2, "\(changed)")
        let book = try #require(changed.first { ($0["a"] as? String)?.hasSuffix("/Book/p104") == true })
        let bookKeys = try #require(book["keys"] as? [String: [Any]])
        #expect(Set(bookKeys.keys) == ["pages", "title"])
        #expect(bookKeys["pages"]?.first as? Int == 100 && bookKeys["pages"]?.last as? Int == 412)
        #expect(bookKeys["title"]?.last as? String == "Dune (1965)")
        let author = try #require(changed.first { ($0["a"] as? String)?.hasSuffix("/Author/p102") == true })
        let authorKeys = try #require(author["keys"] as? [String: [Any]])
        #expect(Set(authorKeys.keys) == ["email"])
        #expect(authorKeys["email"]?.first is NSNull)
        // The text form: - only in A, + only in B, ~ changed with each key.
        let text = try Docutil.run(["diff", original.path, edited.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("+ x-coredata://"))
        #expect(text.stdout.contains("    title: \"Dune\" → \"Dune (1965)\""))
        // A deletion shows as an object only in A, and its inverse side as changed.
        #expect(try Docutil.run(["open", edited.path, "-c", "delete Book/p105", "-c", "save"]).status == 0)
        let again = try Docutil.run(["diff", original.path, edited.path, "--format", "json"])
        let afterDelete = try Self.report(again.stdout)
        #expect((afterDelete["onlyInA"] as? [String])?.first?.hasSuffix("/Book/p105") == true)
    }

    @Test func objectsCanBeMatchedByAKeyAttribute() throws {
        let folder = try Fixtures.temporaryDirectory()
        let a = folder.appendingPathComponent("a.xml")
        let b = folder.appendingPathComponent("b.xml")
        try FileManager.default.copyItem(at: Fixtures.project("Library.xml"), to: a)
        try FileManager.default.copyItem(at: Fixtures.project("Library.xml"), to: b)
        // The same book deleted and inserted again: a new key, the same ISBN.
        let list = try Docutil.run(["open", b.path, "--read-only", "-c", "show Book/p105", "--format", "json"])
        #expect(list.status == 0)
        #expect(
            try Docutil.run([
                "open", b.path, "-c", "delete Book/p105", "-c",
                "insert Book title='Emma' isbn='0141439580' id='00000000-0000-4000-8000-000000000002' published='1969-04-25T22:13:20Z' pages=100",
                "-c", "save",
            ]).status == 0)
        let byKey = try Docutil.run(["diff", a.path, b.path, "--key", "Book=isbn", "--format", "json"])
        let report = try Self.report(byKey.stdout)
        #expect((report["onlyInA"] as? [Any])?.isEmpty == true, "\(byKey.stdout)")
        #expect((report["onlyInB"] as? [Any])?.isEmpty == true)
        // Its author is gone (the new book has none): the one change.
        let changed = try #require(report["changed"] as? [[String: Any]])
        #expect(changed.contains { ($0["keys"] as? [String: Any])?["author"] != nil })
        // A key attribute that repeats cannot identify objects; one that does not exist is an error too.
        #expect(try Docutil.run(["diff", a.path, b.path, "--key", "Book=pages"]).status == 65)
        #expect(try Docutil.run(["diff", a.path, b.path, "--key", "Book=nosuch"]).status == 65)
        #expect(try Docutil.run(["diff", a.path, b.path, "--key", "Book"]).status == 64)
    }

    @Test(.needsRealFixtures) func consecutiveModelVersionsListTheirDifferences() throws {
        let prefix = "xcdatamodel/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld__"
        let v1 = Fixtures.real(prefix + "SampleModel.xcdatamodel__contents.xml").path
        let v2 = Fixtures.real(prefix + "SampleModel2.xcdatamodel__contents.xml").path
        let v3 = Fixtures.real(prefix + "SampleModel3.xcdatamodel__contents.xml").path
        #expect(try Docutil.run(["diff", v1, v1]).status == 0)
        let first = try Docutil.run(["diff", v1, v2])
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.stdout.contains("> entity LuxuryCar renamed from ExpensiveSportCar"))
        #expect(first.stdout.contains("- attribute Car.color"))
        #expect(first.stdout.contains("- attribute Person.isDriving"))
        let second = try Docutil.run(["diff", v2, v3, "--format", "json"])
        #expect(second.status == 1)
        let changes = try #require(try Self.report(second.stdout)["changes"] as? [[String: Any]])
        func has(_ element: String, _ name: String, _ change: String) -> Bool {
            changes.contains {
                $0["element"] as? String == element && $0["name"] as? String == name
                    && $0["change"] as? String == change
            }
        }
        #expect(has("entity", "Maker", "added"))
        #expect(has("relationship", "Car.createdBy", "added"))
        #expect(has("attribute", "Car.maker", "removed"))
        #expect(has("entity", "Car", "changed"))
    }

    @Test func theModelsOfTwoDocumentsCompareWithModels() throws {
        let library = Fixtures.project("Library.xml")
        let copy = try Self.conversions(of: library)[2]
        let same = try Docutil.run(["diff", "--models", library.path, copy.path])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        let model = Fixtures.project("Library.xcdatamodeld").path
        #expect(try Docutil.run(["diff", model, library.path]).status == 0)
        // A changed attribute type shows field by field.
        let folder = try Fixtures.temporaryDirectory()
        let changed = folder.appendingPathComponent("contents")
        let text = try String(
            contentsOf: Fixtures.project("Library.xcdatamodeld/Library.xcdatamodel/contents"), encoding: .utf8)
        try Data(
            text.replacingOccurrences(
                of: #"<attribute name="pages" attributeType="Integer 16""#,
                with: #"<attribute name="pages" attributeType="Integer 32""#
            ).utf8
        ).write(to: changed)
        let result = try Docutil.run(["diff", model, changed.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("~ attribute Book.pages type: Integer 16 → Integer 32"), "\(result.stdout)")
    }
}
