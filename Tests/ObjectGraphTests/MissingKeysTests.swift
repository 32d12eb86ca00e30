import Foundation
import Testing

@testable import ObjectGraph

/// The keys a copy into a store that names destinations by key alone gives references to objects not in the store:
/// never an object's key, never one another reference got.
struct MissingKeysTests {
    /// A reference to `key`, an object not in the copy.
    static func missing(_ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: key)
    }

    /// Checks that every key in `references` gets a key of its own that no object has.
    static func expectApart(_ keys: MissingKeys, objects: Set<Int64>, references: [Int64]) throws {
        var given: [Int64: Int64] = [:]
        for reference in references {
            let key = try keys.key(of: Self.missing(reference))
            #expect(!objects.contains(key), "\(reference) got \(key), an object's key")
            if let other = given[key] { Issue.record("\(reference) and \(other) both got \(key)") }
            given[key] = reference
        }
    }

    @Test func renumberedObjectsLeaveEveryReferenceItsOwnKey() throws {
        // Objects renumbered 101...141: references below keep their keys, the rest move above.
        let keys = MissingKeys(renumberedAfter: 100, count: 41)
        let references = Array(Int64(-3)...400)
        try Self.expectApart(keys, objects: Set(101...141), references: references)
        #expect(try keys.key(of: Self.missing(50)) == 50)
    }

    @Test func keptKeysLeaveEveryReferenceItsOwnKey() throws {
        // Objects keep keys 5, 9, 10...20 (one hierarchy) and 30 (another, whose key a reference of the first names).
        let objects = Set<Int64>([5, 9, 30]).union(10...20)
        let keys = MissingKeys(lowest: 5, highest: 30) { objects.contains($0) }
        try Self.expectApart(keys, objects: objects, references: Array(Int64(-3)...200))
        #expect(try keys.key(of: Self.missing(7)) == 7)
    }

    @Test func aReferenceWithNoKeyLeftIsAnError() {
        let keys = MissingKeys(renumberedAfter: 100, count: 41)
        #expect(throws: StoreError.self) { try keys.key(of: Self.missing(.max - 3)) }
        let kept = MissingKeys(lowest: 1, highest: 10) { $0 <= 10 }
        #expect(throws: StoreError.self) { try kept.key(of: Self.missing(.max / 2 + 20)) }
    }
}
