import Foundation
import ObjectGraph
import Testing

@testable import DocUtilCLI

/// `query`'s order without `--sort`: by entity name, then key, whatever order the store's rows come in (one
/// entity's rows in key order, sub-entities interleaved with it, or any order at all).
struct QueryOrderTests {
    /// The order as the plain definition gives it: names compared as strings, then keys.
    static func expected(_ snapshots: [ObjectSnapshot]) -> [ManagedObjectID] {
        snapshots.map(\.objectID).sorted { ($0.entityName, $0.primaryKey) < ($1.entityName, $1.primaryKey) }
    }

    static func snapshots(_ rows: [(String, Int64)]) -> [ObjectSnapshot] {
        rows.map { ObjectSnapshot(objectID: ManagedObjectID(entityName: $0.0, storeIdentifier: "S", primaryKey: $0.1)) }
    }

    @Test(
        arguments: [
            // Already in order: one entity, and entities in runs in name order.
            [("Person", 1), ("Person", 2), ("Person", 9)],
            [("Manager", 3), ("Manager", 7), ("Person", 1), ("Person", 2)],
            // A table's rows in key order with a sub-entity among them (how SQLite gives Person and Manager).
            [("Person", 1), ("Manager", 2), ("Person", 3), ("Person", 4), ("Manager", 5)],
            // Runs out of name order; keys out of order within one entity; names that sort by code point.
            [("b", 1), ("a", 2), ("B", 3), ("a", 1), ("é", 4), ("e", 5), ("Z", 6)],
            [("Person", 5), ("Person", 2), ("Person", 9), ("Person", 1)],
            [],
            [("Only", 42)],
        ] as [[(String, Int64)]])
    func matchesAreListedByEntityNameThenKey(rows: [(String, Int64)]) {
        let snapshots = Self.snapshots(rows)
        #expect(Query.byEntityAndKey(snapshots).map(\.objectID) == Self.expected(snapshots))
    }

    @Test func randomRowsOfManyEntitiesAreListedByEntityNameThenKey() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let names = (0..<Int.random(in: 1...20, using: &generator)).map { "E\($0 * 7 % 13)\(round % 3)" }
            var keys = Set<String>()
            var rows: [(String, Int64)] = []
            for _ in 0..<Int.random(in: 0...300, using: &generator) {
                let row = (
                    names[Int.random(in: names.indices, using: &generator)],
                    Int64.random(in: 1...500, using: &generator)
                )
                // One row per object, as a store gives.
                if keys.insert("\(row.0)/\(row.1)").inserted { rows.append(row) }
            }
            let snapshots = Self.snapshots(rows)
            #expect(Query.byEntityAndKey(snapshots).map(\.objectID) == Self.expected(snapshots), "round \(round)")
            // The same rows in key order, entities interleaved (as one table's rows come), equal keys of two
            // entities included.
            let byKey = Self.snapshots(rows.sorted { $0.1 < $1.1 })
            #expect(Query.byEntityAndKey(byKey).map(\.objectID) == Self.expected(byKey), "round \(round), by key")
        }
    }
}
