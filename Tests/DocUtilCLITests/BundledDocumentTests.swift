import Foundation
import TestSupport
import Testing

/// `Fixtures/Library.xml`, the document the README's first command opens, written by our XML store.
struct BundledDocumentTests {
    static let document = Fixtures.project("Library.xml")

    @Test func theBundledDocumentIsCurrent() throws {
        let directory = try Fixtures.temporaryDirectory()
        let fresh = directory.appendingPathComponent("Library.xml")
        try LibraryDocument.write(
            to: fresh, modelPath: Fixtures.project("Library.xcdatamodeld").path,
            storeIdentifier: "6B1F3C2E-6F0B-4D4A-9C5E-2A1D7E8F9A01")
        if ProcessInfo.processInfo.environment["DOCUTIL_RECORD_GOLDEN"] == "1" {
            try FileManager.default.removeItem(at: Self.document)
            try FileManager.default.copyItem(at: fresh, to: Self.document)
        }
        #expect(try Data(contentsOf: fresh) == Data(contentsOf: Self.document))
    }

    @Test func theReadmeCommandWorks() throws {
        let info = try Docutil.run(["info", "Fixtures/Library.xml"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("storeType: XML"))
        #expect(info.stdout.contains("objects: 4"))
        #expect(info.stderr.isEmpty)
    }
}
