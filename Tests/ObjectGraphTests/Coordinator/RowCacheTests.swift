import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The coordinator's row cache keeps one row per store, entity and key, finds it by ID or by key alike (a store's fetch
/// hands rows over by key), and forgets exactly what it is told to: random keys from across the range, in runs up or
/// down or anywhere, replacements, removals and stores dropped, against a dictionary by ID.
struct RowCacheTests {
    static let stores = ["6F9619FF-8B86-D011-B42D-00C04FC964FF", "B1A2C3D4-0000-4000-8000-000000000001"]
    static let entities = ["Item", "Other"]

    /// A snapshot of `id` whose version tells it from another snapshot of the same object.
    static func row(_ id: ManagedObjectID, version: Int64) -> ObjectSnapshot {
        ObjectSnapshot(objectID: id, version: version)
    }

    /// A key from one of several ranges: runs from 1, far beyond them, below them, negative and at the limits.
    static func key(_ random: inout RandomGraph.Generator) -> Int64 {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: Int64.random(in: Int64.min...Int64.max, using: &random)
        case 1: [Int64.min, Int64.max, 0, -1, 1 << 40].randomElement(using: &random)!
        case 2: Int64.random(in: 1_000_000...1_000_100, using: &random)
        case 3: Int64.random(in: -50...0, using: &random)
        default: Int64.random(in: 1...3_000, using: &random)
        }
    }

    static func expectSame(_ cache: RowCache, _ expected: [ManagedObjectID: Int64], _ place: String) {
        #expect(cache.count == expected.count, "\(place)")
        #expect(cache.isEmpty == expected.isEmpty, "\(place)")
        for (id, version) in expected {
            #expect(cache[id]?.version == version, "\(place): \(id)")
            // By key, as a store hands a row over without making its ID.
            let prefix = ObjectIDPrefix(storeIdentifier: id.storeIdentifier ?? "", entityName: id.entityName)
            #expect(cache[ObjectSnapshot.Identity.key(prefix, id.primaryKey)]?.version == version, "\(place): \(id)")
        }
    }

    @Test func randomRowsAreKeptFoundReplacedAndForgottenAsInADictionary() throws {
        let layout = try Self.layout()
        for round in UInt64(0)..<40 {
            var random = RandomGraph.Generator(state: round &* 6_700_417)
            var cache = RowCache()
            var expected: [ManagedObjectID: Int64] = [:]
            var version: Int64 = 0
            // Keys in runs up or down (as fetches read them, or a list taken from its end), or anywhere.
            let run = [Int64(1), -1, 0].randomElement(using: &random)!
            var next: Int64 = Int64.random(in: 1_000...2_000, using: &random)
            for step in 0..<600 {
                let store = Self.stores.randomElement(using: &random)!
                let entity = Self.entities.randomElement(using: &random)!
                let key: Int64
                if run != 0 {
                    next += run * Int64.random(in: 1...3, using: &random)
                    key = Bool.random(using: &random) ? next : Self.key(&random)
                } else {
                    key = Self.key(&random)
                }
                let id = ManagedObjectID(entityName: entity, storeIdentifier: store, primaryKey: key)
                version += 1
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    cache[id] = nil
                    expected[id] = nil
                case 1:
                    cache[id] = Self.row(id, version: version)
                    expected[id] = version
                case 2 where step % 50 == 0:
                    cache.removeRows(ofStore: store)
                    expected = expected.filter { $0.key.storeIdentifier != store }
                case 3, 4:
                    // A fetch's rows, moved in at once (indexed when first looked up): some of them the same object
                    // twice, the later one kept.
                    var batch: [ObjectSnapshot] = []
                    for _ in 0..<Int.random(in: 0...12, using: &random) {
                        let again =
                            batch.isEmpty || Bool.random(using: &random) ? nil : batch.randomElement(using: &random)
                        let rowID =
                            again?.objectID
                            ?? ManagedObjectID(
                                entityName: Self.entities.randomElement(using: &random)!,
                                storeIdentifier: Self.stores.randomElement(using: &random)!,
                                primaryKey: Self.key(&random))
                        version += 1
                        let prefix = ObjectIDPrefix(
                            storeIdentifier: rowID.storeIdentifier ?? "", entityName: rowID.entityName)
                        batch.append(
                            ObjectSnapshot(
                                identity: .key(prefix, rowID.primaryKey), version: version,
                                values: SlotValues(layout: layout)))
                        expected[rowID] = version
                    }
                    cache.insert(moving: &batch)
                    #expect(batch.isEmpty, "round \(round), step \(step)")
                default:
                    // Known by key (as a store's fetch hands rows over).
                    let prefix = ObjectIDPrefix(storeIdentifier: store, entityName: entity)
                    cache.insert(
                        ObjectSnapshot(
                            identity: .key(prefix, key), version: version,
                            values: SlotValues(layout: layout)))
                    expected[id] = version
                }
                if step % 100 == 99 { Self.expectSame(cache, expected, "round \(round), step \(step)") }
            }
            Self.expectSame(cache, expected, "round \(round)")
            // Nothing else is found: a key next to each one held, in each store and entity.
            for (id, _) in expected.prefix(50) {
                for delta: Int64 in [-1, 1] {
                    let (near, overflow) = id.primaryKey.addingReportingOverflow(delta)
                    guard !overflow else { continue }
                    let other = ManagedObjectID(
                        entityName: id.entityName, storeIdentifier: id.storeIdentifier ?? "", primaryKey: near)
                    #expect((cache[other] != nil) == (expected[other] != nil), "round \(round): \(other)")
                }
            }
        }
    }

    @Test func rowsFarFromTheOthersAreKeptReplacedAndForgotten() {
        var cache = RowCache()
        func id(_ key: Int64) -> ManagedObjectID {
            ManagedObjectID(entityName: "Item", storeIdentifier: Self.stores[0], primaryKey: key)
        }
        cache[id(1)] = Self.row(id(1), version: 1)
        // Far from the first row on both sides, then reached by rows in order, then kept again and forgotten.
        cache[id(5_000)] = Self.row(id(5_000), version: 2)
        cache[id(-5_000)] = Self.row(id(-5_000), version: 3)
        for key in Int64(2)...4_999 { cache[id(key)] = Self.row(id(key), version: 10) }
        for key in Int64(-4_999)...0 { cache[id(key)] = Self.row(id(key), version: 10) }
        #expect(cache.count == 10_001)
        #expect(cache[id(5_000)]?.version == 2)
        #expect(cache[id(-5_000)]?.version == 3)
        cache[id(5_000)] = Self.row(id(5_000), version: 4)
        cache[id(5_001)] = Self.row(id(5_001), version: 5)
        cache[id(-5_000)] = Self.row(id(-5_000), version: 6)
        #expect(cache.count == 10_002)
        #expect(cache[id(5_000)]?.version == 4)
        #expect(cache[id(-5_000)]?.version == 6)
        cache[id(5_000)] = nil
        cache[id(-5_000)] = nil
        #expect(cache[id(5_000)] == nil)
        #expect(cache[id(-5_000)] == nil)
        #expect(cache.count == 10_000)
    }

    /// A copy of the cache is its own: rows moved into the original after the copy (or into the copy) are not in the
    /// other, whether or not a lookup indexed the rows both held first.
    @Test func aCopyKeepsItsRowsWhileTheOriginalChanges() throws {
        let layout = try Self.layout()
        func batch(_ keys: ClosedRange<Int64>, version: Int64) -> [ObjectSnapshot] {
            let prefix = ObjectIDPrefix(storeIdentifier: Self.stores[0], entityName: "Item")
            return keys.map {
                ObjectSnapshot(identity: .key(prefix, $0), version: version, values: SlotValues(layout: layout))
            }
        }
        func id(_ key: Int64) -> ManagedObjectID {
            ManagedObjectID(entityName: "Item", storeIdentifier: Self.stores[0], primaryKey: key)
        }
        for lookUpFirst in [false, true] {
            var cache = RowCache()
            var rows = batch(1...10, version: 1)
            cache.insert(moving: &rows)
            var copy = cache
            if lookUpFirst { #expect(copy[id(3)]?.version == 1) }
            var more = batch(5...20, version: 2)
            cache.insert(moving: &more)
            cache[id(1)] = nil
            var other = batch(30...31, version: 3)
            copy.insert(moving: &other)
            #expect(cache.count == 19, "\(lookUpFirst)")
            #expect(copy.count == 12, "\(lookUpFirst)")
            #expect(cache[id(1)] == nil && copy[id(1)]?.version == 1, "\(lookUpFirst)")
            #expect(cache[id(7)]?.version == 2 && copy[id(7)]?.version == 1, "\(lookUpFirst)")
            #expect(cache[id(15)]?.version == 2 && copy[id(15)] == nil, "\(lookUpFirst)")
            #expect(cache[id(30)] == nil && copy[id(30)]?.version == 3, "\(lookUpFirst)")
        }
    }

    @Test func aTemporaryIDHasNoRow() {
        var cache = RowCache()
        let temporary = ManagedObjectID(temporaryFor: "Item")
        cache[temporary] = Self.row(temporary, version: 1)
        #expect(cache.isEmpty)
        #expect(cache[temporary] == nil)
    }

    static func layout() throws -> EntityLayout {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string)])
        ])
        return try #require(model.layout(of: "Item"))
    }
}
