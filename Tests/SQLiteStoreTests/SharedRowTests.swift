import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph
@testable import SQLiteStore

/// Contexts on several threads fill their objects from the rows one coordinator caches: one object at a time borrows
/// a cached row's buffer, the others copy it, and every object copies its own before it changes. Whatever each
/// context changes (unsaved) stays its own; the rows, and what a fresh context reads, stay as stored.
struct SharedRowTests {
    static let counters = 200

    @Test func contextsOnManyThreadsSeeTheirOwnChangesOverSharedRows() throws {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("shared.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try Counters.model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            for index in 0..<Self.counters {
                let counter = try context.insertNewObject(forEntityName: "Counter")
                try counter.setAttributeValue(.integer64(Int64(index)), forKey: "index")
                try counter.setAttributeValue(.integer64(0), forKey: "round")
                try counter.setAttributeValue(.string("counter \(index)"), forKey: "label")
            }
            try context.save()
        }
        let problems = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            do {
                for round in 1...15 {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    var request = FetchRequest(
                        entityName: "Counter", sortDescriptors: [ObjectSortDescriptor(keyPath: "index")])
                    request.returnsObjectsAsFaults = false
                    let counters = try context.fetch(request)
                    let mark = Int64(worker * 1_000 + round)
                    // Every other counter (by worker) changed here, not saved.
                    for (i, counter) in counters.enumerated() where i % 2 == worker % 2 {
                        try counter.setAttributeValue(.integer64(mark), forKey: "round")
                        try counter.setAttributeValue(.string("worker \(worker)"), forKey: "label")
                    }
                    for (i, counter) in counters.enumerated() {
                        let changed = i % 2 == worker % 2
                        let round = try counter.attributeValue(forKey: "round")
                        let label = try counter.attributeValue(forKey: "label")
                        let expected: (AttributeValue, AttributeValue) =
                            changed
                            ? (.integer64(mark), .string("worker \(worker)"))
                            : (.integer64(0), .string("counter \(i)"))
                        if round != expected.0 || label != expected.1 {
                            problems.withLock { $0.append("worker \(worker) counter \(i): \(round) \(label)") }
                        }
                    }
                }
            } catch {
                problems.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        let found = problems.withLock { $0 }
        #expect(found.count == 0, "the first of them: \(found.prefix(5))")
        // What is stored (and cached) is as saved.
        let fresh = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Counter", sortDescriptors: [ObjectSortDescriptor(keyPath: "index")])
        request.returnsObjectsAsFaults = false
        let stored = try fresh.fetch(request)
        #expect(stored.count == Self.counters)
        for (i, counter) in stored.enumerated() {
            #expect(try counter.attributeValue(forKey: "round") == .integer64(0))
            #expect(try counter.attributeValue(forKey: "label") == .string("counter \(i)"))
        }
    }
}
