import Foundation
import Testing

@testable import ObjectGraph

/// When a context goes away, an object the app still holds is invalidated (its values dropped, reading it an error),
/// and every object nobody holds goes away with the context — also objects whose relationships point at each other.
struct ContextTeardownTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Item", inverse: "owned"),
                    RelationshipDescription(name: "owned", destination: "Item", inverse: "owner", toMany: true),
                ])
        ])
    }

    /// A coordinator over an in-memory store holding `count` items, the first owning the others.
    static func coordinator(count: Int) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        var first: ManagedObject? = nil
        for i in 0..<count {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(.string("item \(i)"), forKey: "name")
            if let first { try item.setObject(first, forKey: "owner") } else { first = item }
        }
        try context.save()
        return coordinator
    }

    final class Probe {
        weak var object: ManagedObject?
        init(_ object: ManagedObject) { self.object = object }
    }

    @Test func aHeldObjectIsInvalidatedAndTheOthersGoWithTheContext() throws {
        let coordinator = try Self.coordinator(count: 5)
        var kept: ManagedObject? = nil
        var probes: [Probe] = []
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            let items = try context.fetch(FetchRequest(entityName: "Item"))
            #expect(items.count == 5)
            // Relationships resolved both ways: the objects point at each other.
            for item in items {
                _ = try item.object(forKey: "owner")
                _ = try item.objects(forKey: "owned")
            }
            kept = items[2]
            probes = items.enumerated().filter { $0.offset != 2 }.map { Probe($0.element) }
        }
        // The objects nobody holds are gone, though their relationships pointed at each other.
        #expect(probes.allSatisfy { $0.object == nil })
        let held = try #require(kept)
        #expect(held.managedObjectContext == nil)
        #expect(!held.isFault)
        do {
            _ = try held.attributeValue(forKey: "name")
            Issue.record("an object of a context that is gone was read")
        } catch {
            #expect(error.code == .invalidatedObject)
        }
    }

    @Test func objectsNobodyHoldsGoWithTheContextThatInsertedThem() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: "InMemory")
        var probes: [Probe] = []
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            let owner = try context.insertNewObject(forEntityName: "Item")
            probes.append(Probe(owner))
            for _ in 0..<3 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setObject(owner, forKey: "owner")
                probes.append(Probe(item))
            }
            try context.save()
            // Saved and unsaved objects alike.
            let unsaved = try context.insertNewObject(forEntityName: "Item")
            try unsaved.setObject(owner, forKey: "owner")
            probes.append(Probe(unsaved))
        }
        #expect(probes.count == 5)
        #expect(probes.allSatisfy { $0.object == nil })
    }
}
