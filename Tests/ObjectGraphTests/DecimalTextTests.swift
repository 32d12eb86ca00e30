import Foundation
import Testing

@testable import ObjectGraph

/// `DecimalText` writes exactly what Foundation's `NSDecimalNumber` writes in the POSIX locale, and reads it back.
@Suite struct DecimalTextTests {
    @Test func matchesFoundationAndRoundTrips() throws {
        let posix = Locale(identifier: "en_US_POSIX")
        var generator = SystemRandomNumberGenerator()
        var samples: [Decimal] = [
            0, 1, -1, .nan, Decimal(string: "0.001")!, Decimal(string: "-123.4500")!,
            Decimal(string: "1e30")!, Decimal(string: "1e-30")!, Decimal.greatestFiniteMagnitude,
            Decimal.leastNonzeroMagnitude,
            Decimal(string: "340282366920938463463374607431768211455")!,
        ]
        for _ in 0..<20_000 {
            let mantissa = Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator)
            let exponent = Int.random(in: -20...20, using: &generator)
            samples.append(
                Decimal(
                    sign: mantissa < 0 ? .minus : .plus, exponent: exponent, significand: Decimal(mantissa.magnitude)))
        }
        for value in samples {
            let text = DecimalText.string(value)
            #expect(text == NSDecimalNumber(decimal: value).description(withLocale: posix), "\(value)")
            if !value.isNaN { #expect(DecimalText.parse(text) == value, "\(text)") }
        }
        #expect(DecimalText.parse("abc") == nil)
    }

    /// Numbers over the whole range of mantissa (up to 128 bits) and exponent are written as Foundation's `description`
    /// writes them, by hand (the storage layout is recognised on this platform), as a string and as appended bytes.
    @Test func writesWholeRangeAsFoundationDoes() {
        #expect(DecimalText.Parts.layoutHolds, "the hand formatter is not used here, so this test checks nothing new")
        var generator = SystemRandomNumberGenerator()
        var samples: [Decimal] = [
            Decimal(sign: .plus, exponent: 40, significand: 0), Decimal(sign: .minus, exponent: -40, significand: 0),
            Decimal(sign: .plus, exponent: -1, significand: 10), Decimal(sign: .minus, exponent: 127, significand: 9),
            Decimal(sign: .plus, exponent: -128, significand: 7), Decimal.greatestFiniteMagnitude,
            -Decimal.greatestFiniteMagnitude, Decimal.leastNonzeroMagnitude, .nan,
        ]
        for _ in 0..<20_000 {
            var significand = Decimal(UInt64.random(in: 0...UInt64.max, using: &generator))
            for _ in 0..<Int.random(in: 0...1, using: &generator) {
                significand *= Decimal(UInt64.random(in: 0...UInt64.max, using: &generator))
            }
            let shift = Int.random(in: 0...40, using: &generator)
            samples.append(
                Decimal(
                    sign: Bool.random(using: &generator) ? .minus : .plus,
                    exponent: Int.random(in: -90...90, using: &generator) - shift, significand: significand))
        }
        for value in samples {
            var bytes = Array("x".utf8)
            DecimalText.write(value, into: &bytes)
            #expect(DecimalText.string(value) == value.description, "\(value)")
            #expect(bytes == Array(("x" + value.description).utf8), "\(value)")
        }
    }

    /// The hand-written reader of plain texts gives what Foundation's parser gives, to the same text back.
    @Test func readsPlainTextsAsFoundationDoes() {
        let posix = Locale(identifier: "en_US_POSIX")
        var generator = SystemRandomNumberGenerator()
        var texts = [
            "0", "-0", "0.0", "-0.000", "1.50", "00012.3400", ".5", "5.", "-.5", "123456789012345678",
            "999999999999999999", "1234567890123456789", "0.000000000000000000000001", "-12.5", "1000.000",
        ]
        for _ in 0..<20_000 {
            let whole = Int64.random(in: -1_000_000_000...1_000_000_000, using: &generator)
            let fraction = String(UInt64.random(in: 0...999_999_999_999, using: &generator))
            let zeros = String(repeating: "0", count: Int.random(in: 0...4, using: &generator))
            texts.append("\(whole).\(zeros)\(fraction)")
        }
        for text in texts {
            let foundation = Decimal(string: text, locale: posix)
            #expect(DecimalText.parse(text) == foundation, "\(text)")
            #expect(DecimalText.parse(text).map(DecimalText.string) == foundation.map(DecimalText.string), "\(text)")
        }
        for bad in ["", "-", ".", "1..2", "1.2.3", "--1", "1-", "1,5", " 1", "1e3x"] {
            #expect(DecimalText.parse(bad) == Decimal(string: bad, locale: posix), "\(bad)")
        }
    }
}
