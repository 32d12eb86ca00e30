import ObjectGraph

/// Text output meant for a terminal: names and values from files may hold control characters that a terminal would
/// act on (an escape sequence can move the cursor, clear the screen or retitle the window).
enum TerminalText {
    /// `text` with its control characters shown escaped as `\u{1b}`: C0 but newline and tab (the layout of the
    /// text), DEL and C1. Text without any is returned as it is.
    static func safe(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar != "\n" && scalar != "\t" && Diagnostics.isControl(scalar)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
