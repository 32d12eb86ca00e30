/// A predicate format string that does not parse: where, what was found, and what was expected.
public struct PredicateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format string.
    public var format: String
    /// The offset of the problem, in characters from the start.
    public var offset: Int
    /// What was found there (a token, or "end of input").
    public var found: String
    /// What the parser expected.
    public var expected: String

    /// The one-line summary: `syntax error at offset 7: expected an expression, found ")"`.
    public var summary: String {
        "syntax error at offset \(offset): expected \(expected), found \(Diagnostics.quote(found, limit: 60))"
    }

    /// The summary, the format string (around the problem when it is long), and a caret under the offending place.
    public var description: String {
        var characters = Array(
            format.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " "))
        var caret = max(0, min(offset, characters.count))
        var prefix = ""
        if characters.count > 160 {
            let start = max(0, min(caret - 60, characters.count - 160))
            let end = min(characters.count, start + 160)
            prefix = start > 0 ? "…" : ""
            characters = Array(characters[start..<end]) + (end < characters.count ? ["…"] : [])
            caret = caret - start + prefix.count
        }
        return "\(summary)\n  \(prefix)\(String(characters))\n  \(String(repeating: " ", count: caret))^"
    }
}
