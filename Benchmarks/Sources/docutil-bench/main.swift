import Foundation

print("docutil benchmarks (release build, median of 7 runs unless noted; ratios against the baseline of each block)\n")
try PredicateBenchmarks.run()
try ObjectGraphBenchmarks.run()
try AtomicStoreBenchmarks.run()
