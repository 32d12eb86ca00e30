import Foundation
import ObjectGraph
import Testing

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
