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

/// A predicate that could not be evaluated or substituted.
public struct ObjectPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// A `$VARIABLE` has no value.
        case missingVariable
        /// A function name is not known, or not available on Linux.
        case unsupportedFunction
        /// A function or cast received values it cannot work with.
        case invalidArgument
        /// A format argument is missing or of the wrong kind.
        case badFormatArgument
        /// A fetch request template with that name does not exist.
        case unknownTemplate
        /// A predicate stored as text (in a model or template) does not parse.
        case syntaxError
        /// A key path names a property the entity does not have (Core Data's "keypath not found in entity").
        case unknownKey
        /// An object's value could not be read (a fault whose row is gone, or whose store failed).
        case objectUnavailable
        /// A `MATCHES` pattern (or a model's regular expression) is not a valid regular expression.
        case invalidPattern
        /// The predicate is nested too deeply or would take too long to evaluate.
        case tooComplex
        /// A predicate archived in a model file could not be decoded, so it cannot be used.
        case undecodable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
