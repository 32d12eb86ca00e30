package import Foundation

/// Reading and writing the textual date forms of model files, the command line and our outputs, by hand: no
/// `DateFormatter` (each one costs an ICU formatter, and swift-corelibs-foundation's leaks memory on every parse).
///
/// All times are UTC. Dates further out than ±10¹⁴ seconds (about three million years) from the reference date
/// print as `@<seconds since 2001-01-01>`, which ``parse(_:)`` reads back too.
package enum DateText {
    /// Parses `yyyy-MM-dd HH:mm:ss ±hhmm` (Xcode's `defaultValueString` for dates), ISO 8601 (`yyyy-MM-ddTHH:mm:ss`
    /// with optional fractional seconds and `Z` or `±hh:mm`), a plain `yyyy-MM-dd` (midnight UTC), or `@SECONDS`.
    /// - Returns: `nil` for anything else, or a field out of range (month 13, February 30…).
    package static func parse(_ text: String) -> Date? {
        var reader = Reader(Array(text.utf8))
        if reader.take(UInt8(ascii: "@")) {
            guard let seconds = Double(String(decoding: reader.rest, as: UTF8.self)) else { return nil }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        // A year of four digits, or ISO 8601's expanded form with a sign and more digits (as we print far years).
        var yearSign = 1
        var yearDigits = 4
        if reader.take(UInt8(ascii: "+")) {
            yearDigits = reader.countDigits()
        } else if reader.take(UInt8(ascii: "-")) {
            yearSign = -1
            yearDigits = reader.countDigits()
        }
        guard (4...7).contains(yearDigits), let magnitude = reader.number(digits: yearDigits),
            reader.take(UInt8(ascii: "-")),
            let month = reader.number(digits: 2), reader.take(UInt8(ascii: "-")), let day = reader.number(digits: 2)
        else { return nil }
        let year = yearSign * magnitude
        guard (1...12).contains(month), (1...daysIn(month, year)).contains(day) else { return nil }
        // Whole seconds counted as an integer, the fraction added once at the end, to seconds since the reference
        // date: the date a text of ``writeISO8601(_:into:)`` names, exactly.
        var seconds = daysFromCivil(year, month, day) * 86_400
        var fraction = 0.0
        func date(offset: Int64 = 0) -> Date {
            Date(timeIntervalSinceReferenceDate: Double(seconds - offset - Self.referenceOffset) + fraction)
        }
        if reader.isAtEnd { return date() }
        let xcode: Bool
        if reader.take(UInt8(ascii: "T")) {
            xcode = false
        } else if reader.take(UInt8(ascii: " ")) {
            xcode = true
        } else {
            return nil
        }
        guard let hour = reader.number(digits: 2), reader.take(UInt8(ascii: ":")),
            let minute = reader.number(digits: 2), reader.take(UInt8(ascii: ":")),
            let second = reader.number(digits: 2), hour < 24, minute < 60, second < 61
        else { return nil }
        seconds += Int64(hour * 3600 + minute * 60 + second)
        if !xcode, reader.take(UInt8(ascii: ".")) {
            let digits = reader.digits()
            guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
            fraction = value
        }
        if xcode { guard reader.take(UInt8(ascii: " ")) else { return nil } }
        if !xcode, reader.take(UInt8(ascii: "Z")) {
            return reader.isAtEnd ? date() : nil
        }
        let sign: Int
        if reader.take(UInt8(ascii: "+")) {
            sign = 1
        } else if reader.take(UInt8(ascii: "-")) {
            sign = -1
        } else {
            return nil
        }
        guard let hours = reader.number(digits: 2) else { return nil }
        _ = reader.take(UInt8(ascii: ":"))
        guard let minutes = reader.number(digits: 2), hours < 24, minutes < 60, reader.isAtEnd else { return nil }
        return date(offset: Int64(sign * (hours * 3600 + minutes * 60)))
    }

    /// 10⁰ … 10¹⁵, exactly (a date's fraction is tried at three digits, then more; no `pow` per date).
    static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ]

    /// Seconds from 1970-01-01 to the reference date, 2001-01-01.
    static let referenceOffset: Int64 = 978_307_200

    /// ISO 8601 in UTC with milliseconds, `2024-05-10T18:14:06.843Z`, or with as many more fractional digits as the
    /// date needs to be read back exactly (`2024-05-10T18:14:06.843216Z`: a time taken from a clock has
    /// microseconds); ``parse(_:)`` gives back the very same date. A fraction no fifteen digits say (a date a
    /// hair's breadth from a whole second) is written as `@<seconds since 2001-01-01>`, as far dates are.
    package static func iso8601(_ date: Date) -> String {
        text { writeISO8601(date, into: &$0) }
    }

    /// Appends ``iso8601(_:)``'s text of a date to a byte buffer, without making a string.
    package static func writeISO8601(_ date: Date, into bytes: inout [UInt8]) {
        guard let parts = Parts(date) else { return bytes.append(contentsOf: far(date).utf8) }
        guard let fraction = parts.fraction else { return bytes.append(contentsOf: far(date).utf8) }
        guard (0...9999).contains(parts.year), fraction.digits == 3 else {
            parts.writeDate(into: &bytes)
            bytes.append(UInt8(ascii: "T"))
            parts.writeTime(into: &bytes)
            bytes.append(UInt8(ascii: "."))
            write(fraction.value, width: fraction.digits, into: &bytes)
            bytes.append(UInt8(ascii: "Z"))
            return
        }
        // The usual four-digit year: `yyyy-MM-ddTHH:mm:ss.SSSZ`, 24 bytes filled in place and appended at once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func put(_ value: Int64, _ width: Int, at end: Int) {
                var rest = value
                for i in stride(from: end - 1, through: end - width, by: -1) {
                    text[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            put(parts.year, 4, at: 4)
            text[4] = UInt8(ascii: "-")
            put(parts.month, 2, at: 7)
            text[7] = UInt8(ascii: "-")
            put(parts.day, 2, at: 10)
            text[10] = UInt8(ascii: "T")
            put(parts.hour, 2, at: 13)
            text[13] = UInt8(ascii: ":")
            put(parts.minute, 2, at: 16)
            text[16] = UInt8(ascii: ":")
            put(parts.second, 2, at: 19)
            text[19] = UInt8(ascii: ".")
            put(fraction.value, 3, at: 23)
            text[23] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// ISO 8601 in UTC to the second, as XML property lists write dates: `2024-05-10T18:14:06Z`.
    package static func iso8601Seconds(_ date: Date) -> String {
        guard let parts = Parts(date) else { return far(date) }
        return text { bytes in
            parts.writeDate(into: &bytes)
            bytes.append(UInt8(ascii: "T"))
            parts.writeTime(into: &bytes)
            bytes.append(UInt8(ascii: "Z"))
        }
    }

    /// Formats a date as Xcode writes `defaultValueString`: `yyyy-MM-dd HH:mm:ss +0000`.
    package static func xcodeText(_ date: Date) -> String {
        guard let parts = Parts(date) else { return far(date) }
        return text { bytes in
            parts.writeDate(into: &bytes)
            bytes.append(UInt8(ascii: " "))
            parts.writeTime(into: &bytes)
            bytes.append(contentsOf: " +0000".utf8)
        }
    }

    /// A date too far out for calendar fields.
    static func far(_ date: Date) -> String {
        "@\(date.timeIntervalSinceReferenceDate)"
    }

    /// The string of the bytes `write` appends to an empty buffer.
    private static func text(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    struct Parts {
        let year: Int64
        let month: Int64
        let day: Int64
        let hour: Int64
        let minute: Int64
        let second: Int64
        /// The whole seconds since the reference date, and the part of a second after them (in 0..<1, exactly:
        /// the date is their sum).
        let whole: Double
        let part: Double

        init?(_ date: Date) {
            let reference = date.timeIntervalSinceReferenceDate
            guard reference.isFinite, abs(reference) < 1e14 else { return nil }
            whole = reference.rounded(.down)
            part = reference - whole
            let (days, inDay) = floorDivide(Int64(whole) + DateText.referenceOffset, 86_400)
            (year, month, day) = civilFromDays(days)
            hour = inDay / 3600
            minute = inDay / 60 % 60
            second = inDay % 60
        }

        /// The fewest fractional digits (three at least, fifteen at most) that read back as this date exactly, and
        /// their value; `nil` when fifteen do not.
        var fraction: (digits: Int, value: Int64)? {
            for digits in 3...15 {
                let scale = DateText.powersOfTen[digits]
                // The fraction rounded to `digits` digits, read back as `parse` reads it: the digits' value over the
                // scale, both exact below 2⁵³, so the quotient is the double nearest the decimal fraction.
                let scaled = (part * scale).rounded()
                if scaled < scale, whole + scaled / scale == whole + part { return (digits, Int64(scaled)) }
            }
            return nil
        }

        /// `yyyy-MM-dd`; a year before 0 as `-yyyy`, after 9999 as `+yyyyy`.
        func writeDate(into bytes: inout [UInt8]) {
            if year < 0 {
                bytes.append(UInt8(ascii: "-"))
                DateText.write(-year, width: 4, into: &bytes)
            } else {
                if year > 9999 { bytes.append(UInt8(ascii: "+")) }
                DateText.write(year, width: 4, into: &bytes)
            }
            bytes.append(UInt8(ascii: "-"))
            DateText.write(month, width: 2, into: &bytes)
            bytes.append(UInt8(ascii: "-"))
            DateText.write(day, width: 2, into: &bytes)
        }

        /// `HH:mm:ss`.
        func writeTime(into bytes: inout [UInt8]) {
            DateText.write(hour, width: 2, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            DateText.write(minute, width: 2, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            DateText.write(second, width: 2, into: &bytes)
        }
    }

    /// A number that is not negative in decimal digits, with leading zeros up to `width` digits.
    static func write(_ value: Int64, width: Int, into bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            var rest = value.magnitude
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0 || (digits.count - start < width && start > 0)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day number since 1970-01-01.
    static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A cursor over UTF-8 bytes.
    struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { position == bytes.count }
        var rest: ArraySlice<UInt8> { bytes[position...] }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func number(digits count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += count
            return value
        }

        /// How many digits follow, without taking them.
        func countDigits() -> Int {
            var end = position
            while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 { end += 1 }
            return end - position
        }

        mutating func digits() -> String {
            let start = position
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39, position - start < 30 {
                position += 1
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
    }
}
