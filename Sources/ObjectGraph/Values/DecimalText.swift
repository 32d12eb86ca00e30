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
        Decimal(string: text, locale: posix)
    }
}
