import Foundation
import Testing

@testable import ObjectGraph

/// A fault filled from a snapshot read by its entity's slots takes the values straight into its storage: every value
/// converted to its attribute's type, and a value that does not fit leaves the object a fault, not half filled.
struct FaultFillTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "count", type: .integer16),
                    AttributeDescription(name: "price", type: .double),
                ])
        ])
    }

    @Test func aFaultTakesItsValuesConvertedOrStaysAFault() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let layout = try #require(coordinator.model.layout(of: "Item"))
        let id = ManagedObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: 1)

        let good = try context.fault(for: id)
        #expect(good.isFault)
        try good.fill(
            from: ObjectSnapshot(
                objectID: id, version: 3, layout: layout, values: [.string("a"), .integer64(7), .null]))
        #expect(!good.isFault)
        #expect(try good.attributeValue(forKey: "name") == .string("a"))
        // Converted to the attribute's type.
        #expect(try good.attributeValue(forKey: "count") == .integer16(7))
        #expect(try good.attributeValue(forKey: "price") == .null)
        #expect(good.storeVersion == 3)

        let otherID = ManagedObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: 2)
        let bad = try context.fault(for: otherID)
        // 70,000 does not fit a 16-bit integer: the fill fails and the object stays a fault.
        #expect(throws: ObjectGraphError.self) {
            try bad.fill(
                from: ObjectSnapshot(
                    objectID: otherID, version: 1, layout: layout, values: [.string("b"), .integer64(70_000), .null]))
        }
        #expect(bad.isFault)
        #expect(bad.storage == nil)
    }
}
