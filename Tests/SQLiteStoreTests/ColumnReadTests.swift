import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A fetch puts the usual columns (integers, reals, text) straight into an object's slots; every other value is
/// decoded the long way. Both must give what the decoder gives: the same value, or an error for a value that does
/// not fit its attribute's type — never a value rounded, truncated or wrapped.
struct ColumnReadTests {
    /// One attribute of each type a fetch may read straight into its slot, and of two it never does.
    static let attributes: [(name: String, type: AttributeType)] = [
        ("small", .integer16), ("medium", .integer32), ("large", .integer64), ("flag", .boolean),
        ("real", .double), ("single", .float), ("when", .date), ("text", .string), ("amount", .decimal),
        ("tag", .uuid),
    ]

    /// What a row may hold, as SQL: every storage class, the edges of each integer type, reals a Float holds exactly
    /// and not, whole numbers a Double does not hold exactly, text of every kind (empty, digits, not UTF-8) and a blob.
    static let stored = [
        "NULL", "0", "1", "2", "-1", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648", "-2147483649",
        "16777217", "9007199254740993", "9223372036854775807", "-9223372036854775808", "0.5", "1.0", "-0.0", "0.1",
        "3.4028234663852886e38", "1e300", "-1e-300", "'text'", "''", "'12'", "'1.5'", "'Ünïcödé ✓'",
        "CAST(x'426fff62' AS TEXT)", "x'00ff'", "x'000102030405060708090a0b0c0d0e0f'",
    ]

    @Test func everyStoredValueReadsAsTheDecoderReadsIt() throws {
        SQLiteStore.register()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Cell",
                attributes: [AttributeDescription(name: "n", type: .integer64)]
                    + Self.attributes.map { AttributeDescription(name: $0.name, type: $0.type) })
        ])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("cells.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            let store = try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for n in 0..<(Self.attributes.count * Self.stored.count) {
                let cell = try context.insertNewObject(forEntityName: "Cell")
                try cell.setAttributeValue(.integer64(Int64(n)), forKey: "n")
            }
            try context.save()
            store.close()
        }
        // Row n holds stored value n % count in attribute n / count, every other attribute null.
        var script = ""
        for (a, attribute) in Self.attributes.enumerated() {
            for (v, value) in Self.stored.enumerated() {
                script +=
                    "UPDATE ZCELL SET Z\(attribute.name.uppercased()) = \(value) WHERE ZN = \(a * Self.stored.count + v);\n"
            }
        }
        try SQLiteScript.execute(url, script)

        // What the decoder makes of each stored value, read from the file with the store's own column reader.
        let database = try SQLiteDatabase(path: url.path, readOnly: true)
        var raw: [Int64: SQLiteValue] = [:]
        try database.query(
            "SELECT ZN, \(Self.attributes.map { "Z\($0.name.uppercased())" }.joined(separator: ", ")) FROM ZCELL"
        ) {
            statement in
            let n = SQLiteDatabase.column(statement, 0)
            guard case .integer(let row) = n else { return }
            let a = Int(row) / Self.stored.count
            raw[row] = SQLiteDatabase.column(statement, Int32(a + 1))
        }
        database.close()
        #expect(raw.count == Self.attributes.count * Self.stored.count)

        var direct = 0
        for (a, attribute) in Self.attributes.enumerated() {
            for (v, value) in Self.stored.enumerated() {
                let n = Int64(a * Self.stored.count + v)
                let expected: AttributeValue?
                do {
                    expected = try SQLiteValueCoding.decode(
                        try #require(raw[n]), as: attribute.type, external: false, externalDirectory: nil)
                } catch {
                    expected = nil
                }
                // A fresh coordinator each time: a row that does not fit fails its own fetch only.
                let coordinator = PersistentStoreCoordinator(model: model)
                try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
                let context = ManagedObjectContext(coordinator: coordinator)
                let request = FetchRequest(entityName: "Cell", predicate: try ObjectPredicate(format: "n == \(n)"))
                let place = "\(attribute.name) (\(attribute.type.xcodeName)) holding \(value)"
                do {
                    let objects = try context.fetch(request)
                    let read = try #require(objects.first).primitiveValue(forKey: attribute.name)
                    #expect(expected != nil, "\(place) read as \(read), but the decoder refuses it")
                    if let expected {
                        #expect(read == expected, "\(place) read as \(read), the decoder gives \(expected)")
                        if case .integer = raw[n], [.integer16, .integer32, .integer64].contains(attribute.type) {
                            direct += 1
                        }
                    }
                } catch {
                    #expect(
                        expected == nil, "\(place) failed (\(error)), the decoder gives \(String(describing: expected))"
                    )
                }
            }
        }
        // The integers that fit went the direct way at least (the test does not read nothing).
        #expect(direct >= 20)
    }
}
