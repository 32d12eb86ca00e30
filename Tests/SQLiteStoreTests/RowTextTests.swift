import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// An inserted row's texts are bound where SQLite reads them in place (the connection's row space) until the row is
/// written: every text comes back whole whatever its size or the sizes beside it, and a row refused part way leaves
/// nothing bound behind it.
struct RowTextTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(name: "n", type: .integer64),
                    AttributeDescription(name: "aText", type: .string),
                    AttributeDescription(name: "bText", type: .string),
                    AttributeDescription(name: "cText", type: .string),
                    AttributeDescription(name: "zAny", type: .undefined),
                ])
        ])
    }

    static func open(_ url: URL) throws -> ManagedObjectContext {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        return ManagedObjectContext(coordinator: coordinator)
    }

    static func texts(_ url: URL) throws -> [[String?]] {
        var request = FetchRequest(entityName: "Note")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "n")]
        let context = try open(url)
        return try context.fetch(request).map { note in
            try ["aText", "bText", "cText"].map { key in
                guard case .string(let text) = try note.attributeValue(forKey: key) else { return nil }
                return text
            }
        }
    }

    @Test func textsOfEverySizeComeBackWhole() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("texts.sqlite")
        let context = try Self.open(url)
        let big = String(repeating: "é", count: 5_000)  // 10,000 bytes: more than the row space holds
        let huge = String(repeating: "q", count: 100_000)
        let rows: [[String?]] = [
            ["", "x", "\u{0}z"], [big, String(repeating: "w", count: 3_000), "small"], [huge, huge + "!", "日本語"],
            ["after", nil, "the large ones"], [nil, nil, nil], ["a\u{0}b", big, "c"],
        ]
        for (n, texts) in rows.enumerated() {
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setAttributeValue(.integer64(Int64(n)), forKey: "n")
            for (key, text) in zip(["aText", "bText", "cText"], texts) {
                try note.setAttributeValue(text.map { .string($0) } ?? .null, forKey: key)
            }
        }
        try context.save()
        #expect(try Self.texts(url) == rows)
    }

    @Test func aRowRefusedPartWayLeavesNothingBound() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("refused.sqlite")
        let context = try Self.open(url)
        // Its texts are bound (one outgrowing the row space) before the Undefined value is refused.
        let refused = try context.insertNewObject(forEntityName: "Note")
        try refused.setAttributeValue(.string(String(repeating: "r", count: 9_000)), forKey: "aText")
        try refused.setAttributeValue(.string("refused"), forKey: "bText")
        try refused.setAttributeValue(.integer16(7), forKey: "zAny")
        #expect(throws: (any Error).self) { try context.save() }
        context.rollback()
        let kept = try context.insertNewObject(forEntityName: "Note")
        try kept.setAttributeValue(.string("kept"), forKey: "cText")
        try context.save()
        #expect(try Self.texts(url) == [[nil, nil, "kept"]])
    }
}
