import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A model of one entity, `Cell`: a row number `n` and the given attributes.
func cellModel(_ attributes: [(name: String, type: AttributeType)]) throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(
            name: "Cell",
            attributes: [AttributeDescription(name: "n", type: .integer64)]
                + attributes.map { AttributeDescription(name: $0.name, type: $0.type) })
    ])
}

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
        let model = try cellModel(Self.attributes.map { ($0.name, $0.type) })
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

/// A save writes numbers and text straight from an object's slots; every other value is encoded the long way. Both
/// must put in the column exactly what the encoder makes of the value, on insert and on update.
struct ColumnWriteTests {
    /// The values each attribute takes: its type's edges, the null value, and what only one path may hold.
    static let values: [(name: String, type: AttributeType, values: [AttributeValue])] = [
        ("small", .integer16, [.integer16(.min), .integer16(-1), .integer16(0), .integer16(7), .integer16(.max)]),
        ("medium", .integer32, [.integer32(.min), .integer32(0), .integer32(1 << 24 + 1), .integer32(.max)]),
        ("large", .integer64, [.integer64(.min), .integer64(0), .integer64(1 << 53 + 1), .integer64(.max)]),
        ("flag", .boolean, [.boolean(false), .boolean(true)]),
        (
            "real", .double,
            [
                .double(0), .double(-0.0), .double(0.1), .double(1e300), .double(-.infinity), .double(.infinity),
                .double(.leastNonzeroMagnitude), .double(Double(1 << 53 + 1)),
            ]
        ),
        (
            "single", .float,
            [.float(0.1), .float(-0.0), .float(.greatestFiniteMagnitude), .float(.infinity), .float(16_777_217)]
        ),
        (
            "when", .date,
            [
                .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -1e9)),
                .date(Date(timeIntervalSinceReferenceDate: 123_456.789)),
            ]
        ),
        ("text", .string, [.string(""), .string("a"), .string("Ünïcödé ✓"), .string("nul\u{0}inside"), .string("12")]),
        ("amount", .decimal, [.decimal(Decimal(string: "12.34")!), .decimal(0)]),
        ("tag", .uuid, [.uuid(UUID(uuidString: "0F6A2B4C-1D3E-4F50-8A6B-7C8D9E0F1A2B")!)]),
        ("bytes", .binary, [.binary(Data()), .binary(Data([0, 255, 1]))]),
        ("link", .uri, [.uri(URL(string: "https://example.com/a%20b")!)]),
    ]

    /// The longest list of values: rows enough for each attribute to take each of its values (and null).
    static let rows = values.map(\.values.count).max()! + 1

    /// The value of an attribute in row `row` (`shift` rotates them, for the update): null past its list.
    static func value(_ attribute: Int, _ row: Int, shift: Int) -> AttributeValue {
        let list = values[attribute].values
        let i = (row + shift) % (list.count + 1)
        return i < list.count ? list[i] : .null
    }

    @Test func everyValueIsWrittenAsTheEncoderWritesIt() throws {
        SQLiteStore.register()
        let model = try cellModel(Self.values.map { ($0.name, $0.type) })
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("cells.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var cells: [ManagedObject] = []
        for row in 0..<Self.rows {
            let cell = try context.insertNewObject(forEntityName: "Cell")
            try cell.setAttributeValue(.integer64(Int64(row)), forKey: "n")
            for (a, attribute) in Self.values.enumerated() {
                try cell.setAttributeValue(Self.value(a, row, shift: 0), forKey: attribute.name)
            }
            cells.append(cell)
        }
        try context.save()
        try expectColumns(url, shift: 0, "inserted")
        // Every attribute changed: the update writes them all.
        for (row, cell) in cells.enumerated() {
            for (a, attribute) in Self.values.enumerated() {
                try cell.setAttributeValue(Self.value(a, row, shift: 1), forKey: attribute.name)
            }
        }
        try context.save()
        try expectColumns(url, shift: 1, "updated")
        store.close()
    }

    /// Each row's columns are what the encoder makes of the values it was given, as the same columns keep it: the
    /// encoded values are bound into a copy of the table (its column affinities turn a whole REAL into an INTEGER, a
    /// decimal's text into a number) and the two rows compared.
    private func expectColumns(_ url: URL, shift: Int, _ what: String) throws {
        let database = try SQLiteDatabase(path: url.path, readOnly: true)
        defer { database.close() }
        let create = try #require(try database.query("SELECT sql FROM sqlite_master WHERE name = 'ZCELL'").first?.first)
        guard case .text(let createSQL) = create else { throw CocoaError(.fileReadCorruptFile) }
        let copyURL = try Fixtures.temporaryDirectory().appendingPathComponent("expected.sqlite")
        let copy = try SQLiteDatabase(path: copyURL.path, readOnly: false, create: true)
        defer { copy.close() }
        try copy.execute(createSQL)
        let names = Self.values.map { "Z\($0.name.uppercased())" }
        let columns = names.joined(separator: ", ")
        for row in 0..<Self.rows {
            let encoded = Self.values.indices.map { SQLiteValueCoding.encode(Self.value($0, row, shift: shift)) }
            try copy.run(
                "INSERT INTO ZCELL (ZN, \(columns)) VALUES (?\(String(repeating: ", ?", count: names.count)))",
                [.integer(Int64(row))] + encoded)
        }
        let expected = try copy.query("SELECT ZN, \(columns) FROM ZCELL ORDER BY ZN")
        let stored = try database.query("SELECT ZN, \(columns) FROM ZCELL ORDER BY ZN")
        #expect(stored.count == Self.rows)
        for (n, (row, columns)) in zip(stored, expected).enumerated() {
            for (a, attribute) in Self.values.enumerated() {
                #expect(
                    row[a + 1] == columns[a + 1],
                    "\(what) \(attribute.name) = \(Self.value(a, n, shift: shift)) is stored as \(row[a + 1]), not \(columns[a + 1])"
                )
            }
        }
    }
}
