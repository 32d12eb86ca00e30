import Foundation
import Testing

@testable import ObjectGraph

/// Dates read and written by hand: every form the readers accept, every field checked, and output that reads back.
struct DateTextTests {
    @Test(arguments: [
        ("2001-01-01T00:00:00Z", 0.0), ("2001-01-01 00:00:00 +0000", 0), ("2001-01-01", 0),
        ("2001-01-01T01:00:00+01:00", 0), ("2000-12-31 16:00:00 -0800", 0), ("2001-01-01T00:00:00.25Z", 0.25),
        ("1970-01-01T00:00:00Z", -978_307_200), ("2024-02-29T12:00:00Z", 730_900_800), ("@12.5", 12.5),
    ])
    func parses(text: String, seconds: Double) throws {
        let date = try #require(DateText.parse(text))
        #expect(date.timeIntervalSinceReferenceDate == seconds, "\(text)")
    }

    @Test(arguments: [
        "2001-13-01", "2001-02-29", "2023-02-29T00:00:00Z", "2001-01-01T24:00:00Z", "2001-01-01T00:60:00Z",
        "2001-01-01T00:00:00", "2001-1-1", "yesterday", "", "2001-01-01T00:00:00Zjunk", "2001-01-01 00:00:00",
    ])
    func refuses(text: String) {
        #expect(DateText.parse(text) == nil, "\(text)")
    }

    @Test(arguments: [0.0, -978_307_200, 1e9, -1e11, 730_987_200.843, 1e14 - 1, -0.5])
    func formatsAndReadsBack(seconds: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        let text = DateText.iso8601(date)
        let again = try #require(DateText.parse(text), "\(text)")
        #expect(again.timeIntervalSinceReferenceDate == seconds, "\(text)")
        #expect(DateText.parse(DateText.xcodeText(date)) != nil)
    }

    /// Milliseconds, as ICU writes them, when they say the date exactly; else as many more digits as it takes (a
    /// date from a clock has microseconds, which a dump that cut them lost on its way back in).
    @Test func writesMillisecondsOrTheDigitsTheDateNeeds() {
        #expect(DateText.iso8601(Date(timeIntervalSinceReferenceDate: 737_058_846.843)) == "2024-05-10T18:34:06.843Z")
        #expect(DateText.iso8601(Date(timeIntervalSinceReferenceDate: 737_058_846.8439)) == "2024-05-10T18:34:06.8439Z")
        #expect(
            DateText.iso8601(Date(timeIntervalSinceReferenceDate: 737_058_846.123456)) == "2024-05-10T18:34:06.123456Z")
        #expect(DateText.iso8601(Date(timeIntervalSinceReferenceDate: 0.001)) == "2001-01-01T00:00:00.001Z")
        // A fraction fifteen digits cannot say exactly: the seconds themselves.
        #expect(DateText.iso8601(Date(timeIntervalSinceReferenceDate: 1e-300)) == "@1e-300")
        #expect(DateText.xcodeText(Date(timeIntervalSinceReferenceDate: 0)) == "2001-01-01 00:00:00 +0000")
        #expect(DateText.iso8601(Date(timeIntervalSinceReferenceDate: .nan)) == "@nan")
        #expect(DateText.iso8601(Date(timeIntervalSinceReferenceDate: 1e300)).hasPrefix("@"))
    }

    /// Any date in a few thousand years reads back as the very date written.
    @Test func everyDateReadsBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let seconds =
                Bool.random(using: &generator)
                ? Double.random(in: -1e11...1e11, using: &generator)
                : Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &generator))
                    + Double(Int.random(in: 0..<1_000_000, using: &generator)) / 1e6
            let text = DateText.iso8601(Date(timeIntervalSinceReferenceDate: seconds))
            let again = try #require(DateText.parse(text), "\(text)")
            #expect(again.timeIntervalSinceReferenceDate == seconds, "\(seconds): \(text)")
        }
    }

    /// Years outside four digits, and the byte form, agree with the string forms and read back.
    @Test(arguments: [
        (-70_000_000_000.0, "-0218-10-15T19:33:20.000Z"), (-63_113_904_000.5, "0000-12-31T23:59:59.500Z"),
        (252_423_993_600, "+10000-01-01T00:00:00.000Z"), (31_535_999.999, "2001-12-31T23:59:59.999Z"),
        (-978_307_200.25, "1969-12-31T23:59:59.750Z"),
    ])
    func writesFarYears(seconds: Double, expected: String) throws {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        let text = DateText.iso8601(date)
        #expect(text.hasPrefix(expected), "\(text)")
        var bytes = Array("\"".utf8)
        DateText.writeISO8601(date, into: &bytes)
        #expect(bytes == Array(("\"" + text).utf8))
        let again = try #require(DateText.parse(text), "\(text)")
        #expect(abs(again.timeIntervalSinceReferenceDate - seconds) <= 0.001, "\(text)")
        #expect(DateText.iso8601Seconds(date) == String(text.prefix(text.count - 5)) + "Z")
    }
}
