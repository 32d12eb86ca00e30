/// The characters XML 1.0 can hold. Every other one — C0 controls but tab, line feed and carriage return, and
/// U+FFFE, U+FFFF — has no form in an XML document, not even as a character reference: a parser refuses the file.
/// A writer that met one would make a document that does not open again, so it refuses to write instead.
package enum XMLCharacters {
    /// Whether XML 1.0 can hold `scalar`.
    package static func canHold(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: true
        case 0..<0x20, 0xFFFE, 0xFFFF: false
        default: true
        }
    }

    /// The first character of `text` XML cannot hold, with the line it is on (from 1), if any.
    package static func firstUnwritable(in text: String) -> (scalar: Unicode.Scalar, line: Int)? {
        // The usual case, checked on the bytes: nothing below a space but tab and line breaks, and no 0xEF (the
        // lead byte of U+FFFE and U+FFFF; other characters starting with it are looked at below).
        let suspicious = text.utf8.contains { $0 < 0x20 ? $0 != 0x09 && $0 != 0x0A && $0 != 0x0D : $0 == 0xEF }
        guard suspicious else { return nil }
        var line = 1
        for scalar in text.unicodeScalars {
            if scalar == "\n" { line += 1 }
            if !canHold(scalar) { return (scalar, line) }
        }
        return nil
    }

    /// `U+0001`: how a message names a character.
    package static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
