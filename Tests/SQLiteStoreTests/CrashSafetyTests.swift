import CSQLite
import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// A process killed while it saves leaves a store that opens in the state of its last completed save (or of the save
/// it was in, if that committed): never a mix, never a damaged file.
struct CrashSafetyTests {
    static let counters = 3_000

    static let helper = Fixtures.builtExecutable("sqlite-save-loop")

    /// Every counter's round, read with a fresh coordinator.
    static func rounds(_ url: URL) throws -> [Int64] {
        let coordinator = PersistentStoreCoordinator(model: try Counters.model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        return try context.fetch(FetchRequest(entityName: "Counter")).map {
            try $0.attributeValue(forKey: "round").int64Value ?? -1
        }
    }

    static func integrity(_ url: URL) -> String {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { return "cannot open" }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "?" }
        return String(cString: text)
    }

    /// Starts the save loop, waits until it has completed `saves` saves and started the next, lets it run into
    /// that save for `delay`, then kills it with SIGKILL. Returns the last round it reported as saved.
    static func runAndKill(_ url: URL, saves: Int, delay: Double) throws -> Int64 {
        let process = Process()
        process.executableURL = helper
        process.arguments = [url.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        func lines(_ prefix: String) -> [Int64] {
            text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { Int64($0.dropFirst(prefix.count)) }
        }
        while lines("saving ").count <= saves {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        text += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .uncaughtSignal, "the save loop ended by itself: \(text)")
        return lines("saved ").last ?? 0
    }

    @Test func aStoreKilledDuringASaveOpensInItsPreviousState() throws {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("counters.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(model: try Counters.model())
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for index in 0..<Self.counters {
                let counter = try context.insertNewObject(forEntityName: "Counter")
                try counter.setAttributeValue(.integer64(Int64(index)), forKey: "index")
                try counter.setAttributeValue(.integer64(0), forKey: "round")
            }
            try context.save()
        }
        // Kill at different points of a save, from its start to (usually) after its end.
        for (attempt, delay) in [0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08].enumerated() {
            let before = try Self.rounds(url).max() ?? 0
            let lastReported = try Self.runAndKill(url, saves: 2, delay: delay)
            #expect(lastReported >= before + 2, "attempt \(attempt)")
            #expect(Self.integrity(url) == "ok", "attempt \(attempt)")
            let rounds = try Self.rounds(url)
            #expect(rounds.count == Self.counters, "attempt \(attempt)")
            let distinct = Set(rounds)
            #expect(distinct.count == 1, "attempt \(attempt): a save was half applied: rounds \(distinct.sorted())")
            // The last save it reported is there; the one it was in is either wholly there or not at all.
            if let round = distinct.first { #expect(round == lastReported || round == lastReported + 1) }
        }
    }
}
