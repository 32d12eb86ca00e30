import Foundation
import ObjectGraph
import Testing

@testable import DocUtilCLI

/// `dump`'s order held as keys: by entity name, then key; stores holding one entity interleaved by key (the first
/// store first on a tie); any stretch of it made into IDs, across entities and stores.
struct DumpOrderTests {
    @Test func keysGiveTheOrderOfSortedIDs() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "n", type: .integer64)]),
            EntityDescription(name: "Box", attributes: [AttributeDescription(name: "n", type: .integer64)]),
            EntityDescription(name: "Empty", attributes: []),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        let first = try coordinator.addPersistentStore(type: "InMemory")
        let second = try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        for i in 0..<7 {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(.integer64(Int64(i)), forKey: "n")
            context.assign(item, to: i % 3 == 0 ? second : first)
        }
        for i in 0..<3 {
            try context.insertNewObject(forEntityName: "Box").setAttributeValue(.integer64(Int64(i)), forKey: "n")
        }
        try context.save()

        let order = try DumpOrder(entities: ["Item", "Box", "Empty", "Item"], coordinator: coordinator)
        let stores = [first.identifier, second.identifier]
        let expected = try ["Box", "Item"].flatMap { name in
            try context.fetchObjectIDs(FetchRequest(entityName: name)).sorted {
                ($0.primaryKey, stores.firstIndex(of: $0.storeIdentifier ?? "") ?? 2)
                    < ($1.primaryKey, stores.firstIndex(of: $1.storeIdentifier ?? "") ?? 2)
            }
        }
        #expect(order.count == 10)
        #expect(order.entities == ["Box", "Item"])
        #expect(order.ids(0..<order.count) == expected)
        // Both stores hold keys 1 and 2 of Item: interleaved, the first store first.
        #expect(Set(order.ids(3..<10).map(\.storeIdentifier)) == Set(stores))
        for range in [0..<1, 2..<5, 3..<4, 4..<9, 9..<10, 5..<5] {
            #expect(order.ids(range) == Array(expected[range]), "\(range)")
        }
    }
}
