import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// Two contexts change the same objects at random; the first saves, then the second under each merge policy: what the
/// store holds afterwards is what the policy says, property by property (worked out here from the two sets of
/// changes), and the default policy refuses exactly when their objects meet.
struct RandomMergeTests {
    static let cases: [(StoreUnderTest, Bool, MergePolicy)] = StoreUnderTest.all.flatMap { store in
        MergePolicy.allCases.flatMap { policy in
            // Two coordinators over one file (as two programs) where the store is a file read row by row.
            [(store, false, policy)] + (store.type == SQLiteStore.typeName ? [(store, true, policy)] : [])
        }
    }

    /// Each thing's values by id.
    static func values(_ context: ManagedObjectContext) throws -> [Int64: [String: AttributeValue]] {
        var result: [Int64: [String: AttributeValue]] = [:]
        for thing in try context.fetch(FetchRequest(entityName: "Thing")) {
            guard case .integer64(let id) = try thing.attributeValue(forKey: "id") else { continue }
            var row: [String: AttributeValue] = [:]
            for (name, _) in RandomValuePredicateTests.attributes { row[name] = try thing.attributeValue(forKey: name) }
            result[id] = row
        }
        return result
    }

    /// Random changes to a context's things: what differs afterwards, (id, attribute) → new value (a value set
    /// twice, back to what it was, is no change).
    static func change(_ context: ManagedObjectContext, _ random: inout RandomGraph.Generator) throws
        -> [Int64: [String: AttributeValue]]
    {
        let before = try values(context)
        let things = try context.fetch(FetchRequest(entityName: "Thing"))
        for _ in 0..<12 {
            let thing = things.randomElement(using: &random)!
            let (name, type) = RandomValuePredicateTests.attributes.randomElement(using: &random)!
            try thing.setAttributeValue(RandomValuePredicateTests.value(type, &random), forKey: name)
        }
        var made: [Int64: [String: AttributeValue]] = [:]
        for (id, row) in try values(context) {
            for (name, value) in row where before[id]?[name] != value { made[id, default: [:]][name] = value }
        }
        return made
    }

    @Test(arguments: cases)
    func aSecondSaveMergesAsItsPolicySays(store: StoreUnderTest, twoCoordinators: Bool, policy: MergePolicy) throws {
        let model = try RandomValuePredicateTests.model()
        for seed in UInt64(1)...3 {
            var random = RandomGraph.Generator(state: seed &* 2_654_435_761)
            let (coordinator, url) = try store.makeStore(model: model, named: "merge")
            let setup = ManagedObjectContext(coordinator: coordinator)
            for id in 0..<8 { try RandomValuePredicateTests.insertThing(id, into: setup, &random) }
            try setup.save()
            var other = coordinator
            if twoCoordinators, let url {
                other = PersistentStoreCoordinator(model: model)
                try other.addPersistentStore(type: store.type, url: url)
            }
            let a = ManagedObjectContext(coordinator: coordinator)
            let b = ManagedObjectContext(coordinator: other)
            b.mergePolicy = policy
            let original = try Self.values(a)
            _ = try Self.values(b)  // b reads every object before a saves
            let byA = try Self.change(a, &random)
            let byB = try Self.change(b, &random)
            try a.save()
            let conflicting = Set(byA.keys).intersection(byB.keys)
            var expected = original
            for (id, changes) in byA { for (name, value) in changes { expected[id]?[name] = value } }
            switch policy {
            case .error:
                if conflicting.isEmpty {
                    try b.save()
                    for (id, changes) in byB { for (name, value) in changes { expected[id]?[name] = value } }
                } else {
                    #expect(throws: ContextError.self, "\(store) seed \(seed)") { try b.save() }
                }
            case .storeTrumps, .objectTrumps, .overwrite, .rollback:
                try b.save()
                for (id, changes) in byB {
                    guard conflicting.contains(id) else {
                        for (name, value) in changes { expected[id]?[name] = value }
                        continue
                    }
                    switch policy {
                    case .storeTrumps:
                        for (name, value) in changes where byA[id]?[name] == nil { expected[id]?[name] = value }
                    case .objectTrumps:
                        for (name, value) in changes { expected[id]?[name] = value }
                    case .overwrite:
                        // b's object whole: what b read, with b's changes.
                        expected[id] = original[id]
                        for (name, value) in changes { expected[id]?[name] = value }
                    default:
                        break
                    }
                }
            }
            var reader = coordinator
            if let url {
                reader = PersistentStoreCoordinator(model: model)
                try reader.addPersistentStore(type: store.type, url: url)
            }
            let stored = try Self.values(ManagedObjectContext(coordinator: reader))
            for id in expected.keys.sorted() where stored[id] != expected[id] {
                let keys = (expected[id] ?? [:]).keys.filter { stored[id]?[$0] != expected[id]?[$0] }.sorted()
                Issue.record(
                    "\(store)\(twoCoordinators ? " (two coordinators)" : ""), \(policy), seed \(seed): thing \(id): \(keys.map { "\($0) stored \(stored[id]?[$0].map { "\($0)" } ?? "-"), expected \(expected[id]?[$0].map { "\($0)" } ?? "-") (a: \(byA[id]?[$0].map { "\($0)" } ?? "-"), b: \(byB[id]?[$0].map { "\($0)" } ?? "-"))" })"
                )
            }
        }
    }
}
