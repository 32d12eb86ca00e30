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
}
