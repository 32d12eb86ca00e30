import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// CSV and TSV files written at random the ways other programs write them (fields quoted when they must be or on a
/// whim, CRLF or LF, a byte order mark or none, a last line break or none) with text from across Unicode holding
/// separators, quotes, line breaks and spaces: `docutil import` reads every cell back as it was written.
struct RandomDelimitedImportTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Thing",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64),
                    AttributeDescription(name: "text", type: .string),
                    AttributeDescription(name: "amount", type: .double),
                    AttributeDescription(name: "flag", type: .boolean),
                    AttributeDescription(name: "when", type: .date),
                ])
        ])
    }

    static let pieces = [
        "a", "Z", "0", " ", "  ", "\t", "\n", "\r\n", "\r", ",", ";", "\"", "\"\"", "'", "é", "日本", "😀", "\u{FEFF}",
        "\u{A0}", "=1+1", "-", "NULL", "nil", "#", "\\", "\u{2028}",
    ]

    /// Non-empty text (an empty cell is nil: README).
    static func text(_ random: inout RandomGraph.Generator) -> String {
        while true {
            let text = (0..<Int.random(in: 1...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            if !text.isEmpty { return text }
        }
    }

    /// A field as a writer would put it: quoted when it must be (it holds the separator, a quote or a line break),
    /// and sometimes when it need not be.
    static func field(_ text: String, separator: Character, _ random: inout RandomGraph.Generator) -> String {
        let must = text.contains(separator) || text.contains("\"") || text.contains("\n") || text.contains("\r")
        guard must || Int.random(in: 0..<4, using: &random) == 0 else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    @Test(arguments: ["csv", "tsv"])
    func everyCellComesBackAsItWasWritten(format: String) throws {
        let separator: Character = format == "csv" ? "," : "\t"
        for seed in UInt64(1)...4 {
            var random = RandomGraph.Generator(state: seed &* 104_729)
            let folder = try Fixtures.temporaryDirectory()
            let modelDocument = folder.appendingPathComponent("model.xml")
            let made = try PersistentDocument(creatingAt: modelDocument, ofType: .xml, model: try Self.model())
            try made.save()
            try made.close()
            let lineBreak = Bool.random(using: &random) ? "\r\n" : "\n"
            var lines = [["id", "text", "amount", "flag", "when"].joined(separator: String(separator))]
            var expected: [Int64: (text: String?, amount: Double?, flag: Bool?, when: Date?)] = [:]
            for id in Int64(1)...30 {
                let text: String? = Int.random(in: 0..<5, using: &random) == 0 ? nil : Self.text(&random)
                let amount: Double? =
                    Bool.random(using: &random)
                    ? nil
                    : [0.1, -2.5, 1e300, -0.000123, 42, 1.0 / 3].randomElement(using: &random)!
                let flag: Bool? = Int.random(in: 0..<3, using: &random) == 0 ? nil : Bool.random(using: &random)
                let seconds = Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &random))
                let when: Date? =
                    Int.random(in: 0..<3, using: &random) == 0 ? nil : Date(timeIntervalSinceReferenceDate: seconds)
                expected[id] = (text, amount, flag, when)
                let flagText = flag.map {
                    ($0 ? ["YES", "true", "1"] : ["NO", "false", "0"]).randomElement(using: &random)!
                }
                let cells = [
                    "\(id)", text.map { Self.field($0, separator: separator, &random) } ?? "",
                    amount.map { "\($0)" } ?? "", flagText ?? "",
                    when.map { $0.formatted(.iso8601) } ?? "",
                ]
                lines.append(cells.joined(separator: String(separator)))
            }
            var content = lines.joined(separator: lineBreak)
            if Bool.random(using: &random) { content += lineBreak }
            var data = Data(content.utf8)
            if Bool.random(using: &random) { data.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0) }
            let input = folder.appendingPathComponent("Thing.\(format)")
            try data.write(to: input)
            let out = folder.appendingPathComponent("out.sqlite")
            let imported = try Docutil.run(["import", input.path, out.path, "--model", modelDocument.path])
            #expect(imported.status == 0, "seed \(seed): \(imported.stderr)")
            guard imported.status == 0 else { continue }
            let reader = try PersistentDocument(contentsOf: out, readOnly: true)
            defer { try? reader.close() }
            let things = try reader.managedObjectContext.fetch(FetchRequest(entityName: "Thing"))
            #expect(things.count == expected.count, "seed \(seed)")
            for thing in things {
                guard case .integer64(let id) = try thing.attributeValue(forKey: "id"), let want = expected[id] else {
                    Issue.record("seed \(seed): a thing with no id")
                    continue
                }
                let text = try thing.attributeValue(forKey: "text")
                #expect(
                    text == (want.text.map { .string($0) } ?? .null),
                    "seed \(seed) \(format) row \(id): \(want.text.debugDescription)")
                #expect(
                    try thing.attributeValue(forKey: "amount") == (want.amount.map { .double($0) } ?? .null),
                    "seed \(seed) row \(id)")
                #expect(
                    try thing.attributeValue(forKey: "flag") == (want.flag.map { .boolean($0) } ?? .null),
                    "seed \(seed) row \(id)")
                #expect(
                    try thing.attributeValue(forKey: "when") == (want.when.map { .date($0) } ?? .null),
                    "seed \(seed) row \(id)")
            }
        }
    }
}
