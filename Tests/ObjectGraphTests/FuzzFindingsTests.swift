import Foundation
import ObjectGraph
import Testing

/// Inputs the fuzzers found (Fuzz/), kept so that what they broke stays fixed: each parses and prints back to an
/// equal predicate, or fails with a syntax error.
struct FuzzFindingsTests {
    @Test(arguments: [
        // A function escaped as #CAST printed without its escape, so it read back as CAST(…).
        "when > #CAST('20\u{FFFD}-01--\u{0}\u{0}:00%Z', 'NSD\u{FFFD}e')",
        "#SUBQUERY:(a) == 1",
        // Many minus signs printed as nested parentheses past the nesting limit.
        "x == " + String(repeating: "-", count: 60) + "y",
    ])
    func printsToWhatReadsBackTheSame(format: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(try ObjectPredicate(format: predicate.format) == predicate, "\(format) → \(predicate.format)")
    }
}
