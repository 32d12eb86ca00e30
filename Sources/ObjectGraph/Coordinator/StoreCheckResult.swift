import Foundation

/// What a store's own check of its file found, and which kinds of problem it looked for (so the generic checks
/// need not look again).
public struct StoreCheckResult: Sendable {
    /// The problems found.
    public var problems: [StoreProblem]
    /// The kinds the store checked completely.
    public var coveredKinds: Set<StoreProblem.Kind>
    /// Problems found beyond the listing limit, by kind (counted, not listed).
    public var unlisted: [StoreProblem.Kind: Int] = [:]
    /// How many of each kind are listed.
    private var listed: [StoreProblem.Kind: Int] = [:]

    /// Creates a result.
    /// - Parameters:
    ///   - problems: the problems listed.
    ///   - coveredKinds: the kinds of problem the check looked for.
    public init(problems: [StoreProblem] = [], coveredKinds: Set<StoreProblem.Kind> = []) {
        self.problems = problems
        self.coveredKinds = coveredKinds
    }

    /// Lists a problem, or only counts it when `limit` of its kind are listed already.
    /// - Parameters:
    ///   - problem: the problem.
    ///   - limit: the most problems of its kind to list.
    public mutating func add(_ problem: StoreProblem, limit: Int) {
        let count = listed[problem.kind] ?? problems.lazy.filter { $0.kind == problem.kind }.count
        if count < limit {
            problems.append(problem)
            listed[problem.kind] = count + 1
        } else {
            listed[problem.kind] = count
            unlisted[problem.kind, default: 0] += 1
        }
    }
}
