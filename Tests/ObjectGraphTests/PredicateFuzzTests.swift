import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Feeds 100,000 random and mutated strings to the parser: every one parses or fails with a syntax error, and every
/// one that parses prints to text that parses back to an equal predicate.
struct PredicateFuzzTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let vocabulary = [
        "a", "b.c", "name", "tags", "@count", "@sum", ".", "(", ")", "{", "}", "[", "]", ",", "==", "!=", "<", ">",
        "<=", ">=", "=", "+", "-", "*", "/", "**", "AND", "OR", "NOT", "&&", "||", "!", "ANY", "ALL", "NONE", "SOME",
        "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN", "[c]", "[cd]", "[d]", "1", "2.5",
        "-3", "0x1F", "0b1", "1e3", "\"s\"", "'t'", "\"", "'", "\\", "YES", "NO", "nil", "NULL", "SELF",
        "TRUEPREDICATE",
        "FALSEPREDICATE", "$x", "$", "SUBQUERY(", "CAST(", "\"NSDate\"", "FUNCTION(", "TERNARY(", "now()", "sum(",
        "FIRST", "LAST", "SIZE", "#size", "#", "@", "%@", "%K", "%d", "%", ":=", "UNION", "é", "ß", " ", "  ", "\t",
        "modulus:by:(", "UTI-EQUALS", "ANYKEY", ":", "?", ";",
    ]

    @Test func randomAndMutatedStringsNeverCrashOrHang() throws {
        var generator = Generator(state: 42)
        let seeds = PredicateCases.evaluation.map(\.0) + PredicateCases.parseOnly
        var parsed = 0
        var failed = 0
        for i in 0..<100_000 {
            let text: String
            if i % 2 == 0 {
                let count = Int.random(in: 1...14, using: &generator)
                text = (0..<count).map { _ in Self.vocabulary.randomElement(using: &generator)! }.joined(separator: " ")
            } else {
                var bytes = Array(seeds.randomElement(using: &generator)!.utf8)
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0 where !bytes.isEmpty: bytes.remove(at: Int.random(in: 0..<bytes.count, using: &generator))
                    case 1:
                        bytes.insert(
                            UInt8.random(in: 0x20...0x7E, using: &generator),
                            at: Int.random(in: 0...bytes.count, using: &generator))
                    default:
                        if !bytes.isEmpty {
                            bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                                in: 0...255, using: &generator)
                        }
                    }
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            do {
                let predicate = try ObjectPredicate(format: text, arguments: [1, "x", .keyPath("k"), 2])
                parsed += 1
                let reparsed = try ObjectPredicate(format: predicate.format)
                if reparsed != predicate {
                    Issue.record(
                        "round trip changed \(text.debugDescription): printed \(predicate.format.debugDescription)")
                }
            } catch {
                failed += 1
                if error.offset < 0 || error.offset > text.count {
                    Issue.record("offset \(error.offset) outside \(text.debugDescription)")
                }
            }
        }
        #expect(parsed > 1_000)
        #expect(failed > 10_000)
    }
}
