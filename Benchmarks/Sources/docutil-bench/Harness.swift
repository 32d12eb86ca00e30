import Foundation

/// A plain timing harness: runs a body several times and reports the median, so one slow run (the machine is
/// shared) does not decide the figure. Results are printed as a table with ratios against a baseline measured in the
/// same run.
struct Benchmark {
    var name: String
    var iterations: Int = 7

    /// Runs `body` and returns the median wall time in seconds.
    func measure(_ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        try body()  // warm-up
        for _ in 0..<iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times.sorted()[times.count / 2]
    }
}

/// Several bodies doing the same work, timed in turns: each round runs every body once (the order rotated from round
/// to round), so a slow spell of the shared machine falls on all of them alike instead of on whichever ran then. A
/// ratio is the median over the rounds of one body's time divided by another's in the same round, which a slow
/// spell longer than a round leaves as it is; medians of each body's times alone are kept for the table's times.
struct Comparison {
    /// The times of each body, round by round: `times[body][round]`.
    private(set) var times: [[Double]]

    /// Runs each body once untimed (warm-up, unless `warmUp` is false), then `rounds` rounds of every body in turn.
    /// `prepare(round)` runs before each round, untimed (for work that needs fresh data each time).
    init(
        rounds: Int, warmUp: Bool = true, prepare: (Int) throws -> Void = { _ in },
        _ bodies: [() throws -> Void]
    ) throws {
        if warmUp { for body in bodies { try body() } }
        times = Array(repeating: [], count: bodies.count)
        for round in 0..<rounds {
            try prepare(round)
            for turn in 0..<bodies.count {
                let body = (turn + round) % bodies.count
                let start = DispatchTime.now().uptimeNanoseconds
                try bodies[body]()
                times[body].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
    }

    /// The median time of body `index`, in seconds.
    func median(_ index: Int) -> Double { Self.median(times[index]) }

    /// The median over the rounds of body `index`'s time divided by body `baseline`'s.
    func ratio(_ index: Int, to baseline: Int) -> Double {
        Self.median(zip(times[index], times[baseline]).map { $0 / $1 })
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Prints one line of the results table.
func report(_ name: String, seconds: Double, baseline: Double? = nil, goal: String = "") {
    let ms = String(format: "%9.2f ms", seconds * 1000)
    let ratio = baseline.map { String(format: "%6.2f×", seconds / $0) } ?? "       "
    print("\(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(ms)  \(ratio)  \(goal)")
}

/// Prints one line of the results table with a ratio measured in turns (see ``Comparison``).
func report(_ name: String, seconds: Double, ratio: Double, goal: String = "") {
    let ms = String(format: "%9.2f ms", seconds * 1000)
    print(
        "\(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(ms)  \(String(format: "%6.2f×", ratio))  \(goal)")
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
