import Foundation

print("docutil benchmarks (release build, median of 7 runs; ratios against the baseline of each block)\n")
try PredicateBenchmarks.run()
