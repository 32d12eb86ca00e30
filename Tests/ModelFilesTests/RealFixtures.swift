import TestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// Skips a test, with a message, when `../shared/fixtures/real` is not beside the checkout.
    static var needsRealFixtures: Self {
        .enabled(if: Fixtures.realAvailable, "../shared/fixtures/real is absent: skipping tests on real Apple files")
    }
}
