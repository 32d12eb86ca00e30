import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

struct XcodeModelTests {
    static let realModels = Fixtures.realFiles(in: "xcdatamodel", suffix: ".xml")

    @Test(.needsRealFixtures, arguments: realModels)
    func everyRealModelLoadsAndRoundTrips(path: String) throws {
        let loaded = try ModelLoader.load(from: Fixtures.real(path))
        #expect(loaded.format == .contents)
        let written = try XcodeModelWriter.contents(of: loaded.model)
        let reread = try ModelLoader.readContents(Data(written.utf8))
        #expect(reread == loaded.model)
        #expect(structure(of: reread) == structure(of: loaded.model))
        // Writing again gives the same text: the writer is deterministic.
        #expect(try XcodeModelWriter.contents(of: reread) == written)
    }

    @Test func libraryFixtureLoadsWithEveryFeature() throws {
        let loaded = try ModelLoader.load(from: Fixtures.project("Library.xcdatamodeld"))
        #expect(loaded.format == .xcodeBundle)
        #expect(loaded.versionName == "Library")
        let model = loaded.model
        #expect(model.versionIdentifiers == ["1.0"])
        #expect(model.entityNames == ["Author", "BestFriend", "Book", "Friend", "Person", "Shelf"])
        let book = try #require(model.entity(named: "Book"))
        #expect(Set(book.attributes.map(\.type)).count == 13)
        #expect(book.attribute(named: "pages")?.defaultValue == .integer16(100))
        #expect(book.attribute(named: "pages")?.validation.maximumValue == .integer16(20000))
        #expect(book.attribute(named: "isbn")?.validation.maximumLength == 13)
        #expect(book.attribute(named: "isbn")?.validation.regularExpression == "[0-9X]+")
        #expect(book.attribute(named: "price")?.defaultValue == .decimal(Decimal(string: "9.99")!))
        #expect(
            book.attribute(named: "published")?.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 388_411_200))
        )
        #expect(book.attribute(named: "cover")?.allowsExternalBinaryDataStorage == true)
        #expect(book.attribute(named: "isOnLoan")?.isTransient == true)
        #expect(book.attribute(named: "notes")?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(book.uniquenessConstraints == [["isbn"]])
        #expect(book.userInfo == ["note": "a book on the shelves"])
        #expect(model.entity(named: "Person")?.isAbstract == true)
        #expect(model.ancestors(of: "BestFriend") == ["Friend", "Person"])
        let favorites = try #require(model.entity(named: "Friend")?.relationship(named: "favorites"))
        #expect(favorites.isOrdered && favorites.maxCount == 10 && favorites.deleteRule == .noAction)
        #expect(model.entity(named: "Author")?.relationship(named: "books")?.deleteRule == .deny)
        #expect(
            model.entity(named: "Friend")?.fetchedProperties.first?.predicate
                == "borrower == $FETCH_SOURCE AND published > $since")
        #expect(model.fetchRequestTemplate(named: "LongBooks")?.resultType == .dictionary)
        #expect(model.fetchRequestTemplate(named: "BooksByTitle")?.fetchLimit == 50)
        #expect(model.entityNames(inConfiguration: "People") == ["Friend", "BestFriend"])
        #expect(model.entity(named: "Shelf")?.compoundIndexes == [["label"]])
        let reread = try ModelLoader.readContents(Data(XcodeModelWriter.contents(of: model).utf8))
        #expect(reread == model)
    }

    @Test func writesAnXcdatamodelDirectoryThatLoadsBack() throws {
        let model = try ModelLoader.load(from: Fixtures.project("Library.xcdatamodeld")).model
        let directory = try Fixtures.temporaryDirectory().appendingPathComponent("Copy.xcdatamodel")
        try ModelLoader.writeXcodeModel(model, to: directory)
        #expect(try ModelLoader.load(from: directory).model == model)
    }

    @Test func userInfoAndNamesWithSpecialCharactersSurviveWriting() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(
                        name: "body", type: .string, defaultValue: .string("a <b> & \"c\"\nline\ttab"),
                        userInfo: ["key.with dots": "value with \"quotes\" & <angles>"])
                ])
        ])
        let reread = try ModelLoader.readContents(Data(XcodeModelWriter.contents(of: model).utf8))
        #expect(reread == model)
    }
}

struct XcodeBundleTests {
    private func bundle(versions: [String], current: String?) throws -> URL {
        let root = try Fixtures.temporaryDirectory().appendingPathComponent("Model.xcdatamodeld")
        let contents = try Data(contentsOf: Fixtures.project("Library.xcdatamodeld/Library.xcdatamodel/contents"))
        for version in versions {
            let directory = root.appendingPathComponent(version + ".xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try contents.write(to: directory.appendingPathComponent("contents"))
        }
        if let current {
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current)</string></dict></plist>
                """
            try Data(plist.utf8).write(to: root.appendingPathComponent(".xccurrentversion"))
        }
        return root
    }

    @Test func picksTheCurrentVersion() throws {
        let url = try bundle(versions: ["V1", "V2", "V3"], current: "V2.xcdatamodel")
        #expect(try ModelLoader.load(from: url).versionName == "V2")
    }

    @Test func picksTheOnlyVersionWithoutCurrentVersionFile() throws {
        let url = try bundle(versions: ["Only"], current: nil)
        #expect(try ModelLoader.load(from: url).versionName == "Only")
    }

    @Test func namesTheCandidatesWhenNoVersionIsCurrent() throws {
        let url = try bundle(versions: ["V1", "V2"], current: nil)
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.load(from: url) }
        #expect(error.description.contains("V1.xcdatamodel") && error.description.contains("V2.xcdatamodel"))
        #expect(error.path == url.path)
    }

    @Test func rejectsACurrentVersionThatIsMissing() throws {
        let url = try bundle(versions: ["V1"], current: "V9.xcdatamodel")
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.load(from: url) }
        #expect(error.description.contains("V9.xcdatamodel"))
    }

    @Test(.needsRealFixtures)
    func readsRealCurrentVersionFiles() throws {
        for path in Fixtures.realFiles(in: "xccurrentversion") {
            let plist = try PropertyList.read(Data(contentsOf: Fixtures.real(path)))
            let name = try #require(plist["_XCCurrentVersionName"]?.string, "\(path)")
            #expect(name.hasSuffix(".xcdatamodel"))
        }
        // CareKit's bundle: 2.0, 2.1 and 3.0 with .xccurrentversion naming 2.1.
        let root = try Fixtures.temporaryDirectory().appendingPathComponent("CareKitStore.xcdatamodeld")
        for version in ["2.0", "2.1", "3.0"] {
            let directory = root.appendingPathComponent("CareKitStore\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Fixtures.real(
                    "xcdatamodel/carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__CareKitStore\(version).xcdatamodel__contents.xml"
                ),
                to: directory.appendingPathComponent("contents"))
        }
        try FileManager.default.copyItem(
            at: Fixtures.real(
                "xccurrentversion/carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__.xccurrentversion.plist"
            ),
            to: root.appendingPathComponent(".xccurrentversion"))
        let loaded = try ModelLoader.load(from: root)
        #expect(loaded.versionName == "CareKitStore2.1")
        #expect(loaded.model.entity(named: "OCKCDTask")?.parentName == "OCKCDTaskBase")
    }

    @Test(.needsRealFixtures)
    func xcode3ModelsAreReadFromTheirFolderAndTheirFile() throws {
        for path in Fixtures.realFiles(in: "xcdatamodel-legacy", suffix: "__elements") {
            let directory = try Fixtures.temporaryDirectory().appendingPathComponent("Legacy.xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.real(path), to: directory.appendingPathComponent("elements"))
            let fromDirectory = try ModelLoader.load(from: directory)
            let fromFile = try ModelLoader.load(from: directory.appendingPathComponent("elements"))
            #expect(fromDirectory.model.entityVersionHashes == fromFile.model.entityVersionHashes, "\(path)")
            #expect(fromDirectory.warnings.contains { $0.contains("Xcode 3") })
            // Written as a contents file, it reads back the same.
            let converted = try Fixtures.temporaryDirectory().appendingPathComponent("Converted.xcdatamodel")
            try ModelLoader.writeXcodeModel(fromDirectory.model, to: converted)
            #expect(
                try ModelLoader.load(from: converted).model.entityVersionHashes
                    == fromDirectory.model.entityVersionHashes)
        }
    }

    @Test func missingPathIsNotFound() throws {
        let error = try #require(throws: ModelFileError.self) {
            try ModelLoader.load(from: URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld"))
        }
        #expect(error.code == .notFound)
    }
}
