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
        value.description
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
