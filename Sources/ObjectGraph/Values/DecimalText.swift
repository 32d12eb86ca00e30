public import Foundation

/// Decimal numbers as text, the same everywhere: a `.` separator whatever the locale, no grouping, no exponent
/// (Foundation's `NSDecimalNumber` description in the POSIX locale).
public enum DecimalText {
    /// The POSIX locale, made once (making a `Locale` costs more than formatting a number).
    static let posix = Locale(identifier: "en_US_POSIX")

    /// The text of a decimal number (`12.5`, `-0.001`, `NaN`).
    /// - Parameter value: the number.
    /// - Returns: its text, which ``parse(_:)`` reads back to an equal number.
    public static func string(_ value: Decimal) -> String {
        guard let parts = Parts(value) else { return value.description }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Parts.maximumLength) { buffer in
            String(decoding: buffer[..<parts.format(into: buffer)], as: UTF8.self)
        }
    }

    /// Appends ``string(_:)``'s text of a number to a byte buffer, without making a string.
    /// - Parameters:
    ///   - value: the number.
    ///   - bytes: the buffer, which gets the number's ASCII text at its end.
    package static func write(_ value: Decimal, into bytes: inout [UInt8]) {
        guard let parts = Parts(value) else {
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Parts.maximumLength) { buffer in
            bytes.append(contentsOf: buffer[..<parts.format(into: buffer)])
        }
    }

    /// A number's sign, exponent and mantissa, read from its storage, for formatting by hand: Foundation's own
    /// formatter divides the whole mantissa by ten for each digit, several times slower than a dump's other work on
    /// the value. The storage is Foundation's (and `NSDecimal`'s) 20 bytes: a signed exponent byte, a byte with the
    /// mantissa's length in 16-bit words (high four bits) and the sign (bit 3), two reserved bytes, then eight
    /// little-endian 16-bit words. That layout is not public API, so it is used only when ``layoutHolds`` (checked
    /// once, by formatting sample numbers both ways) and when each number's exponent and sign read back as its public
    /// properties say; otherwise the text is Foundation's `description`.
    struct Parts {
        /// The longest text: 39 digits of a 128-bit mantissa and 127 zeros, or `-0.` and 128 digits.
        static let maximumLength = 192

        let isNegative: Bool
        let exponent: Int
        let mantissa: UInt128
        /// NaN or zero, whose text does not depend on the other fields.
        let special: StaticString?

        /// Whether this platform lays decimal numbers out as described above.
        static let layoutHolds: Bool = {
            guard MemoryLayout<Decimal>.size == 20 else { return false }
            let samples: [(FloatingPointSign, Int, Decimal)] = [
                (.minus, -3, Decimal(12345)), (.plus, 5, Decimal(1)), (.plus, 0, Decimal(65536)),
                (.plus, -25, Decimal(UInt64.max)), (.minus, 7, Decimal(UInt64(0x1_0000_0001))),
                (.plus, -2, Decimal(UInt64.max) * Decimal(UInt64.max)), (.minus, -1, Decimal(10)),
            ]
            return samples.allSatisfy { sign, exponent, significand in
                let value = Decimal(sign: sign, exponent: exponent, significand: significand)
                guard let parts = Parts(checked: value) else { return false }
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
                    String(decoding: buffer[..<parts.format(into: buffer)], as: UTF8.self) == value.description
                }
            }
        }()

        init?(_ value: Decimal) {
            guard Self.layoutHolds else { return nil }
            self.init(checked: value)
        }

        /// Reads the storage, whether or not the layout was found to hold; `nil` when the reading contradicts the
        /// number's public properties.
        private init?(checked value: Decimal) {
            if value.isNaN {
                special = "NaN"
            } else if value.isZero {
                special = "0"
            } else {
                special = nil
            }
            (isNegative, exponent, mantissa) = withUnsafeBytes(of: value) { raw in
                let length = min(Int(raw[1] >> 4), 8)
                var mantissa: UInt128 = 0
                for word in (0..<length).reversed() {
                    let low = UInt128(raw[4 + 2 * word])
                    let high = UInt128(raw[5 + 2 * word])
                    mantissa = mantissa << 16 | high << 8 | low
                }
                return (raw[1] & 0x08 != 0, Int(Int8(bitPattern: raw[0])), mantissa)
            }
            guard special != nil || (exponent == value.exponent && isNegative == (value.sign == .minus)) else {
                return nil
            }
        }

        /// Writes the text into `buffer` (at least ``maximumLength`` bytes) and returns its length.
        func format(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
            if let special {
                return special.withUTF8Buffer { text in
                    _ = buffer.initialize(from: text)
                    return text.count
                }
            }
            // The mantissa's digits, last first, at the end of the buffer.
            var start = buffer.count
            if mantissa <= UInt128(UInt64.max) {
                var rest = UInt64(mantissa)
                repeat {
                    start -= 1
                    buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                } while rest > 0
            } else {
                var rest = mantissa
                repeat {
                    start -= 1
                    buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                } while rest > 0
            }
            let digits = buffer.count - start
            var length = 0
            func put(_ byte: UInt8) {
                buffer[length] = byte
                length += 1
            }
            if isNegative { put(UInt8(ascii: "-")) }
            if exponent >= 0 {
                for i in start..<buffer.count { put(buffer[i]) }
                for _ in 0..<exponent { put(UInt8(ascii: "0")) }
            } else if digits > -exponent {
                let point = buffer.count + exponent
                for i in start..<point { put(buffer[i]) }
                put(UInt8(ascii: "."))
                for i in point..<buffer.count { put(buffer[i]) }
            } else {
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "."))
                for _ in 0..<(-exponent - digits) { put(UInt8(ascii: "0")) }
                for i in start..<buffer.count { put(buffer[i]) }
            }
            return length
        }
    }

    /// The decimal number a text holds, read in the POSIX locale; `nil` when it is not one.
    /// - Parameter text: the text.
    /// - Returns: the number, or `nil`.
    public static func parse(_ text: String) -> Decimal? {
        plain(text) ?? Decimal(string: text, locale: posix)
    }

    /// The common case read by hand: an optional `-`, digits and at most one `.`, up to 18 significant digits
    /// (which fit a `UInt64`). Foundation's parser is several times slower and reads these to the same number.
    /// - Returns: `nil` for any other text, which then goes to Foundation's parser.
    static func plain(_ text: String) -> Decimal? {
        var significand: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var negative = false
        var seenPoint = false
        var seenDigit = false
        for (i, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "-") where i == 0:
                negative = true
            case UInt8(ascii: "."):
                guard !seenPoint else { return nil }
                seenPoint = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                seenDigit = true
                if seenPoint { fractionDigits += 1 }
                // Leading zeros are not significant digits.
                if significand == 0 && byte == UInt8(ascii: "0") { continue }
                digits += 1
                guard digits <= 18 else { return nil }
                significand = significand * 10 + UInt64(byte - UInt8(ascii: "0"))
            default:
                return nil
            }
        }
        guard seenDigit else { return nil }
        return Decimal(
            sign: negative && significand != 0 ? .minus : .plus, exponent: -fractionDigits,
            significand: Decimal(significand))
    }
}
