import Foundation

// `docutil-bench [predicate|graph|atomic|sqlite|document|import …]` runs the named blocks; no argument runs them all.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "import-child" {
    // The import benchmark's child process (see ImportBenchmarks).
    try ImportBenchmarks.child(URL(fileURLWithPath: CommandLine.arguments[2]))
    exit(0)
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "company" {
    // The company document of Benchmarks/cli-bench.
    try CompanyDocument.make(URL(fileURLWithPath: CommandLine.arguments[2]))
    exit(0)
}
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "convert-floor" {
    // The floor of `convert` XML -> SQLite in Benchmarks/cli-bench.
    try ConvertFloor.run(xml: CommandLine.arguments[2], sqlite: CommandLine.arguments[3])
    exit(0)
}
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "profile-sqlite" {
    // One library operation of the SQLite block, repeated, for a profiler (`perf record`): fetch, faults, indexed,
    // insert, update, delete (each after an insert of its own).
    try SQLiteBenchmarks.profile(CommandLine.arguments[2], times: Int(CommandLine.arguments[3]) ?? 10)
    exit(0)
}
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "profile-atomic" {
    // One operation of the atomic block, repeated, for a profiler: xml-save, xml-load, binary-save, binary-load.
    try AtomicStoreBenchmarks.profile(CommandLine.arguments[2], times: Int(CommandLine.arguments[3]) ?? 10)
    exit(0)
}
let selected = Set(CommandLine.arguments.dropFirst())
func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

print("docutil benchmarks (release build, median of 7 runs unless noted; ratios against the baseline of each block)\n")
if wanted("predicate") { try PredicateBenchmarks.run() }
if wanted("graph") { try ObjectGraphBenchmarks.run() }
if wanted("atomic") { try AtomicStoreBenchmarks.run() }
if wanted("sqlite") { try SQLiteBenchmarks.run() }
if wanted("document") { try DocumentBenchmarks.run() }
if wanted("import") { try ImportBenchmarks.run() }
