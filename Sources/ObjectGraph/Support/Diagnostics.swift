/// Helpers for messages that quote input: a name or value read from a file or the command line is shown in full
/// when short, and cut in the middle when long, so that no input can flood a terminal or a log.
public enum Diagnostics {
    /// The most characters of one piece of input a message quotes.
    public static let quoteLimit = 200

    /// `text` as a message may quote it: whole up to ``quoteLimit`` characters; otherwise its start and end with the
    /// number of characters left out between them. Control characters (C0 but tab, DEL, C1) are shown escaped.
    /// - Parameters:
    ///   - text: the text to quote.
    ///   - limit: the most characters shown.
    /// - Returns: the text as a message shows it.
    public static func quote(_ text: String, limit: Int = quoteLimit) -> String {
        var shown = text
        if text.count > limit {
            let half = max(1, limit / 2)
            shown = "\(text.prefix(half))…[\(text.count - 2 * half) characters]…\(text.suffix(half))"
        }
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar != "\t" && Self.isControl(scalar) }
        guard shown.unicodeScalars.contains(where: isControl) else { return shown }
        var escaped = ""
        for scalar in shown.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case _ where isControl(scalar):
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `scalar` is a control character a terminal would act on: C0, DEL or C1. What a message or text
    /// output shows of a file's text escapes them (keeping what lays the text out: tabs, and newlines in output).
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
