import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

struct SchemaCommandTests {
    @Test func textSummaryOfTheBundledModel() throws {
        let result = try Docutil.run(["schema", "Fixtures/Library.xcdatamodeld"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("6 entities, version identifiers: 1.0"))
        #expect(result.stdout.contains("entity BestFriend : Friend"))
        #expect(result.stdout.contains("entity Person (abstract)"))
        #expect(
            result.stdout.contains(
                "favorites      -> Book (to-many ordered, No Action, optional, count 0...10, no inverse)"))
        #expect(result.stdout.contains("unique (isbn)"))
        #expect(result.stdout.contains("BooksByTitle: Book where title BEGINSWITH[cd] $prefix"))
        #expect(result.stderr.isEmpty)
    }

    @Test func jsonFollowsTheDocumentedShape() throws {
        let result = try Docutil.run(["schema", "--format", "json", "Fixtures/Library.xcdatamodeld"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["formatVersion"] as? Int == 1)
        #expect(json["versionIdentifiers"] as? [String] == ["1.0"])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(
            entities.map { $0["name"] as? String } == ["Author", "BestFriend", "Book", "Friend", "Person", "Shelf"])
        let book = try #require(entities.first { $0["name"] as? String == "Book" })
        #expect(book["parent"] is NSNull)
        #expect(book["abstract"] as? Bool == false)
        #expect((book["versionHash"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 32)
        let attributes = try #require(book["attributes"] as? [[String: Any]])
        #expect(
            attributes.map { $0["name"] as? String } == attributes.map { $0["name"] as? String }.sorted { $0! < $1! })
        let pages = try #require(attributes.first { $0["name"] as? String == "pages" })
        #expect(pages["type"] as? String == "Integer 16")
        #expect(pages["optional"] as? Bool == false)
        #expect(pages["defaultValue"] as? String == "100")
        let isbn = try #require(attributes.first { $0["name"] as? String == "isbn" })
        #expect(isbn["defaultValue"] is NSNull)
        let relationships = try #require(book["relationships"] as? [[String: Any]])
        let borrower = try #require(relationships.first { $0["name"] as? String == "borrower" })
        #expect(borrower["destination"] as? String == "Friend")
        #expect(borrower["inverse"] as? String == "borrowedBooks")
        #expect(borrower["toMany"] as? Bool == false)
        #expect(borrower["maxCount"] as? Int == 1)
        #expect(borrower["deleteRule"] as? String == "Nullify")
        #expect(book["uniquenessConstraints"] as? [[String]] == [["isbn"]])
        let bestFriend = try #require(entities.first { $0["name"] as? String == "BestFriend" })
        #expect(bestFriend["parent"] as? String == "Friend")
        // Only declared properties: BestFriend lists 'since', not its inherited 'name'.
        #expect((bestFriend["attributes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["since"])
        let friend = try #require(entities.first { $0["name"] as? String == "Friend" })
        let fetched = try #require((friend["fetchedProperties"] as? [[String: Any]])?.first)
        #expect(fetched["entity"] as? String == "Book")
        let requests = try #require(json["fetchRequests"] as? [[String: Any]])
        #expect(requests.map { $0["name"] as? String } == ["BooksByTitle", "LongBooks"])
        let configurations = try #require(json["configurations"] as? [String: [String]])
        #expect(configurations["People"] == ["Friend", "BestFriend"])
    }

    @Test func jsonIsStable() throws {
        let first = try Docutil.run(["schema", "--format", "json", "Fixtures/Library.xcdatamodeld"])
        let second = try Docutil.run([
            "schema", "--format", "json", "Fixtures/Library.xcdatamodeld/Library.xcdatamodel",
        ])
        #expect(first.status == 0 && first.stdout == second.stdout)
    }

    @Test func xcdatamodelOutputReadsBackToTheSameModel() throws {
        let result = try Docutil.run(["schema", "--format", "xcdatamodel", "Fixtures/Library.xcdatamodeld"])
        #expect(result.status == 0)
        let printed = try ModelLoader.readContents(Data(result.stdout.utf8))
        let original = try ModelLoader.load(from: Fixtures.project("Library.xcdatamodeld")).model
        #expect(printed == original)
    }

    @Test func missingPathExitsWith66() throws {
        let result = try Docutil.run(["schema", "Fixtures/NoSuchModel.xcdatamodeld"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("NoSuchModel.xcdatamodeld"))
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        "truncated.contents", "unknown-attribute-type.contents", "dangling-destination.contents",
        "inheritance-cycle.contents", "not-a-model.contents", "wrong-root.contents", "truncated.mom",
    ])
    func badInputExitsWith65(file: String) throws {
        let result = try Docutil.run(["schema", "Fixtures/Malformed/\(file)"])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("docutil: "))
        #expect(result.stderr.contains(file))
        #expect(result.stdout.isEmpty)
    }

    @Test func unknownFormatIsAUsageError() throws {
        let result = try Docutil.run(["schema", "--format", "yaml", "Fixtures/Library.xcdatamodeld"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("yaml"))
    }

    @Test(.needsRealFixtures)
    func showsTheModelInsideASQLiteStoreWithoutTouchingIt() throws {
        let copy = try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.1.sqlite")
        let directory = copy.deletingLastPathComponent()
        let listing = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let bytes = try Data(contentsOf: copy)
        let result = try Docutil.run(["schema", "--format", "json", copy.path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.count == 16)
        #expect(entities.first { $0["name"] as? String == "OCKCDTask" }?["parent"] as? String == "OCKCDTaskBase")
        #expect(try Data(contentsOf: copy) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == listing)
    }

    @Test(.needsRealFixtures)
    func legacyModelsAreReadAndConvert() throws {
        let directory = try Fixtures.temporaryDirectory().appendingPathComponent("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.real(
                "xcdatamodel-legacy/RestKit__RestKit__Examples__RKTwitterCoreData__Resources__RKTwitterCoreData.xcdatamodel__elements"
            ),
            to: directory.appendingPathComponent("elements"))
        let result = try Docutil.run(["schema", directory.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Xcode 3's 'elements' archive"))
        #expect(result.stdout.contains("entity Tweet"))
        let converted = try Docutil.run(["schema", directory.path, "--format", "xcdatamodel"])
        #expect(converted.stdout.contains("<entity name=\"User\""))
    }

    @Test func versionAndHelp() throws {
        #expect(try Docutil.run(["--version"]).stdout.hasPrefix("0."))
        let help = try Docutil.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("schema"))
    }
}
