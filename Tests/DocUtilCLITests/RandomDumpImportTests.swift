import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// `dump`'s JSON comes back losslessly (README): random values of every attribute type, taken from the whole range of
/// each (any bit pattern of a number, dates to the last bit, text from across Unicode with line breaks and tabs, bytes,
/// UUIDs, URIs), dumped by the real `docutil`, imported into each store type and read back by the library equal to
/// the values saved, bit for bit.
struct RandomDumpImportTests {
    static let attributes: [(name: String, type: AttributeType)] = [
        ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("dbl", .double), ("flt", .float),
        ("flag", .boolean), ("when", .date), ("text", .string), ("amount", .decimal), ("uuid", .uuid),
        ("link", .uri), ("blob", .binary),
    ]

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Thing",
                attributes: [AttributeDescription(name: "id", type: .integer64)]
                    + attributes.map { AttributeDescription(name: $0.name, type: $0.type) })
        ])
    }

    /// Characters from across Unicode that every store file holds (XML 1.0 has no form for other C0 controls, nor for
    /// U+FFFE and U+FFFF): line breaks and tabs, quotes and markup, combining marks, a byte order mark, separators,
    /// private use, and characters beyond the Basic Multilingual Plane.
    static let pieces = [
        "a", "Z", "0", " ", "\t", "\n", "\r", "\r\n", "\"", "'", "\\", "<", ">", "&", ";", "]]>", "é", "e\u{301}", "ß",
        "\u{85}", "\u{A0}", "\u{200B}", "\u{2028}", "\u{FEFF}", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "日", "😀", "👩‍👩‍👧",
        "\u{10FFFF}", "%", "/", ",", "{", "}", "@", "$", "x-coredata://",
    ]

    /// URIs of many schemes and shapes (an object URI among them: an attribute may hold one).
    static let uris = [
        "https://example.com/a%20b?q=1&r=%E2%9C%93#frag", "x-coredata://7A0E5C3B-1111-4D1E-9A2B-3C4D5E6F7A8B/Thing/p3",
        "mailto:someone@example.com", "urn:isbn:0451450523", "file:///tmp/some%20file.txt", "http://[::1]:8080/",
        "data:,hello%2C%20world", "relative/path?x=1", "ftp://user:pass@host:21/dir/", "about:blank",
    ]

    /// A random value of `type` from its whole range, nil one time in six.
    static func value(_ type: AttributeType, _ random: inout RandomGraph.Generator) -> AttributeValue {
        if Int.random(in: 0..<6, using: &random) == 0 { return .null }
        func finite() -> Double {
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                return [0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude].randomElement(
                    using: &random)!
            case 1: return Double(Int.random(in: -1_000...1_000, using: &random)) / 8
            default:
                // Any bit pattern that is a number (NaN left out: SQLite stores it as NULL, and refuses it).
                while true {
                    let d = Double(bitPattern: random.next())
                    if !d.isNaN { return d }
                }
            }
        }
        switch type {
        case .integer16: return .integer16(Int16(truncatingIfNeeded: random.next()))
        case .integer32: return .integer32(Int32(truncatingIfNeeded: random.next()))
        case .integer64:
            return .integer64([.min, .max, 0, -1, Int64(bitPattern: random.next())].randomElement(using: &random)!)
        case .double: return .double(finite())
        case .float:
            while true {
                let f = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
                if !f.isNaN { return .float(f) }
            }
        case .boolean: return .boolean(Bool.random(using: &random))
        case .date:
            // Seconds since 2001 within ±3,000 years, with any fraction a Double has there.
            let seconds =
                Bool.random(using: &random)
                ? Double.random(in: -9.5e10...9.5e10, using: &random)
                : Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &random))
                    + Double(Int.random(in: 0..<1_000_000, using: &random)) / 1_000_000
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .string:
            let count = Int.random(in: 0...12, using: &random)
            return .string((0..<count).map { _ in pieces.randomElement(using: &random)! }.joined())
        case .decimal:
            // Up to 15 significant digits (what every store keeps, SQLite as a 64-bit float) at any scale.
            let digits = Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &random)
            let scale = Int.random(in: -20...20, using: &random)
            return .decimal(
                Decimal(sign: digits < 0 ? .minus : .plus, exponent: scale, significand: Decimal(digits.magnitude)))
        case .uuid:
            let (a, b) = (random.next(), random.next())
            return .uuid(withUnsafeBytes(of: (a, b)) { UUID(uuid: $0.load(as: uuid_t.self)) })
        case .uri: return .uri(URL(string: uris.randomElement(using: &random)!)!)
        case .binary:
            return .binary(
                Data(
                    (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            )
        default: return .null
        }
    }

    /// Whether two values are the same, numbers and dates bit for bit; a negative zero is not a zero unless it went
    /// through a SQLite store (which keeps -0.0 as 0.0, equal to it: README).
    static func same(_ a: AttributeValue, _ b: AttributeValue, throughSQLite: Bool) -> Bool {
        func same(_ x: Double, _ y: Double) -> Bool {
            x.bitPattern == y.bitPattern || (throughSQLite && x == 0 && y == 0)
        }
        switch (a, b) {
        case (.double(let x), .double(let y)): return same(x, y)
        case (.float(let x), .float(let y)): return same(Double(x), Double(y))
        case (.date(let x), .date(let y)):
            return same(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        default: return a == b
        }
    }

    /// Each thing's values by its id.
    static func values(_ context: ManagedObjectContext) throws -> [Int64: [String: AttributeValue]] {
        var result: [Int64: [String: AttributeValue]] = [:]
        for thing in try context.fetch(FetchRequest(entityName: "Thing")) {
            guard case .integer64(let id) = try thing.attributeValue(forKey: "id") else { continue }
            var values: [String: AttributeValue] = [:]
            for (name, _) in attributes { values[name] = try thing.attributeValue(forKey: name) }
            result[id] = values
        }
        return result
    }

    @Test(arguments: [("binary", DocumentType.binary), ("sqlite", DocumentType.sqlite)])
    func randomValuesComeBackBitForBitThroughDumpAndImport(source: String, type: DocumentType) throws {
        let model = try Self.model()
        for seed in UInt64(1)...3 {
            var random = RandomGraph.Generator(state: seed &* 7_919)
            let folder = try Fixtures.temporaryDirectory()
            let url = folder.appendingPathComponent("source.\(source)")
            let document = try PersistentDocument(creatingAt: url, ofType: type, model: model)
            var expected: [Int64: [String: AttributeValue]] = [:]
            for id in Int64(1)...40 {
                let thing = try document.managedObjectContext.insertNewObject(forEntityName: "Thing")
                try thing.setAttributeValue(.integer64(id), forKey: "id")
                var values: [String: AttributeValue] = [:]
                for (name, type) in Self.attributes {
                    let value = Self.value(type, &random)
                    try thing.setAttributeValue(value, forKey: name)
                    values[name] = value
                }
                expected[id] = values
            }
            try document.save()
            try document.close()

            try Self.dumpAndImport(url, in: folder, "seed \(seed)") { target, out, reader, dumped in
                let read = try Self.values(reader.managedObjectContext)
                #expect(read.count == expected.count, "seed \(seed) → \(target)")
                for (id, values) in expected.sorted(by: { $0.key < $1.key }) {
                    for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                        let back = read[id]?[name] ?? .null
                        #expect(
                            Self.same(value, back, throughSQLite: source == "sqlite" || target == "sqlite"),
                            "seed \(seed) \(source) → \(target): thing \(id).\(name): \(String(reflecting: value)) came back as \(String(reflecting: back))"
                        )
                    }
                }
                // And the import dumps back as the source dumped (apart from the objects' URIs and a zero's sign).
                let again = try Docutil.run(["dump", out.path])
                #expect(again.status == 0, "\(again.stderr)")
                #expect(
                    Self.withoutURIs(again.stdout, signedZeros: target != "sqlite")
                        == Self.withoutURIs(dumped, signedZeros: target != "sqlite"), "seed \(seed) → \(target)")
            }
        }
    }

    /// `docutil dump` of `url`, then `docutil import` of that dump into a new document of each store type (with the
    /// source as the model), each handed to `body` opened read-only with the dump: what the round trip tests share.
    static func dumpAndImport(
        _ url: URL, in folder: URL, _ place: String,
        _ body: (_ target: String, _ out: URL, _ reader: PersistentDocument, _ dump: String) throws -> Void
    ) throws {
        let dump = try Docutil.run(["dump", url.path])
        #expect(dump.status == 0, "\(place): \(dump.stderr)")
        let json = folder.appendingPathComponent("dump.json")
        try Data(dump.stdout.utf8).write(to: json)
        for target in ["xml", "binary", "sqlite"] {
            let out = folder.appendingPathComponent("back.\(target)")
            let imported = try Docutil.run(["import", json.path, out.path, "--model", url.path])
            #expect(imported.status == 0, "\(place) → \(target): \(imported.stderr)")
            guard imported.status == 0 else { continue }
            let reader = try PersistentDocument(contentsOf: out, readOnly: true)
            defer { try? reader.close() }
            try body(target, out, reader, dump.stdout)
        }
    }

    /// A dump's objects (each without its URI; a negative zero as a zero unless `signedZeros`), sorted.
    static func withoutURIs(_ dump: String, signedZeros: Bool) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any],
            let objects = root["objects"] as? [[String: Any]]
        else { return ["unreadable dump"] }
        return objects.map { object in
            var object = object
            object["uri"] = nil
            if !signedZeros, var values = object["values"] as? [String: Any] {
                for (key, value) in values where (value as? Double) == 0 { values[key] = 0 }
                object["values"] = values
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }.sorted()
    }
}

/// `dump` then `import` of random graphs of every kind of relationship (ordered, many-to-many, to itself, without an
/// inverse), into each store type: every link comes back, ordered ones in order.
struct RandomGraphDumpImportTests {
    @Test func everyLinkComesBackThroughDumpAndImport() throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...2 {
            var random = RandomGraph.Generator(state: seed &* 6_700_417)
            let folder = try Fixtures.temporaryDirectory()
            let url = folder.appendingPathComponent("graph.sqlite")
            let document = try PersistentDocument(creatingAt: url, ofType: .sqlite, model: model)
            var counter = 0
            for _ in 0..<5 { try RandomGraph.edit(document.managedObjectContext, &random, counter: &counter) }
            try document.save()
            let expected = try RandomGraph.state(document.managedObjectContext)
            try document.close()
            try RandomDumpImportTests.dumpAndImport(url, in: folder, "seed \(seed)") { target, _, reader, _ in
                let state = try RandomGraph.state(reader.managedObjectContext)
                #expect(state == expected, "seed \(seed) → \(target)")
            }
        }
    }
}
