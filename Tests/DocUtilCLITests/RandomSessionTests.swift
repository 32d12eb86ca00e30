import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import DocUtilCLI

/// `docutil open`'s commands, made at random from its grammar and from pieces of it that do not fit (unknown
/// entities and keys, unbalanced quotes and braces, numbers out of range, predicates that do not parse), run against
/// a document of ``RandomGraph``: each line either runs or fails with a message, nothing traps, and at the end the
/// saved file holds what the session held.
struct RandomSessionTests {
    static let commands = [
        "entities", "list", "show", "insert", "set", "add", "remove", "update", "delete", "undo", "redo", "status",
        "save", "revert", "autosave", "recover", "discard-autosave", "help", "save-copy", "bogus",
    ]
    static let entities = ["Group", "Node", "Leaf", "Nope", "group", ""]
    static let keys = RandomGraph.relationships.map(\.name) + ["name", "weight", "nope", "", "name.name"]
    static let values = [
        "42", "-1", "4.5", "'text'", "\"quoted\"", "'it''s'", "'unclosed", "YES", "NO", "nil", "CAST(0, \"NSDate\")",
        "{}", "{Node/p1, Node/p2}", "{Node/p1,, Node/p2}", "{Node/p1", "Node/p1", "Group/p1", "Node/t1", "Leaf/t2",
        "Node/p999999999999999999999", "Node/p-1", "Node/p0", "9223372036854775808", "1e400", "'日本'", "CAST('x', 'y')",
        "x-coredata://nowhere/Node/p1", "{", "}", "=", "'a\\'b'",
    ]
    static let predicates = [
        "name == 'same'", "ANY friends.name == name", "friends.@count > 1", "name ==", "(((", "nope == 1",
        "name MATCHES '['", "SUBQUERY(friends, $f, $f.name == 'x').@count > 0", "$undefined == 1", "TRUEPREDICATE",
    ]

    /// One random line.
    static func line(_ random: inout RandomGraph.Generator, folder: URL) -> String {
        func pick(_ list: [String]) -> String { list.randomElement(using: &random)! }
        func ref() -> String {
            "\(pick(["Node", "Group", "Leaf", "Nope"]))/\(pick(["p", "t"]))\(Int.random(in: -1...12, using: &random))"
        }
        func assignment() -> String { "\(pick(keys))=\(Bool.random(using: &random) ? pick(values) : ref())" }
        var words: [String] = [pick(commands)]
        switch words[0] {
        case "list":
            words.append(pick(entities))
            if Bool.random(using: &random) { words += ["where", pick(predicates)] }
            if Bool.random(using: &random) { words += ["sort", pick(["name", "-name", "name,,", "nope", "friends"])] }
            if Bool.random(using: &random) { words += ["limit", pick(["3", "0", "-1", "x", "99999999999999999999"])] }
        case "show", "delete": for _ in 0..<Int.random(in: 0...3, using: &random) { words.append(ref()) }
        case "insert":
            words.append(pick(entities))
            for _ in 0..<Int.random(in: 0...3, using: &random) { words.append(assignment()) }
        case "set":
            words.append(ref())
            for _ in 0..<Int.random(in: 0...3, using: &random) { words.append(assignment()) }
        case "add", "remove":
            words += [ref(), pick(keys)]
            for _ in 0..<Int.random(in: 0...3, using: &random) { words.append(ref()) }
        case "update":
            words.append(pick(entities))
            if Bool.random(using: &random) { words += ["where", pick(predicates)] }
            words.append("set")
            words.append(assignment())
        case "undo", "redo":
            if Bool.random(using: &random) { words.append(pick(["1", "3", "0", "-2", "x", "99999999999999999999"])) }
        case "save-copy":
            words.append(folder.appendingPathComponent("copy\(Int.random(in: 0...3, using: &random)).xml").path)
            if Bool.random(using: &random) { words.append("--force") }
        default:
            if Int.random(in: 0..<4, using: &random) == 0 { words.append(pick(values)) }
        }
        return words.joined(separator: " ")
    }

    @Test func randomCommandsRunOrFailCleanly() throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...4 {
            var random = RandomGraph.Generator(state: seed &* 65_537)
            let folder = try Fixtures.temporaryDirectory()
            let url = folder.appendingPathComponent("session.sqlite")
            let document = try PersistentDocument(creatingAt: url, ofType: .sqlite, model: model)
            var counter = 0
            for _ in 0..<3 { try RandomGraph.edit(document.managedObjectContext, &random, counter: &counter) }
            try document.save()
            let session = EditingSession(
                document: document, format: seed % 2 == 0 ? .json : .text, write: { _ in }, warn: { _ in })
            var failures = 0
            for _ in 0..<400 {
                let line = Self.line(&random, folder: folder)
                do {
                    try session.run(line)
                } catch {
                    failures += 1
                    #expect(!error.message.isEmpty, "seed \(seed): \(line)")
                    #expect([64, 65, 66, 69, 73, 74, 75].contains(error.status), "seed \(seed): \(line): \(error)")
                }
            }
            // What the session holds is what a save writes.
            try document.save()
            let expected = try RandomGraph.state(document.managedObjectContext)
            let reader = try PersistentDocument(contentsOf: url, readOnly: true)
            #expect(try RandomGraph.state(reader.managedObjectContext) == expected, "seed \(seed)")
            try reader.close()
            try document.close()
            #expect(failures > 0 && failures < 400, "seed \(seed): \(failures) of 400 lines failed")
        }
    }
}
