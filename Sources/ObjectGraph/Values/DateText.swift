package import Foundation

/// Parsing of the textual date forms found in model files and on the command line.
package enum DateText {
    /// Parses `yyyy-MM-dd HH:mm:ss Z` (Xcode's `defaultValueString` for dates) or ISO 8601 with or without
    /// fractional seconds.
    package static func parse(_ text: String) -> Date? {
        let xcode = DateFormatter()
        xcode.locale = Locale(identifier: "en_US_POSIX")
        xcode.timeZone = TimeZone(identifier: "UTC")
        xcode.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        if let date = xcode.date(from: text) { return date }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withFullDate]
        return iso.date(from: text)
    }

    /// Formats a date as Xcode writes `defaultValueString`: `yyyy-MM-dd HH:mm:ss +0000`.
    package static func xcodeText(_ date: Date) -> String {
        let xcode = DateFormatter()
        xcode.locale = Locale(identifier: "en_US_POSIX")
        xcode.timeZone = TimeZone(identifier: "UTC")
        xcode.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return xcode.string(from: date)
    }
}
