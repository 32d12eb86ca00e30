import Foundation
public import ObjectGraph

/// A model with every attribute type, inheritance, and every kind of relationship (to-one/to-many pairs, ordered,
/// many-to-many, no inverse), with a graph that uses them all: what store round-trip tests write and read back.
public enum Catalog {
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "small", type: .integer16),
                    AttributeDescription(name: "medium", type: .integer32),
                    AttributeDescription(name: "large", type: .integer64),
                    AttributeDescription(name: "price", type: .decimal),
                    AttributeDescription(name: "weight", type: .double),
                    AttributeDescription(name: "ratio", type: .float),
                    AttributeDescription(name: "done", type: .boolean),
                    AttributeDescription(name: "created", type: .date),
                    AttributeDescription(name: "blob", type: .binary),
                    AttributeDescription(name: "id", type: .uuid), AttributeDescription(name: "link", type: .uri),
                    AttributeDescription(name: "extra", type: .transformable),
                    AttributeDescription(name: "scratch", type: .string, isTransient: true),
                ],
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
                    RelationshipDescription(
                        name: "parts", destination: "Item", inverse: "whole", toMany: true, ordered: true),
                    RelationshipDescription(name: "whole", destination: "Item", inverse: "parts"),
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
                    RelationshipDescription(name: "seeAlso", destination: "Item"),
                ]),
            EntityDescription(
                name: "SpecialItem", parent: "Item", attributes: [AttributeDescription(name: "reason", type: .string)]),
            EntityDescription(
                name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true)
                ]),
            EntityDescription(
                name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true)
                ]),
        ])
    }

    /// A context over an in-memory store of the catalog model.
    public static func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: "InMemory")
        return ManagedObjectContext(coordinator: coordinator)
    }

    /// Every attribute value of item `i` (nil for some, so that missing values are covered too).
    public static func values(_ i: Int) -> [String: AttributeValue] {
        var values: [String: AttributeValue] = [
            "name": .string(i % 5 == 0 ? "line\nbreak & <tag> \"quoted\" é \(i)" : "item \(i)"),
            "small": .integer16(Int16(i % 30_000) - 100), "medium": .integer32(Int32(i) * 1000),
            "large": .integer64(Int64(i) * 1_000_000_007), "price": .decimal(Decimal(string: "\(i).25")!),
            "weight": .double(Double(i) / 3), "ratio": .float(Float(i) / 8), "done": .boolean(i % 2 == 0),
            "created": .date(Date(timeIntervalSinceReferenceDate: 336_046_917.001641988 + Double(i))),
            "blob": .binary(Data((0..<(i % 7 * 20)).map { UInt8(truncatingIfNeeded: $0 * 7 + i) })),
            "id": .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i))!),
            "link": .uri(URL(string: "https://example.com/items/\(i)?q=a&b=c")!),
            "extra": .transformable(Data([UInt8(i % 256), 0, 255])),
        ]
        if i % 3 == 0 { values["price"] = nil }
        if i % 4 == 0 { values["blob"] = nil }
        return values
    }

    /// Builds the graph: `count` items (every fifth special), 3 owners, 4 tags.
    public static func populate(_ context: ManagedObjectContext, count: Int = 20) throws {
        var owners: [ManagedObject] = []
        for o in 0..<3 {
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue(.string("owner \(o)"), forKey: "name")
            owners.append(owner)
        }
        var tags: [ManagedObject] = []
        for t in 0..<4 {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValue(.string("tag \(t)"), forKey: "label")
            tags.append(tag)
        }
        var items: [ManagedObject] = []
        for i in 0..<count {
            let item = try context.insertNewObject(forEntityName: i % 5 == 4 ? "SpecialItem" : "Item")
            for (key, value) in values(i) { try item.setAttributeValue(value, forKey: key) }
            try item.setValue(.string("not stored"), forKey: "scratch")
            if i % 5 == 4 { try item.setValue(.string("because \(i)"), forKey: "reason") }
            if i % 4 != 3 { try item.setObject(owners[i % 3], forKey: "owner") }
            for t in 0..<(i % 3) { try item.mutableObjects(forKey: "tags").add(tags[(i + t) % 4]) }
            if let previous = items.last { try item.setObject(previous, forKey: "seeAlso") }
            items.append(item)
        }
        // Ordered parts: item 0 holds items 3, 1, 2 in that order.
        let parts = try items[0].mutableObjects(forKey: "parts")
        for i in [3, 1, 2] where i < items.count { try parts.add(items[i]) }
    }

    /// A description of the whole graph that does not depend on keys or store UUIDs: every object's entity,
    /// stored values and relationships (by the destinations' names), sorted.
    public static func describe(_ context: ManagedObjectContext) throws -> [String] {
        var lines: [String] = []
        func label(_ object: ManagedObject) throws -> String {
            let name = object.entity.attributeSlot(named: "name") != nil ? "name" : "label"
            return "\(object.entity.name):\(try object.attributeValue(forKey: name).stringValue ?? "?")"
        }
        for entity in ["Item", "Owner", "Tag"] {
            for object in try context.fetch(FetchRequest(entityName: entity)) {
                var parts = [try label(object)]
                for attribute in object.entity.attributes where !attribute.isTransient {
                    parts.append("\(attribute.name)=\(try object.attributeValue(forKey: attribute.name).debugText)")
                }
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        var names = try object.objects(forKey: relationship.name).map(label)
                        if !relationship.isOrdered { names.sort() }
                        parts.append("\(relationship.name)=[\(names.joined(separator: ","))]")
                    } else {
                        parts.append(
                            "\(relationship.name)=\(try object.object(forKey: relationship.name).map(label) ?? "nil")")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }
}
