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

    @Test func historyOfAStoreWithoutItIsAnError() throws {
        let result = try Docutil.run(["dump", Fixtures.project("Library.xml").path, "--history"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("does not track persistent history"))
    }
}
