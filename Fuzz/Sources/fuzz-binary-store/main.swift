import Foundation
import FuzzSupport

// libFuzzer's driver runs `fuzz` (Target.swift) over the corpus and mutations; arguments as for any libFuzzer
// binary (`-runs=N`, `-max_total_time=S`, corpus folders).
exit(FuzzSupport.runDriver(fuzz))
