import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Random graphs of an entity hierarchy (an abstract root, concrete entities two levels deep) with relationships to
/// the abstract root (ordered, many-to-many, to itself), edited and saved round after round into each store type and
/// copied into every other: each object keeps its entity and its values, every link its destination's entity, and a
/// fetch of any entity of the hierarchy (with or without sub-entities) returns exactly its objects.
struct RandomInheritanceTests {
    static let concrete = ["Circle", "Square", "RoundSquare"]
    static let hierarchy = ["Shape", "Circle", "Square", "RoundSquare"]

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Shape", isAbstract: true, attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "neighbors", destination: "Shape", inverse: "neighbors", toMany: true),
                    RelationshipDescription(name: "parent", destination: "Shape", inverse: "children"),
                    RelationshipDescription(
                        name: "children", destination: "Shape", inverse: "parent", toMany: true, ordered: true),
                    RelationshipDescription(name: "canvas", destination: "Canvas", inverse: "shapes"),
                ]),
            EntityDescription(
                name: "Circle", parent: "Shape", attributes: [AttributeDescription(name: "radius", type: .double)]),
            EntityDescription(
                name: "Square", parent: "Shape", attributes: [AttributeDescription(name: "side", type: .integer32)]),
            EntityDescription(
                name: "RoundSquare", parent: "Square",
                attributes: [AttributeDescription(name: "corner", type: .float)]),
            EntityDescription(
                name: "Canvas", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "shapes", destination: "Shape", inverse: "canvas", toMany: true, ordered: true),
                    RelationshipDescription(name: "focus", destination: "Square"),
                ]),
        ])
    }

    static func name(_ object: ManagedObject?) throws -> String {
        guard let object else { return "-" }
        return "\(object.entity.name):\(try object.attributeValue(forKey: "name").literalText)"
    }

    /// Every object with its entity, values and links; and what a fetch of each entity of the hierarchy returns.
    static func state(_ context: ManagedObjectContext) throws -> [String] {
        var lines: [String] = []
        for object in try context.fetch(FetchRequest(entityName: "Shape")) {
            var line = try Self.name(object)
            for key in ["radius", "side", "corner"] where object.entity.attributes.contains(where: { $0.name == key }) {
                line += " \(key)=\(try object.attributeValue(forKey: key).literalText)"
            }
            line += " neighbors=\(try object.objects(forKey: "neighbors").map(Self.name).sorted())"
            line += " parent=\(try Self.name(object.object(forKey: "parent")))"
            line += " children=\(try object.objects(forKey: "children").map(Self.name))"
            line += " canvas=\(try Self.name(object.object(forKey: "canvas")))"
            lines.append(line)
        }
        for canvas in try context.fetch(FetchRequest(entityName: "Canvas")) {
            lines.append(
                "\(try Self.name(canvas)) shapes=\(try canvas.objects(forKey: "shapes").map(Self.name)) focus=\(try Self.name(canvas.object(forKey: "focus")))"
            )
        }
        for entity in hierarchy {
            for subentities in [true, false] {
                var request = FetchRequest(entityName: entity)
                request.includesSubentities = subentities
                let names = try context.fetch(request).map(Self.name).sorted()
                #expect(names.allSatisfy { name in subentities || name.hasPrefix(entity + ":") }, "\(entity): \(names)")
                lines.append("fetch \(entity) \(subentities): \(names) counted \(try context.count(for: request))")
            }
        }
        return lines.sorted()
    }

    static func edit(_ context: ManagedObjectContext, _ random: inout RandomGraph.Generator, counter: inout Int) throws
    {
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            counter += 1
            let entity = (concrete + ["Canvas"]).randomElement(using: &random)!
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(.string("\(entity.lowercased())\(counter)"), forKey: "name")
            switch entity {
            case "Circle": try object.setAttributeValue(.double(Double(counter) / 4), forKey: "radius")
            case "Square": try object.setAttributeValue(.integer32(Int32(counter)), forKey: "side")
            case "RoundSquare":
                try object.setAttributeValue(.integer32(Int32(counter)), forKey: "side")
                try object.setAttributeValue(.float(Float(counter) / 8), forKey: "corner")
            default: break
            }
        }
        let shapes = try context.fetch(FetchRequest(entityName: "Shape"))
        let squares = try context.fetch(FetchRequest(entityName: "Square"))
        let canvases = try context.fetch(FetchRequest(entityName: "Canvas"))
        for _ in 0..<8 {
            guard let shape = shapes.randomElement(using: &random) else { break }
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                try shape.setObjects(
                    Array(shapes.filter { $0 !== shape }.shuffled(using: &random).prefix(2)), forKey: "neighbors")
            case 1:
                // A parent that is not the shape or one of its descendants... any other shape will do: cycles are
                // allowed by the model, the test only compares links.
                try shape.setObject(shapes.filter { $0 !== shape }.randomElement(using: &random), forKey: "parent")
            case 2:
                let children = try shape.objects(forKey: "children")
                try shape.setObjects(children.shuffled(using: &random), forKey: "children")
            case 3: try shape.setObject(canvases.randomElement(using: &random), forKey: "canvas")
            default:
                if let canvas = canvases.randomElement(using: &random) {
                    try canvas.setObject(squares.randomElement(using: &random), forKey: "focus")
                }
            }
        }
        if Int.random(in: 0..<3, using: &random) == 0, let doomed = shapes.randomElement(using: &random) {
            for canvas in canvases where try canvas.object(forKey: "focus") === doomed {
                try canvas.setObject(nil, forKey: "focus")
            }
            context.delete(doomed)
        }
    }

    @Test(arguments: StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" })
    func aHierarchyIsSavedAndCopiedAsItWasMade(store: StoreUnderTest) throws {
        let model = try Self.model()
        for seed in UInt64(1)...3 {
            var random = RandomGraph.Generator(state: seed &* 2_147_483_647)
            let (coordinator, url) = try store.makeStore(model: model, named: "shapes\(seed)")
            let fileURL = try #require(url)
            let context = ManagedObjectContext(coordinator: coordinator)
            var counter = 0
            for round in 0..<6 {
                try Self.edit(context, &random, counter: &counter)
                try context.save()
                let expected = try Self.state(context)
                let reader = PersistentStoreCoordinator(model: model)
                try reader.addPersistentStore(type: store.type, url: fileURL)
                #expect(
                    try Self.state(ManagedObjectContext(coordinator: reader)) == expected,
                    "\(store), seed \(seed), round \(round)")
            }
            let expected = try Self.state(context)
            for other in StoreUnderTest.all where other.fileExtension != nil && other.type != "TestJSON" {
                let copied = try store.copy(of: fileURL, into: other, model: model)
                #expect(try Self.state(copied) == expected, "\(store) copied into \(other), seed \(seed)")
            }
        }
    }

    /// The same random edits made in a document of each store type: a fetch of a hierarchy without sort descriptors,
    /// and one sorted by a key with many ties, list the objects in the same order in all of them — key order, which is
    /// the order they were made in (an atomic store listed one entity's objects before another's).
    @Test func aFetchOfAHierarchyListsItsObjectsInTheSameOrderInEveryStore() throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...8 {
            var orders: [String: [String]] = [:]
            for store in StoreUnderTest.all where store.fileExtension != nil && store.type != "TestJSON" {
                var random = RandomGraph.Generator(state: seed &* 99_991)
                let (coordinator, _) = try store.makeStore(model: model, named: "order")
                let context = ManagedObjectContext(coordinator: coordinator)
                var counter = 0
                for _ in 0..<5 { try RandomGraph.edit(context, &random, counter: &counter) }
                try context.save()
                let reader = ManagedObjectContext(coordinator: coordinator)
                var sorted = FetchRequest(entityName: "Node")
                sorted.sortDescriptors = [ObjectSortDescriptor(keyPath: "friends.@count")]
                orders[store.type] = try (reader.fetch(FetchRequest(entityName: "Node")) + reader.fetch(sorted)).map {
                    "\($0.entity.name) \(try $0.attributeValue(forKey: "name").literalText)"
                }
            }
            #expect(Set(orders.values).count == 1, "seed \(seed): \(orders)")
        }
    }
}
