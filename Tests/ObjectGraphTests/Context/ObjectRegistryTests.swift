import Foundation
import Testing

@testable import ObjectGraph

/// The context's registry keeps at most one object per ID whichever way it stores it: in a table per store and
/// entity indexed by key, or in a dictionary (temporary IDs, keys too far beyond the others).
struct ObjectRegistryTests {
    static let store = "6F9619FF-8B86-D011-B42D-00C04FC964FF"

    static func layout() throws -> EntityLayout {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Other", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        return try #require(model.layout(of: "Item"))
    }

    static func id(_ key: Int64, entity: String = "Item", store: String = store) -> ManagedObjectID {
        ManagedObjectID(entityName: entity, storeIdentifier: store, primaryKey: key)
    }

    /// An object per key, registered in the given order; every one is then found by an equal ID (a new instance).
    static func registry(keys: [Int64], reserving: Bool) throws -> (ObjectRegistry, [Int64: ManagedObject]) {
        let layout = try layout()
        var registry = ObjectRegistry()
        if reserving { registry.reserve(keys.count) }
        var objects: [Int64: ManagedObject] = [:]
        for key in keys {
            let object = ManagedObject(layout: layout, objectID: id(key))
            objects[key] = object
            registry[id(key)] = object
        }
        return (registry, objects)
    }

    static func expectHolds(_ registry: inout ObjectRegistry, _ objects: [Int64: ManagedObject]) {
        #expect(registry.count == objects.count)
        for (key, object) in objects { #expect(registry[id(key)] === object, "key \(key)") }
        let listed = registry.values.map(ObjectIdentifier.init)
        #expect(listed.count == objects.count)
        let missingOrExtra = Set(listed).symmetricDifference(objects.values.map(ObjectIdentifier.init))
        #expect(missingOrExtra.isEmpty, "\(missingOrExtra.count) objects listed wrongly")
    }

    @Test(arguments: [false, true])
    func keysInAnyOrderAreFoundByEqualIDs(reserving: Bool) throws {
        let ascending = Array(Int64(1)...5000)
        let orders: [[Int64]] = [
            ascending, ascending.reversed(), ascending.shuffled(), [0, 7, 3_000_000, 2, 1 << 40, -4],
        ]
        for keys in orders {
            var (registry, objects) = try Self.registry(keys: keys, reserving: reserving)
            Self.expectHolds(&registry, objects)
            #expect(registry[Self.id(6000)] == nil)
            #expect(registry[Self.id(-1)] == nil)
            #expect(registry[Self.id(Int64.max)] == nil)
        }
    }

    @Test func theSameKeyInAnotherEntityOrStoreIsAnotherObject() throws {
        let layout = try Self.layout()
        var registry = ObjectRegistry()
        let item = ManagedObject(layout: layout, objectID: Self.id(1))
        registry[Self.id(1)] = item
        #expect(registry[Self.id(1, entity: "Other")] == nil)
        #expect(registry[Self.id(1, store: "another store")] == nil)
        let other = ManagedObject(layout: layout, objectID: Self.id(1, entity: "Other"))
        registry[Self.id(1, entity: "Other")] = other
        #expect(registry[Self.id(1)] === item)
        #expect(registry[Self.id(1, entity: "Other")] === other)
        #expect(registry.count == 2)
        // Another object for an equal ID takes its place, as in a dictionary.
        let replacement = ManagedObject(layout: layout, objectID: Self.id(1))
        registry[Self.id(1)] = replacement
        #expect(registry[Self.id(1)] === replacement)
        #expect(registry.count == 2)
        registry[Self.id(1)] = item
        let temporary = ManagedObjectID(temporaryFor: "Item")
        let inserted = ManagedObject(layout: layout, objectID: temporary)
        registry[temporary] = inserted
        #expect(registry[temporary] === inserted)
        #expect(registry.count == 3)
        #expect(registry.removeValue(forKey: temporary) === inserted)
        #expect(registry[temporary] == nil)
        registry.removeAll()
        #expect(registry.isEmpty)
        #expect(registry[Self.id(1)] == nil)
    }

    /// Temporary IDs (one counter for the process) are kept by number; a made-up ID with a number another entity's
    /// ID holds is another object, and a save that unregisters them all lets the next inserts start afresh.
    @Test func temporaryIDsByNumber() throws {
        let layout = try Self.layout()
        var registry = ObjectRegistry()
        for round in 0..<3 {
            var inserted: [(ManagedObjectID, ManagedObject)] = []
            for _ in 0..<3000 {
                let id = ManagedObjectID(temporaryFor: "Item")
                let object = ManagedObject(layout: layout, objectID: id)
                registry[id] = object
                inserted.append((id, object))
            }
            let (firstID, first) = try #require(inserted.first)
            let number = try #require(firstID.temporaryIdentifier)
            let uri = try #require(URL(string: "x-coredata:///Other/t\(number)"))
            let lookalike = try #require(ManagedObjectID(uriRepresentation: uri))
            #expect(lookalike.temporaryIdentifier == number)
            #expect(registry[lookalike] == nil, "round \(round)")
            let other = ManagedObject(layout: layout, objectID: lookalike)
            registry[lookalike] = other
            #expect(registry[lookalike] === other)
            #expect(registry[firstID] === first)
            #expect(registry.count == 3000 * round + 3001)
            for (id, object) in inserted {
                let copy = try #require(ManagedObjectID(uriRepresentation: id.uriRepresentation))
                #expect(registry[copy] === object)
            }
            #expect(Array(registry.values).count == 3000 * round + 3001)
            #expect(registry.removeValue(forKey: lookalike) === other)
            #expect(registry[firstID] === first)
            // As a save does: each object leaves its temporary ID for a permanent one.
            for (index, (id, object)) in inserted.enumerated() {
                #expect(registry.removeValue(forKey: id) === object)
                registry[Self.id(Int64(round * 3000 + index + 1))] = object
            }
            #expect(registry.count == 3000 * (round + 1))
            #expect(registry[firstID] == nil)
        }
    }

    /// A key registered while it was beyond its table stays findable when the table grows past it; registering it
    /// again or removing it leaves no second copy behind.
    @Test func aKeyFromBeforeItsTableGrewIsKeptOnce() throws {
        let layout = try Self.layout()
        var (registry, objects) = try Self.registry(keys: [5000], reserving: false)
        for key in Int64(1)...4000 {
            let object = ManagedObject(layout: layout, objectID: Self.id(key))
            objects[key] = object
            registry[Self.id(key)] = object
        }
        Self.expectHolds(&registry, objects)
        let replacement = ManagedObject(layout: layout, objectID: Self.id(5000))
        registry[Self.id(5000)] = replacement
        objects[5000] = replacement
        Self.expectHolds(&registry, objects)
        #expect(registry.removeValue(forKey: Self.id(5000)) === replacement)
        objects[5000] = nil
        #expect(registry[Self.id(5000)] == nil)
        #expect(registry.removeValue(forKey: Self.id(5000)) == nil)
        Self.expectHolds(&registry, objects)
        for key in Int64(1)...4000 where key % 2 == 0 {
            registry[Self.id(key)] = nil
            objects[key] = nil
        }
        Self.expectHolds(&registry, objects)
    }

    /// A run of keys far from 1 (a fetch by an indexed attribute, in either order) goes into a table that starts
    /// where the run does, not into the dictionary; keys below the table's first still find their objects.
    @Test(arguments: [false, true])
    func aRunOfKeysFarFromOneIsTabled(descending: Bool) throws {
        let run = Array(Int64(50_000)..<51_000)
        var (registry, objects) = try Self.registry(keys: descending ? run.reversed() : run, reserving: true)
        Self.expectHolds(&registry, objects)
        #expect(registry.countInTables == 1000)
        let layout = try Self.layout()
        // Then keys below the run, and one far beyond it.
        for key in [Int64(49_990), 49_000, 1, 1 << 40, 50_500] {
            let object = ManagedObject(layout: layout, objectID: Self.id(key))
            objects[key] = object
            registry[Self.id(key)] = object
            Self.expectHolds(&registry, objects)
        }
        // 49,990 is ten slots below the run: the table grows down to it.
        #expect(registry.countInTables >= 1001)
    }

    /// Registrations and removals at random keys, in clusters and far apart, agree with a dictionary.
    @Test func randomRegistrationsAgreeWithADictionary() throws {
        let layout = try Self.layout()
        var generator = PredicateFuzzTests.Generator(state: 7)
        var registry = ObjectRegistry()
        var objects: [Int64: ManagedObject] = [:]
        for step in 0..<4000 {
            let cluster = Int64(generator.next() % 4) * 40_000
            let key =
                generator.next() % 10 == 0
                ? Int64(generator.next() % (1 << 41)) : cluster + Int64(generator.next() % 3000)
            if generator.next() % 4 == 0 {
                let removed = registry.removeValue(forKey: Self.id(key))
                #expect(removed === objects.removeValue(forKey: key), "step \(step), key \(key)")
            } else {
                let object = ManagedObject(layout: layout, objectID: Self.id(key))
                objects[key] = object
                registry[Self.id(key)] = object
            }
            if step % 500 == 0 { Self.expectHolds(&registry, objects) }
        }
        Self.expectHolds(&registry, objects)
    }

    /// A fetch's lookup-then-register (``ObjectRegistry/find(_:)`` and ``ObjectRegistry/register(_:for:at:)``) at
    /// random keys of two entities, in clusters and far apart, between removals: what `find` answers and what ends up
    /// registered agree with a dictionary (keys far apart and keys a table grew past live in the dictionary part).
    @Test func findingThenRegisteringAgreesWithADictionary() throws {
        let layout = try Self.layout()
        var generator = PredicateFuzzTests.Generator(state: 11)
        var registry = ObjectRegistry()
        var objects: [ManagedObjectID: ManagedObject] = [:]
        for step in 0..<6000 {
            let cluster = Int64(generator.next() % 3) * 30_000
            let key =
                generator.next() % 8 == 0
                ? Int64(generator.next() % (1 << 40)) : cluster + Int64(generator.next() % 2000)
            let id = Self.id(key, entity: generator.next() % 3 == 0 ? "Other" : "Item")
            if generator.next() % 5 == 0 {
                let removed = registry.removeValue(forKey: id)
                #expect(removed === objects.removeValue(forKey: id), "step \(step), \(id)")
                continue
            }
            switch registry.find(id) {
            case .registered(let found):
                #expect(found === objects[id], "step \(step): \(id) found another object")
            case let place:
                #expect(objects[id] == nil, "step \(step): \(id) not found")
                let object = ManagedObject(layout: layout, objectID: id)
                registry.register(object, for: id, at: place)
                objects[id] = object
            }
        }
        #expect(registry.count == objects.count)
        for (id, object) in objects { #expect(registry[id] === object, "\(id)") }
        #expect(registry.values.count { _ in true } == objects.count)
    }

    /// A fetch of faults from keys (``ObjectRegistry/object(forKey:inTable:prefix:)`` and
    /// ``ObjectRegistry/register(_:key:inTable:)``) between lookups, registrations and removals by ID, at random keys
    /// of two entities: the same objects are found either way, and an object made from a key makes its ID only when
    /// it goes to the dictionary (a key far from the table's).
    @Test func registeringByKeyAgreesWithRegisteringByID() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Other", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        var generator = PredicateFuzzTests.Generator(state: 23)
        var registry = ObjectRegistry()
        var objects: [ManagedObjectID: ManagedObject] = [:]
        var madeByKey = 0
        for step in 0..<6000 {
            let key =
                generator.next() % 10 == 0
                ? Int64(generator.next() % (1 << 40)) : Int64(generator.next() % 3000) + 1
            let entity = generator.next() % 3 == 0 ? "Other" : "Item"
            let id = Self.id(key, entity: entity)
            let layout = try #require(model.layout(of: entity))
            switch generator.next() % 6 {
            case 0:
                let removed = registry.removeValue(forKey: id)
                #expect(removed === objects.removeValue(forKey: id), "step \(step), \(id)")
            case 1:
                if registry[id] == nil, objects[id] == nil {
                    let object = ManagedObject(layout: layout, objectID: id)
                    registry[id] = object
                    objects[id] = object
                }
                #expect(registry[id] === objects[id], "step \(step), \(id)")
            default:
                let prefix = ObjectIDPrefix(storeIdentifier: Self.store, entityName: entity)
                let table = registry.table(storeIdentifier: Self.store, entityName: entity)
                if let found = registry.object(forKey: key, inTable: table, prefix: prefix) {
                    #expect(found === objects[id], "step \(step): \(id) found another object")
                } else {
                    #expect(objects[id] == nil, "step \(step): \(id) not found")
                    let object = ManagedObject(layout: layout, prefix: prefix, key: key)
                    registry.register(object, key: key, inTable: table)
                    objects[id] = object
                    madeByKey += 1
                }
            }
        }
        #expect(madeByKey > 2000)
        #expect(registry.count == objects.count)
        for (id, object) in objects {
            #expect(registry[id] === object, "\(id)")
            #expect(object.objectID == id)
        }
        #expect(registry.values.count { _ in true } == objects.count)
    }

    /// Objects registered by key in a table make no ID; one whose key is too far from the others goes to the
    /// dictionary with its ID made, and is found there by key.
    @Test func onlyAnObjectInTheDictionaryMakesItsID() throws {
        let layout = try Self.layout()
        let prefix = ObjectIDPrefix(storeIdentifier: Self.store, entityName: "Item")
        var registry = ObjectRegistry()
        // As a fetch does: room for its objects (else, early on, a key far from the first goes to the dictionary).
        registry.reserve(3001)
        let table = registry.table(storeIdentifier: Self.store, entityName: "Item")
        var objects: [Int64: ManagedObject] = [:]
        for key in Array(Int64(1)...3000).shuffled() + [1 << 40] {
            let object = ManagedObject(layout: layout, prefix: prefix, key: key)
            registry.register(object, key: key, inTable: table)
            objects[key] = object
        }
        #expect(registry.countInTables == 3000)
        for (key, object) in objects {
            if case .made = object.identity { #expect(key == 1 << 40, "key \(key) made its ID") }
            #expect(registry.object(forKey: key, inTable: table, prefix: prefix) === object)
        }
        guard case .made(let far) = try #require(objects[1 << 40]).identity else {
            Issue.record("the object in the dictionary has no ID")
            return
        }
        #expect(far == Self.id(1 << 40))
    }

    /// A fault made from a key keeps the key where its store version goes (it has none until filled): it reads as
    /// version 0, and given a version or an ID it makes its ID first, so the key is never read as a version.
    @Test func aKeyFaultMakesItsIDBeforeItTakesAVersion() throws {
        let layout = try Self.layout()
        let prefix = ObjectIDPrefix(storeIdentifier: Self.store, entityName: "Item")
        let versioned = ManagedObject(layout: layout, prefix: prefix, key: 77)
        #expect(versioned.storeVersion == 0)
        versioned.storeVersion = 5
        #expect(versioned.objectID == Self.id(77))
        #expect(versioned.storeVersion == 5)
        let renamed = ManagedObject(layout: layout, prefix: prefix, key: 78)
        renamed.objectID = Self.id(9)
        #expect(renamed.objectID == Self.id(9))
        #expect(renamed.storeVersion == 0)
        let asked = ManagedObject(layout: layout, prefix: prefix, key: 79)
        #expect(asked.objectID == Self.id(79))
        #expect(asked.storeVersion == 0)
    }

    /// A list of keys keeps its order and names each key's entity, in runs.
    @Test func objectKeysKeepOrderAndEntities() {
        var keys = ObjectKeys(storeIdentifier: Self.store)
        let entities = ["Item", "Item", "Other", "Item", "Other", "Other", "Third"]
        for (key, entity) in entities.enumerated() { keys.append(Int64(key + 1), entityName: entity) }
        #expect(keys.count == 7)
        #expect(keys.entityNames == ["Item", "Other", "Third"])
        var runs: [String] = []
        keys.forEachRun { entity, run in runs.append("\(entity):\(run.map(String.init).joined(separator: ","))") }
        #expect(runs == ["Item:1,2", "Other:3", "Item:4", "Other:5,6", "Third:7"])
        #expect(keys.objectIDs == entities.enumerated().map { Self.id(Int64($0.offset + 1), entity: $0.element) })
        #expect(ObjectKeys(storeIdentifier: Self.store).objectIDs.isEmpty)
    }

    /// Through a context: objects fetched newest first (descending keys) are the ones found by ID afterwards, and
    /// fetching again returns the same instances.
    @Test func aFetchInDescendingKeyOrderIsUniqued() throws {
        let coordinator = try ContextTeardownTests.coordinator(count: 3000)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name", ascending: false)]
        let first = try context.fetch(request)
        #expect(first.count == 3000)
        for object in first { #expect(context.registeredObject(for: object.objectID) === object) }
        let again = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(Set(again.map(ObjectIdentifier.init)) == Set(first.map(ObjectIdentifier.init)))
        #expect(context.registeredObjects.count == 3000)
    }
}
