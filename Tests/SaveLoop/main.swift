// Test helper for the crash-safety test: saves a SQLite store of `Counters` over and over, each save moving every
// counter to the next round, and prints "saving N" before and "saved N" after each. The test kills it with SIGKILL at a random moment.
import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: sqlite-save-loop STORE\n".utf8))
    exit(64)
}
do {
    SQLiteStore.register()
    let coordinator = PersistentStoreCoordinator(model: try Counters.model())
    try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: URL(fileURLWithPath: CommandLine.arguments[1]))
    let context = ManagedObjectContext(coordinator: coordinator)
    let counters = try context.fetch(FetchRequest(entityName: "Counter"))
    var round = try counters.first?.attributeValue(forKey: "round").int64Value ?? 0
    while true {
        round += 1
        for counter in counters {
            try counter.setAttributeValue(.integer64(round), forKey: "round")
            try counter.setValue(.string("round \(round) of a long-running save loop"), forKey: "label")
        }
        FileHandle.standardOutput.write(Data("saving \(round)\n".utf8))
        try context.save()
        FileHandle.standardOutput.write(Data("saved \(round)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("sqlite-save-loop: \(error)\n".utf8))
    exit(1)
}
