import Foundation
import TestSupport
import Testing

/// Stores with Apple's newer features, through the command line: an edit through `docutil open` on a store with
/// derived-attribute triggers and persistent history, then `info` and `dump --history`.
@Suite(.needsRealFixtures) struct AppleFeaturesCommandTests {
    @Test func anEditThroughOpenRunsTheTriggersAndAppendsHistory() throws {
        let url = try Fixtures.copySQLiteStore(
            "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite")
        let edit = try Docutil.run([
            "open", url.path, "-c", "show Book/p1", "-c", "delete Page/p7", "-c", "save", "-c", "show Book/p1",
        ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let counts = edit.stdout.components(separatedBy: "\n").filter { $0.contains("pagesCount") }
        #expect(counts == ["  pagesCount = 99", "  pagesCount = 98"])

        let info = try Docutil.run(["info", url.path, "--format", "json"])
        #expect(info.status == 0, "\(info.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let history = try #require(object["persistentHistory"] as? [String: Any])
        #expect(history["transactions"] as? Int == 2)
        #expect(history["changes"] as? Int == 5470)

        let dump = try Docutil.run(["dump", url.path, "--history", "--format", "text"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("transaction 1 at 2024-"))
        #expect(dump.stdout.contains("bundle com.apple.dt.xctest.tool process xctest: 5468 change(s)"))
        #expect(dump.stdout.contains("  delete x-coredata://"))
        #expect(dump.stdout.hasSuffix("2 transaction(s)\n"))
        let json = try Docutil.run(["dump", url.path, "--history", "--format", "json"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let transactions = try #require(parsed["transactions"] as? [[String: Any]])
        let changes = try #require(transactions.last?["changes"] as? [[String: Any]])
        #expect(Set(changes.compactMap { $0["type"] as? String }) == ["update", "delete"])
    }

    /// History text from the file (a process name with a terminal escape) is shown escaped; a timestamp far out of
    /// the calendar's range is shown as such, not as an invented date.
    @Test func historyTextFromTheFileIsShownEscaped() throws {
        let url = try Fixtures.copySQLiteStore(
            "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite")
        try SQLiteScript.execute(url, "UPDATE ATRANSACTIONSTRING SET ZNAME = 'x' || char(27) || '[2Jy' WHERE Z_PK = 2")
        try SQLiteScript.execute(url, "UPDATE ATRANSACTION SET ZTIMESTAMP = 1e300 WHERE Z_PK = 1")
        let dump = try Docutil.run(["dump", url.path, "--history", "--format", "text"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("process x\\u{1b}[2Jy"), "\(dump.stdout.prefix(300))")
        #expect(!dump.stdout.unicodeScalars.contains { $0.value == 27 })
        let first = try #require(dump.stdout.split(separator: "\n").first)
        #expect(!first.contains("5828963"), "\(first)")
        #expect(first.contains("transaction 1 at @"), "\(first)")
    }

    @Test func historyOfAStoreWithoutItIsAnError() throws {
        let result = try Docutil.run(["dump", Fixtures.project("Library.xml").path, "--history"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("does not track persistent history"))
    }
}

/// Transformable values through Core Data's secure unarchiver: `dump` shows them decoded beside their bytes, and a
/// dump still imports losslessly.
@Suite(.needsRealFixtures) struct TransformedValueCommandTests {
    @Test func dumpShowsArchivedValuesDecodedAndImportsBackByteForByte() throws {
        let store = try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.0.sqlite")
        let folder = store.deletingLastPathComponent()
        let text = try Docutil.run(["dump", store.path, "--entity", "OCKCDContact", "--format", "text"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains(#"  phoneNumbersDictionary = {"_$!<Work>!$_":"(324) 555-7415"} (<291 bytes>)"#))
        let dump = try Docutil.run(["dump", store.path])
        #expect(dump.status == 0, "\(dump.stderr)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let objects = try #require(parsed["objects"] as? [[String: Any]])
        let contact = try #require(objects.first { ($0["uri"] as? String)?.hasSuffix("/OCKCDContact/p1") == true })
        let transformed = try #require(contact["transformed"] as? [String: Any])
        #expect(transformed["phoneNumbersDictionary"] as? [String: String] == ["_$!<Work>!$_": "(324) 555-7415"])
        let values = try #require(contact["values"] as? [String: Any])
        #expect((values["phoneNumbersDictionary"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 291)

        // The dump (with its transformed members) imports into a new document with the same bytes.
        let json = folder.appendingPathComponent("dump.json")
        try Data(dump.stdout.utf8).write(to: json)
        let schema = try Docutil.run(["schema", store.path, "--format", "xcdatamodel"])
        let model = folder.appendingPathComponent("CareKit.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(schema.stdout.utf8).write(to: model.appendingPathComponent("contents"))
        let copy = folder.appendingPathComponent("copy.sqlite")
        let imported = try Docutil.run(["import", json.path, copy.path, "--model", model.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let again = try Docutil.run(["dump", copy.path, "--entity", "OCKCDContact", "--format", "text"])
        #expect(again.stdout.contains(#"  phoneNumbersDictionary = {"_$!<Work>!$_":"(324) 555-7415"} (<291 bytes>)"#))
    }
}
