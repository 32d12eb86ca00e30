import Foundation
import ObjectGraph
import TestSupport
import Testing

struct PredicateSuiteTests {
    @Test func theSuiteHasAtLeast300Cases() {
        #expect(PredicateCases.evaluation.count + PredicateCases.parseOnly.count >= 300)
    }

    @Test(arguments: PredicateCases.evaluation)
    func evaluatesAndRoundTrips(format: String, expected: Bool) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(try predicate.evaluate(with: PredicateTestData.person) == expected, "\(format) → \(predicate.format)")
        try checkRoundTrip(predicate, source: format)
    }

    @Test(arguments: PredicateCases.parseOnly)
    func parsesAndRoundTrips(format: String) throws {
        try checkRoundTrip(try ObjectPredicate(format: format), source: format)
    }

    private func checkRoundTrip(_ predicate: ObjectPredicate, source: String) throws {
        let printed = predicate.format
        let reparsed = try ObjectPredicate(format: printed)
        #expect(reparsed == predicate, "\(source) printed as \(printed)")
        #expect(reparsed.format == printed, "\(source)")
    }
}
