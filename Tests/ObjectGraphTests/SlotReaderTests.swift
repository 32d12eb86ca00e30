import Foundation
import ObjectGraph
import Testing

/// A writer reads each object's values by slot through one reader per entity: whatever form a snapshot holds its
/// values in, each slot gives that snapshot's value, and nothing of the snapshot read before.
struct SlotReaderTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Item",
                    attributes: (0..<12).map { AttributeDescription(name: "a\($0)", type: .integer64) } + [
                        AttributeDescription(name: "a long attribute name of many bytes", type: .string),
                        AttributeDescription(name: "scratch", type: .string, isTransient: true),
                    ]),
                EntityDescription(name: "Other", attributes: [AttributeDescription(name: "a3", type: .integer64)]),
            ],
            configurations: [])
    }

    @Test func everyFormReadsIntoTheSameSlots() throws {
        let model = try Self.model()
        let layout = try #require(model.layout(of: "Item"))
        let other = try #require(model.layout(of: "Other"))
        let id = ManagedObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: 1)
        var reader = SlotReader(layout: layout)
        let names = layout.attributes.map(\.name)
        // Snapshots by name with a different subset of keys each (and keys the entity lacks), in the orders their
        // dictionaries happen to list them, then one by slot, one by another layout's slots, then by name again.
        var expected: [[AttributeValue]] = []
        var snapshots: [ObjectSnapshot] = []
        for round in 0..<40 {
            var values = [String: AttributeValue]()
            var slots = [AttributeValue](repeating: .null, count: names.count)
            for (slot, name) in names.enumerated() where (slot + round) % 3 != 0 {
                let value: AttributeValue =
                    layout.attributes[slot].type == .string
                    ? .string("\(round)-\(slot)") : .integer64(Int64(round * 100 + slot))
                values[name] = value
                slots[slot] = value
            }
            values["not an attribute \(round)"] = .integer64(-1)
            // A key the entity lacks of the same length and first letter as one of its attributes ("scratch").
            values["stretch"] = .integer64(-2)
            snapshots.append(ObjectSnapshot(objectID: id, attributes: values))
            expected.append(slots)
        }
        // By slot: every value as it was given (one of another type than its attribute's too), but the transient
        // attribute's, which a snapshot never holds.
        let bySlot = (0..<names.count).map { AttributeValue.integer64(Int64(1_000 + $0)) }
        let heldBySlot = names.indices.map { layout.attributes[$0].isTransient ? .null : bySlot[$0] }
        snapshots.insert(
            ObjectSnapshot(objectID: id, version: 1, layout: layout, values: bySlot), at: 20)
        expected.insert(heldBySlot, at: 20)
        snapshots.insert(
            ObjectSnapshot(objectID: id, version: 1, layout: other, values: [.integer64(7)]), at: 21)
        expected.insert(names.map { $0 == "a3" ? .integer64(7) : .null }, at: 21)
        for (snapshot, values) in zip(snapshots, expected) {
            reader.read(snapshot)
            #expect((0..<names.count).map { reader[$0] } == values)
            #expect(reader[names.count] == .null)
        }
        // The slotted snapshot's values are its own: reading by name afterwards changed nothing in them.
        #expect(snapshots[20].slotted.map { values in (0..<values.count).map { values[$0] } } == heldBySlot)
    }
}
