import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Random composite values (nested, partial, absent) saved in every store type and read back as they were, and
/// predicates and sorts on their members answered alike by SQL and in memory.
struct RandomCompositeTests {
    static func magnitude(_ random: inout RandomGraph.Generator) -> AttributeValue {
        func maybe(_ value: AttributeValue) -> AttributeValue? { Bool.random(using: &random) ? value : nil }
        if Int.random(in: 0..<5, using: &random) == 0 { return .null }
        var members: [String: AttributeValue] = [:]
        members["richter"] = maybe(.double([-1.5, 0, 2.5, 3.25, 7, 9.5].randomElement(using: &random)!))
        members["scale"] = maybe(.string(["Mw", "ML", "mb", "", "Ms"].randomElement(using: &random)!))
        if Bool.random(using: &random) {
            var point: [String: AttributeValue] = [:]
            point["latitude"] = maybe(.double([-90, -33.5, 0, 61.2, 90].randomElement(using: &random)!))
            point["longitude"] = maybe(.double([-180, -149.9, 0, 174.8].randomElement(using: &random)!))
            // (An epicentre with no member is no epicentre: nothing of it is stored.)
            if !point.isEmpty { members["epicentre"] = .composite(point) }
        }
        // (A magnitude with no member set reads back as none: a SQLite row has only its members' columns.)
        return members.isEmpty ? .null : .composite(members)
    }

    static let predicates = [
        "magnitude.richter > 3", "magnitude.richter == nil", "magnitude.scale == 'Mw'",
        "magnitude.scale BEGINSWITH[c] 'm'",
        "magnitude.epicentre.latitude < 0", "magnitude.epicentre.longitude != nil", "magnitude == nil",
        "magnitude.richter BETWEEN {0, 5} OR magnitude.epicentre.latitude == 90", "NOT (magnitude.scale == '')",
        "magnitude.richter > depth", "magnitude.epicentre == nil", "magnitude.richter IN {2.5, 7}",
    ]

    @Test func compositesRoundTripAndAnswerAlike() throws {
        SQLiteStore.register()
        XMLStore.register()
        let model = try Quakes.model()
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed &* 40_503)
            var expected: [String: AttributeValue] = [:]
            let (coordinator, url) = try StoreUnderTest.all[0].makeStore(model: model, named: "quakes")
            let context = ManagedObjectContext(coordinator: coordinator)
            for i in 0..<40 {
                let quake = try context.insertNewObject(forEntityName: "Quake")
                let value = Self.magnitude(&random)
                try quake.setValue(.string("q\(i)"), forKey: "code")
                try quake.setAttributeValue(value, forKey: "magnitude")
                try quake.setAttributeValue(.integer32(Int32(i % 9)), forKey: "depth")
                expected["q\(i)"] = value
            }
            try context.save()
            // Every file store type holds them as they were.
            let source = try #require(url)
            for store in StoreUnderTest.all where store.fileExtension != nil && store.type != "TestJSON" {
                let copy = try Fixtures.temporaryDirectory().appendingPathComponent("copy.\(store.fileExtension!)")
                let from = PersistentStoreCoordinator(model: model)
                try from.addPersistentStore(type: SQLiteStore.typeName, url: source)
                try from.migratePersistentStore(from.persistentStores[0], to: copy, type: store.type)
                let reader = PersistentStoreCoordinator(model: model)
                try reader.addPersistentStore(type: store.type, url: copy)
                let readBack = ManagedObjectContext(coordinator: reader)
                for quake in try readBack.fetch(FetchRequest(entityName: "Quake")) {
                    let code = try quake.attributeValue(forKey: "code").literalText
                    let stored = try quake.attributeValue(forKey: "magnitude")
                    #expect(stored == expected[code], "seed \(seed), \(store): \(code)")
                }
            }
            let xml = try Fixtures.temporaryDirectory().appendingPathComponent("quakes.xml")
            let from = PersistentStoreCoordinator(model: model)
            try from.addPersistentStore(type: SQLiteStore.typeName, url: source)
            try from.migratePersistentStore(from.persistentStores[0], to: xml, type: XMLStore.typeName)
            let (sql, memory) = (
                ManagedObjectContext(coordinator: coordinator), ManagedObjectContext(coordinator: from)
            )
            for format in Self.predicates {
                for key in ["magnitude.richter", "magnitude.epicentre.latitude", "magnitude.scale"] {
                    let request = FetchRequest(
                        entityName: "Quake", predicate: try ObjectPredicate(format: format),
                        sortDescriptors: [
                            ObjectSortDescriptor(keyPath: key, ascending: Bool.random(using: &random)),
                            ObjectSortDescriptor(keyPath: "code"),
                        ])
                    func codes(_ context: ManagedObjectContext) throws -> [String] {
                        try context.fetch(request).map { try $0.attributeValue(forKey: "code").literalText }
                    }
                    #expect(try codes(sql) == (try codes(memory)), "seed \(seed): \(format) sorted by \(key)")
                }
            }
        }
    }
}
