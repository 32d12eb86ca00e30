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

/// Prints one line of the results table.
func report(_ name: String, seconds: Double, baseline: Double? = nil, goal: String = "") {
    let ms = String(format: "%9.2f ms", seconds * 1000)
    let ratio = baseline.map { String(format: "%6.2f×", seconds / $0) } ?? "       "
    print("\(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(ms)  \(ratio)  \(goal)")
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
