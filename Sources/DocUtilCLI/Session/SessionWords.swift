import Foundation

/// A command of an editing session that failed, with the exit status a script stops with.
struct SessionError: Error, CustomStringConvertible {
    var status: Int32
    var message: String

    init(_ status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    static func usage(_ message: String) -> SessionError { SessionError(ExitStatus.usage, message) }
    static func badValue(_ message: String) -> SessionError { SessionError(ExitStatus.badData, message) }

    var description: String { message }
}

/// Splits a session line into words: whitespace separates them, except inside quotes (`'…'`, `"…"`, with `\`
/// escapes), braces (`{…}`) and parentheses (`(…)`), so that `name='Ann Lee'`, `{Tag/p1, Tag/p2}` and
/// `CAST(0, "NSDate")` are one word each.
enum SessionWords {
    static func split(_ line: String) throws(SessionError) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var depth = 0
        var escaped = false
        var started = false
        for character in line {
            if let open = quote {
                current.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == open {
                    quote = nil
                }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                current.append(character)
                started = true
            case "{", "(":
                depth += 1
                current.append(character)
                started = true
            case "}", ")":
                guard depth > 0 else { throw .usage("unbalanced '\(character)'") }
                depth -= 1
                current.append(character)
            case _ where character.isWhitespace && depth == 0:
                if started || !current.isEmpty { words.append(current) }
                current = ""
                started = false
            default:
                current.append(character)
                started = true
            }
        }
        if quote != nil { throw .usage("a quote is not closed") }
        if depth != 0 { throw .usage("a brace or parenthesis is not closed") }
        if started || !current.isEmpty { words.append(current) }
        return words
    }

    /// `KEY=VALUE` split at the first `=`.
    static func assignment(_ word: String) throws(SessionError) -> (key: String, value: String) {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
            throw .usage("'\(word)' is not KEY=VALUE")
        }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
