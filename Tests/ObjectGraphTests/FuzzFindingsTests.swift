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
        // A key path on a number whose key is a reserved word, printed escaped ("4.#UTI"): the number took the dot.
        "-9+4444444444444.UTI-CONFs-E.QUAL+88< afe",
        "4.#abc < 3",
    ])
    func printsToWhatReadsBackTheSame(format: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(try ObjectPredicate(format: predicate.format) == predicate, "\(format) → \(predicate.format)")
    }

    @Test(arguments: [
        // Nested parentheses, each read both as a predicate and as an expression: exponential backtracking.
        "B64:KCgoKCgoKCgoKCgoKOl0ZXVbVEVSTkFSWSgoKCgoKCgoKCgoKCgoKCgoKFNVQlFVRVIoJHggLXGn19fX19fX19PX19fX13RldVtURVJOQVJZKCgoKCgoZXVbVEVSTkFSWSgoKCgoKCgoKCgoKCgoKCgoKFNVQlFVRVIoJHggLXGn19fX19fX19PX19fX13RlLXGn19fX19fX19PX19fX13RldVtURVJOQVJZKCgoKCgoZXVbVEVSTkFSWSgoKCgoKCgoKCgoKCgoKCgoKFNVQlFVRVIoJHggLXGn19fX19fX19PX19fX13RldVtURVJOQVJZKCgoKCgoKCif19fX1ygoKCgoKFRSVUUoKCgoKCh1W1RFUk5BUlkoKCgoKCgoKJ/X19fXKCgoKCgoVFJVRSgoKCgoKCgoKCgoKCgo19fX19coKA==",
        String(repeating: "(", count: 60) + "a == 1 +",
        String(repeating: "((a == 1) AND ", count: 40) + "b",
    ])
    func deeplyAmbiguousInputFailsQuickly(format: String) throws {
        var text = format
        if format.hasPrefix("B64:"), let data = Data(base64Encoded: String(format.dropFirst(4))) {
            text = String(decoding: data, as: UTF8.self)
        }
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: text) }
    }
}
