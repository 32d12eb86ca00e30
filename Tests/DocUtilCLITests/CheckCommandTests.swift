import Foundation
import TestSupport
import Testing

/// `docutil check` on clean and damaged documents, through real processes.
struct CheckCommandTests {
    static let sampleStore =
        "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite"
    static let booksStore = "sqlite/bignerdranch__CoreDataStack__Sample_Model__Deprecated__TestModel.sqlite"

    /// The problems of a JSON report, as (object, kind, key) with the detail.
    static func problems(_ output: String) throws -> [[String: Any]] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(root["formatVersion"] as? Int == 1)
        return try #require(root["problems"] as? [[String: Any]])
    }

    static func has(_ problems: [[String: Any]], _ objectSuffix: String, _ kind: String) -> Bool {
        problems.contains {
            ($0["object"] as? String)?.hasSuffix(objectSuffix) == true && $0["kind"] as? String == kind
        }
    }

    @Test(.needsRealFixtures) func problemsPlantedInACopyOfARealSQLiteStoreAreEachNamedWithTheirObject() throws {
        let store = try Fixtures.copySQLiteStore(Self.sampleStore)
        let clean = try Docutil.run(["check", store.path])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(clean.stdout.isEmpty)
        try SQLiteScript.execute(
            store,
            """
            UPDATE ZCAR SET ZOWNER = 999 WHERE Z_PK = 1;
            UPDATE ZCAR SET Z_ENT = 42 WHERE Z_PK = 2;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 19 WHERE Z_NAME = 'Person';
            UPDATE ZPERSON SET ZUPDATEDAT = NULL WHERE Z_PK = 3;
            DROP INDEX Z_Car_UNIQUE_numberPlate;
            UPDATE ZCAR SET ZNUMBERPLATE = (SELECT ZNUMBERPLATE FROM ZCAR WHERE Z_PK = 3) WHERE Z_PK = 4;
            """)
        let result = try Docutil.run(["check", store.path, "--format", "json"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("5 problems found"))
        let problems = try Self.problems(result.stdout)
        #expect(problems.count == 5, "\(problems)")
        #expect(Self.has(problems, "/Car/p1", "dangling-reference"))
        #expect(Self.has(problems, "/Car/p2", "unknown-entity"))
        #expect(Self.has(problems, "/Person/p20", "primary-key"))
        #expect(Self.has(problems, "/Person/p3", "validation"))
        #expect(Self.has(problems, "/Car/p4", "uniqueness"))
        let required = try #require(problems.first { $0["kind"] as? String == "validation" })
        #expect(required["key"] as? String == "updatedAt")
        // The text form: one line per problem, the object's URI first.
        let text = try Docutil.run(["check", store.path])
        #expect(text.status == 1)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { $0.hasPrefix("x-coredata://") })
        #expect(text.stdout.contains("/Car/p1 dangling-reference: owner names x-coredata://"))
    }

    @Test(.needsRealFixtures) func aJoinTableRowNamingAMissingObjectIsDangling() throws {
        let store = try Fixtures.copySQLiteStore(Self.booksStore)
        try SQLiteScript.execute(
            store,
            """
            INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME) VALUES (1, 1, 1, 'Ann', 'Lee');
            INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT) VALUES (1, 2, 1);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1;
            INSERT INTO Z_1BOOKS VALUES (1, 1);
            """)
        #expect(try Docutil.run(["check", store.path]).status == 0)
        try SQLiteScript.execute(store, "INSERT INTO Z_1BOOKS VALUES (1, 7);")
        let result = try Docutil.run(["check", store.path, "--format", "json"])
        #expect(result.status == 1)
        let problems = try Self.problems(result.stdout)
        #expect(problems.count == 1)
        #expect(Self.has(problems, "/Author/p1", "dangling-reference"))
        #expect((problems.first?["detail"] as? String)?.contains("/Book/p7") == true)
    }

    @Test(.needsRealFixtures) func anInverseThatDoesNotPointBackInAnXMLStoreIsAMismatch() throws {
        let folder = try Fixtures.temporaryDirectory()
        let xml = folder.appendingPathComponent("sample.xml")
        let store = try Fixtures.copySQLiteStore(Self.sampleStore)
        #expect(try Docutil.run(["convert", store.path, xml.path]).status == 0)
        #expect(try Docutil.run(["check", xml.path]).status == 0)
        // One person no longer lists the car whose owner it is.
        var text = try String(contentsOf: xml, encoding: .utf8)
        let pattern = try #require(text.range(of: #"<relationship name="cars" type="0/0" destination="CAR" idrefs="z"#))
        let end = try #require(text[pattern.upperBound...].firstIndex(of: "\""))
        let car = "z" + text[pattern.upperBound..<end]
        #expect(!car.contains(" "), "a person with one car")
        text.replaceSubrange(
            pattern.lowerBound...end, with: #"<relationship name="cars" type="0/0" destination="CAR" idrefs="""#)
        try Data(text.utf8).write(to: xml)
        let result = try Docutil.run(["check", xml.path, "--format", "json"])
        #expect(result.status == 1, "\(result.stderr)")
        let problems = try Self.problems(result.stdout)
        #expect(problems.count == 1, "\(problems)")
        #expect(Self.has(problems, "/Car/p\(car.dropFirst())", "inverse-mismatch"))
    }

    /// Any positive `--limit` is a number of problems: past 32 bits SQLite would read `PRAGMA integrity_check`'s
    /// argument as a table name (the check failed with "no such table").
    @Test func aLimitPast32BitsChecksTheWholeFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        let document = directory.appendingPathComponent("library.sqlite")
        let convert = try Docutil.run(["convert", Fixtures.project("Library.xml").path, document.path])
        #expect(convert.status == 0, "\(convert.stderr)")
        for limit in ["2147483648", "\(Int.max)"] {
            let result = try Docutil.run(["check", document.path, "--limit", limit])
            #expect(result.status == 0, "\(limit): \(result.stderr)")
        }
    }

    @Test func anXMLStoreReferenceToAMissingObjectAndAnUnknownElementTypeAreReportedNotRefused() throws {
        let folder = try Fixtures.temporaryDirectory()
        let xml = folder.appendingPathComponent("library.xml")
        var text = try String(contentsOf: Fixtures.project("Library.xml"), encoding: .utf8)
        let idrefs = try #require(text.range(of: #"idrefs=""#))
        text.insert(contentsOf: "z9999 ", at: idrefs.upperBound)
        let object = try #require(text.range(of: #"<object type=""#))
        text.insert(contentsOf: "NOSUCHENTITY\" id=\"z9998\"></object>\n    <object type=\"", at: object.upperBound)
        try Data(text.utf8).write(to: xml)
        let result = try Docutil.run(["check", xml.path, "--format", "json"])
        #expect(result.status == 1, "\(result.stderr)")
        let problems = try Self.problems(result.stdout)
        #expect(problems.contains { $0["kind"] as? String == "dangling-reference" })
        #expect(Self.has(problems, "/NOSUCHENTITY/p9998", "unknown-entity"))
        // The same file is refused by a normal read: check is the way to see what is wrong with it.
        #expect(try Docutil.run(["dump", xml.path]).status == 65)
    }

    @Test func aMissingExternalDataFileIsNamedWithItsObject() throws {
        let folder = try Fixtures.temporaryDirectory()
        let store = folder.appendingPathComponent("library.sqlite")
        #expect(try Docutil.run(["convert", Fixtures.project("Library.xml").path, store.path]).status == 0)
        #expect(try Docutil.run(["check", store.path]).status == 0)
        try SQLiteScript.execute(
            store,
            "UPDATE ZBOOK SET ZCOVER = CAST(x'02' || '0A1B2C3D-0000-4000-8000-000000000001' AS BLOB) WHERE Z_PK = (SELECT MIN(Z_PK) FROM ZBOOK);"
        )
        let result = try Docutil.run(["check", store.path, "--format", "json"])
        #expect(result.status == 1, "\(result.stderr)")
        let problems = try Self.problems(result.stdout)
        #expect(problems.count == 1, "\(problems)")
        let problem = try #require(problems.first)
        #expect(problem["kind"] as? String == "external-data")
        #expect(problem["key"] as? String == "cover")
        #expect((problem["object"] as? String)?.contains("/Book/p") == true)
        #expect((problem["detail"] as? String)?.contains("0A1B2C3D-0000-4000-8000-000000000001") == true)
    }

    @Test(.needsRealFixtures) func everyRealStoreThatCarriesItsModelChecksClean() throws {
        // Stores written before iOS 5 carry no model (69 without --model); SampleModel_V2 lacks a Z_PRIMARYKEY row
        // Core Data adds on first use, which docutil does not read yet (the newer-features issue).
        let skipped = ["CoreDataBooks", "RKSeedDatabase", "Recipes.sqlite", "SampleModel_V2.sqlite"]
        var checked = 0
        for path in Fixtures.realFiles(in: "sqlite", suffix: ".sqlite")
        where !skipped.contains(where: { path.contains($0) }) {
            let store = try Fixtures.copySQLiteStore(path)
            let result = try Docutil.run(["check", store.path])
            #expect(result.status == 0, "\(path): \(result.stdout)\(result.stderr)")
            checked += 1
        }
        #expect(checked >= 10)
        for path in Fixtures.realFiles(in: "xmlstore") + Fixtures.realFiles(in: "xcdatamodel") {
            let copy = try Fixtures.temporaryDirectory().appendingPathComponent("copy")
            try FileManager.default.copyItem(at: Fixtures.real(path), to: copy)
            let result = try Docutil.run(["check", copy.path])
            #expect(result.status == 0, "\(path): \(result.stdout)\(result.stderr)")
        }
    }

    @Test func theBundledDocumentAndModelCheckCleanAndUnreadableInputsHaveTheirStatus() throws {
        #expect(try Docutil.run(["check", Fixtures.project("Library.xml").path]).status == 0)
        #expect(try Docutil.run(["check", Fixtures.project("Library.xcdatamodeld").path]).status == 0)
        let folder = try Fixtures.temporaryDirectory()
        let garbage = folder.appendingPathComponent("garbage.sqlite")
        try Data("SQLite format 3\0 and then nothing sensible".utf8).write(to: garbage)
        let bad = try Docutil.run(["check", garbage.path])
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("docutil: "))
        #expect(try Docutil.run(["check", folder.appendingPathComponent("missing.xml").path]).status == 66)
    }

    @Test func aDocumentOnStandardInputIsChecked() throws {
        let data = try Data(contentsOf: Fixtures.project("Library.xml"))
        let result = try Docutil.run(["check", "-"], input: data)
        #expect(result.status == 0, "\(result.stderr)")
        let dump = try Docutil.run(["dump", "-", "--format", "csv"], input: data)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.hasPrefix("entity,uri,"))
    }
}
