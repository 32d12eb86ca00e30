package import Foundation

/// UUIDs read from text without Foundation's parser on the common path.
package enum UUIDText {
    /// The UUID `text` spells, as `UUID(uuidString:)` reads it: the canonical form (`8-4-4-4-12` hexadecimal digits,
    /// either case) is read by hand; anything else is left to Foundation, so that exactly the same texts are accepted.
    /// - Parameter text: the text.
    /// - Returns: the UUID, or `nil` when the text is not one.
    package static func parse(_ text: String) -> UUID? {
        var copy = text
        let fast = copy.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            // The 32 digits as two 64-bit halves, most significant first.
            var halves: (UInt64, UInt64) = (0, 0)
            var digits = 0
            for (i, c) in bytes.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let value = digit(c) else { return nil }
                if digits < 16 {
                    halves.0 = halves.0 << 4 | UInt64(value)
                } else {
                    halves.1 = halves.1 << 4 | UInt64(value)
                }
                digits += 1
            }
            return withUnsafeBytes(of: (halves.0.bigEndian, halves.1.bigEndian)) {
                UUID(uuid: $0.loadUnaligned(as: uuid_t.self))
            }
        }
        return fast ?? UUID(uuidString: text)
    }

    private static func digit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
