import CHeap
import Foundation
import ObjectGraph

/// Issue 4: bytes per managed object (faulted and fired) against a plain Swift class with the same values, and
/// inserting and saving 100,000 objects in the in-memory store.
enum ObjectGraphBenchmarks {
    /// The reference workload: ~10 attributes of mixed types and a to-one/to-many pair.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "number", type: .integer64),
                    AttributeDescription(name: "price", type: .double),
                    AttributeDescription(name: "created", type: .date),
                    AttributeDescription(name: "done", type: .boolean),
                    AttributeDescription(name: "rank", type: .integer32),
                    AttributeDescription(name: "note", type: .string),
                    AttributeDescription(name: "ratio", type: .float),
                    AttributeDescription(name: "small", type: .integer16),
                    AttributeDescription(name: "code", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "group", destination: "Group", inverse: "items")
                ]),
            EntityDescription(
                name: "Group", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "group", toMany: true)
                ]),
        ])
    }

    /// The same values in a plain Swift class.
    final class PlainItem {
        var name: String?
        var number: Int64 = 0
        var price: Double = 0
        var created: Date?
        var done = false
        var rank: Int32 = 0
        var note: String?
        var ratio: Float = 0
        var small: Int16 = 0
        var code: String?
        weak var group: PlainGroup?
        init() {}
    }

    final class PlainGroup {
        var items: [PlainItem] = []
    }

    static func heapBytes() -> Int {
        Int(docutil_heap_bytes())
    }

    static func values(_ i: Int) -> [String: AttributeValue] {
        [
            "name": .string("item number \(i)"), "number": .integer64(Int64(i)), "price": .double(Double(i) / 3),
            "created": .date(Date(timeIntervalSinceReferenceDate: Double(i))), "done": .boolean(i % 2 == 0),
            "rank": .integer32(Int32(i % 1000)), "note": .string("n\(i % 100)"), "ratio": .float(0.5),
            "small": .integer16(7),
            "code": .string("C\(i)"),
        ]
    }

    /// Sets ``values(_:)`` on an item one property at a time, as an app writes them (no dictionary made per object:
    /// the raw and GRDB baselines make none either).
    static func setValues(_ i: Int, on item: ManagedObject) throws {
        try item.setAttributeValue(.string("item number \(i)"), forKey: "name")
        try item.setAttributeValue(.integer64(Int64(i)), forKey: "number")
        try item.setAttributeValue(.double(Double(i) / 3), forKey: "price")
        try item.setAttributeValue(.date(Date(timeIntervalSinceReferenceDate: Double(i))), forKey: "created")
        try item.setAttributeValue(.boolean(i % 2 == 0), forKey: "done")
        try item.setAttributeValue(.integer32(Int32(i % 1000)), forKey: "rank")
        try item.setAttributeValue(.string("n\(i % 100)"), forKey: "note")
        try item.setAttributeValue(.float(0.5), forKey: "ratio")
        try item.setAttributeValue(.integer16(7), forKey: "small")
        try item.setAttributeValue(.string("C\(i)"), forKey: "code")
    }

    static func run() throws {
        let count = 100_000
        print("\nObject graph (\(count) objects of a 10-attribute entity with a to-one/to-many pair)")
        let model = try model()

        // Plain Swift objects holding the same values: the memory baseline.
        var before = heapBytes()
        var plain: [PlainItem] = []
        plain.reserveCapacity(count)
        let plainGroup = PlainGroup()
        for i in 0..<count {
            let item = PlainItem()
            item.name = "item number \(i)"
            item.number = Int64(i)
            item.price = Double(i) / 3
            item.created = Date(timeIntervalSinceReferenceDate: Double(i))
            item.done = i % 2 == 0
            item.rank = Int32(i % 1000)
            item.note = "n\(i % 100)"
            item.ratio = 0.5
            item.small = 7
            item.code = "C\(i)"
            item.group = plainGroup
            plainGroup.items.append(item)
            plain.append(item)
        }
        let plainBytes = Double(heapBytes() - before) / Double(count)
        blackHole(plain)
        plain = []
        plainGroup.items = []

        // Insert and save into the in-memory store.
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        var saveTime = 0.0
        // Measured once, without a warm-up run: a second run would double the store.
        let insertStart = DispatchTime.now().uptimeNanoseconds
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            context.undoManager = nil
            let group = try context.insertNewObject(forEntityName: "Group")
            for i in 0..<count {
                let item = try context.insertNewObject(forEntityName: "Item")
                try setValues(i, on: item)
                try item.setObject(group, forKey: "group")
            }
            let start = DispatchTime.now().uptimeNanoseconds
            try context.save()
            saveTime = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        let insertTime = Double(DispatchTime.now().uptimeNanoseconds - insertStart) / 1e9
        report("insert 100,000 objects + save (in-memory store)", seconds: insertTime)
        report("  of which save", seconds: saveTime)

        // Faults and fired objects in a fresh context.
        let ids = try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest(entityName: "Item"))
        let context = ManagedObjectContext(coordinator: coordinator)
        before = heapBytes()
        var faults: [ManagedObject] = []
        faults.reserveCapacity(ids.count)
        for id in ids { faults.append(try context.object(with: id)) }
        precondition(ids.count == count, "the store holds \(ids.count) objects, expected \(count)")
        let faultBytes = Double(heapBytes() - before) / Double(count)
        before = heapBytes()
        let fireStart = DispatchTime.now().uptimeNanoseconds
        for object in faults { blackHole(try object.attributeValue(forKey: "name")) }
        let fireTime = Double(DispatchTime.now().uptimeNanoseconds - fireStart) / 1e9
        let firedBytes = Double(heapBytes() - before) / Double(count) + faultBytes
        report("fire 100,000 faults", seconds: fireTime)
        // The fired objects above borrow the store's value buffers (copied when one changes); a second context's
        // objects, fired while those hold the loans, copy them: what an object with its own values costs.
        let second = ManagedObjectContext(coordinator: coordinator)
        before = heapBytes()
        var copies: [ManagedObject] = []
        copies.reserveCapacity(ids.count)
        for id in ids { copies.append(try second.object(with: id)) }
        for object in copies { blackHole(try object.attributeValue(forKey: "name")) }
        let ownedBytes = Double(heapBytes() - before) / Double(count)
        let fetchTime = try Benchmark(name: "fetch", iterations: 3).measure {
            let reader = ManagedObjectContext(coordinator: coordinator)
            blackHole(
                try reader.fetch(
                    FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number < 50000"))))
        }
        report("fetch 50,000 of 100,000 by predicate (in-memory store)", seconds: fetchTime)
        print(
            String(
                format:
                    "memory per object: plain class %.0f B, fault %.0f B (goal < 200), fired %.0f B = %.2f× plain (goal ≤ 1.5×)",
                plainBytes, faultBytes, firedBytes, firedBytes / plainBytes))
        print(
            String(
                format:
                    "  fired borrowing the store's values %.0f B; fired with values of its own %.0f B = %.2f× plain",
                firedBytes, ownedBytes, ownedBytes / plainBytes))
        print("  (heap bytes from mallinfo2 (uordblks + hblkhd), including the context's registry and the object ID)")
        blackHole(faults)
        blackHole(copies)
    }
}
