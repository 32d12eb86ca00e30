import Foundation
import TestSupport
import Testing

/// `docutil migrate` as a user runs it, on a copy of the bundled Library document.
@Suite struct MigrateCommandTests {
    /// A folder with a copy of the Library document and two versions of a newer model: one lightweight migration
    /// can reach (a new optional attribute, a new attribute with a default) and one it can't (a new required one).
    static func setUp() throws -> (folder: URL, document: URL, good: URL, bad: URL) {
        let folder = try Fixtures.temporaryDirectory()
        let document = folder.appendingPathComponent("Library.xml")
        try FileManager.default.copyItem(at: Fixtures.project("Library.xml"), to: document)
        let schema = try Docutil.run(["schema", document.path, "--format", "xcdatamodel"])
        #expect(schema.status == 0, "\(schema.stderr)")
        func version(_ name: String, _ attributes: String) throws -> URL {
            let url = folder.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let contents = schema.stdout.replacingOccurrences(
                of: #"<entity name="Book" representedClassName="Book">"#,
                with: #"<entity name="Book" representedClassName="Book">"# + attributes)
            try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
            return url
        }
        let good = try version(
            "Good",
            #"<attribute name="subtitle" optional="YES" attributeType="String"/><attribute name="edition" attributeType="Integer 16" defaultValueString="1" usesScalarValueType="YES"/>"#
        )
        let bad = try version("Bad", #"<attribute name="barcode" attributeType="String"/>"#)
        return (folder, document, good, bad)
    }

    @Test func dryRunPrintsThePlanAndChangesNothing() throws {
        let (_, document, good, _) = try Self.setUp()
        let before = try Data(contentsOf: document)
        let result = try Docutil.run(["migrate", document.path, "--model", good.path, "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Book → Book (transform, mapping BookToBook)"))
        #expect(result.stdout.contains("  subtitle ← nil (new)"))
        #expect(result.stdout.contains("  edition ← default 1 (new)"))
        #expect(result.stdout.contains("  title ← kept"))
        #expect(result.stdout.contains("dry run: nothing was written"))
        #expect(try Data(contentsOf: document) == before)
    }

    @Test func migratesInPlaceAndThenTheDocumentIsCurrent() throws {
        let (folder, document, good, _) = try Self.setUp()
        let result = try Docutil.run(["migrate", document.path, "--model", good.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("migrated: "))
        let dump = try Docutil.run(["dump", document.path, "--entity", "Book"])
        #expect(dump.status == 0)
        #expect(dump.stdout.contains(#""edition": 1"#))
        #expect(dump.stdout.contains(#""subtitle": null"#))
        let again = try Docutil.run(["migrate", document.path, "--model", good.path])
        #expect(again.stdout.contains("already uses this model"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "Bad.xcdatamodel", "Good.xcdatamodel", "Library.xml",
            ])
    }

    @Test func aChangeInferenceCantMakeExits65WithTheReasonAndNothingChanges() throws {
        let (_, document, _, bad) = try Self.setUp()
        let before = try Data(contentsOf: document)
        let result = try Docutil.run([
            "migrate", document.path, "--model", bad.path, "--out", document.path + ".new.xml",
        ])
        #expect(result.status == 65)
        #expect(result.stderr.contains("Book.barcode: is new, required and has no default value"))
        #expect(try Data(contentsOf: document) == before)
        #expect(!FileManager.default.fileExists(atPath: document.path + ".new.xml"))
        // A compiled mapping model is refused as such (69), not misread as a broken XML file.
        let compiled = document.deletingLastPathComponent().appendingPathComponent("Map.cdm")
        try Data("bplist00\u{D1}".utf8).write(to: compiled)
        let cdm = try Docutil.run(["migrate", document.path, "--model", bad.path, "--mapping", compiled.path])
        #expect(cdm.status == 69)
        #expect(cdm.stderr.contains("a compiled mapping model (.cdm) is not read yet"))
        #expect(try Data(contentsOf: document) == before)
        let diff = try Docutil.run(["diff", document.path, bad.path])
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("lightweight migration from A to B: not possible"))
    }

    /// `docutil open --model` migrates a document written with another model in place before the first command;
    /// `--no-migrate`, `--read-only` and the inspecting commands read it with the model it was written with.
    @Test func openMigratesAndInspectionReadsWithTheModelTheDocumentWasWrittenWith() throws {
        let (_, document, good, bad) = try Self.setUp()
        let before = try Data(contentsOf: document)
        let dump = try Docutil.run(["dump", document.path, "--model", good.path, "--entity", "Book"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(!dump.stdout.contains("edition"))
        #expect(dump.stderr.contains("not with the model given: read with the model it was written with"))
        let readOnly = try Docutil.run(["open", document.path, "--model", good.path, "--read-only", "-c", "status"])
        #expect(readOnly.status == 0, "\(readOnly.stderr)")
        #expect(readOnly.stderr.contains("a document opened read-only is not migrated"))
        let notMigrating = try Docutil.run([
            "open", document.path, "--model", good.path, "--no-migrate", "-c", "status",
        ])
        #expect(notMigrating.status == 0, "\(notMigrating.stderr)")
        #expect(notMigrating.stderr.contains("migration is off"))
        let refused = try Docutil.run(["open", document.path, "--model", bad.path, "-c", "status"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("Book.barcode: is new, required and has no default value"))
        #expect(try Data(contentsOf: document) == before)

        let migrated = try Docutil.run([
            "open", document.path, "--model", good.path, "-c", "list Book", "--format", "json",
        ])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(
            migrated.stderr.contains("migrated in place from the document's own model (embedded) to the model given"))
        #expect(migrated.stdout.contains(#""edition":1"#) || migrated.stdout.contains(#""edition": 1"#))
        let after = try Docutil.run(["migrate", document.path, "--model", good.path, "--dry-run"])
        #expect(after.stdout.contains("already uses this model"))
    }
}
