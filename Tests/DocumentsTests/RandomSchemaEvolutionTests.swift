import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// A random document migrated (inferred, in place as it is opened) to a random next version of its model, made of the
/// changes lightweight migration handles: attributes renamed, removed, added (optional, or required with a default)
/// and widened (Integer 16 → 32 → 64, Decimal or Double; Float → Double), a relationship renamed, a to-one made a
/// to-many, a to-many made ordered, an entity renamed and one added. Every object comes through with every value
/// (converted where widened, under its new name where renamed, the default where added) and every link.
struct RandomSchemaEvolutionTests {
    /// The changes of one next version.
    struct Changes {
        var renameText = false
        var requireText = false
        var removeRatio = false
        var added: AttributeValue? = nil  // .null: optional; a value: required with that default
        var widenSmall: AttributeType? = nil
        var widenFloat = false
        var renameItems = false
        var bestToMany = false
        var orderPeers = false
        var renameB = false
        var addEntity = false

        static func random(_ random: inout RandomGraph.Generator) -> Changes {
            var changes = Changes()
            changes.renameText = Bool.random(using: &random)
            changes.requireText = Int.random(in: 0..<3, using: &random) == 0
            changes.removeRatio = Bool.random(using: &random)
            if Bool.random(using: &random) {
                changes.added = Bool.random(using: &random) ? .null : .string("default text")
            }
            if Bool.random(using: &random) {
                changes.widenSmall = [.integer32, .integer64, .decimal, .double].randomElement(using: &random)!
            }
            changes.widenFloat = Bool.random(using: &random)
            changes.renameItems = Bool.random(using: &random)
            changes.bestToMany = Bool.random(using: &random)
            changes.orderPeers = Bool.random(using: &random)
            changes.renameB = Bool.random(using: &random)
            changes.addEntity = Bool.random(using: &random)
            return changes
        }
    }

    static func model(_ changes: Changes? = nil) throws -> ManagedObjectModel {
        let c = changes ?? Changes()
        let b = c.renameB ? "C" : "B"
        var text = AttributeDescription(name: c.renameText ? "title" : "text", type: .string)
        if c.renameText { text.renamingIdentifier = "text" }
        if c.requireText {
            text.isOptional = false
            text.defaultValue = .string("none")
        }
        var aAttributes = [
            AttributeDescription(name: "id", type: .integer64), text,
            AttributeDescription(name: "small", type: c.widenSmall ?? .integer16),
            AttributeDescription(name: "fraction", type: c.widenFloat ? .double : .float),
            AttributeDescription(name: "blob", type: .binary),
        ]
        if !c.removeRatio { aAttributes.append(AttributeDescription(name: "ratio", type: .double)) }
        if let added = c.added {
            aAttributes.append(
                AttributeDescription(name: "added", type: .string, isOptional: added.isNull, defaultValue: added))
        }
        var items = RelationshipDescription(
            name: c.renameItems ? "things" : "items", destination: b, inverse: "owner", toMany: true)
        if c.renameItems { items.renamingIdentifier = "items" }
        var entityB = EntityDescription(
            name: b,
            attributes: [
                AttributeDescription(name: "id", type: .integer64), AttributeDescription(name: "when", type: .date),
            ],
            relationships: [
                RelationshipDescription(name: "owner", destination: "A", inverse: items.name),
                RelationshipDescription(name: "bestOf", destination: "A", inverse: "best"),
                RelationshipDescription(
                    name: "peers", destination: b, inverse: "peers", toMany: true, ordered: c.orderPeers),
            ])
        if c.renameB { entityB.renamingIdentifier = "B" }
        var entities = [
            EntityDescription(
                name: "A", attributes: aAttributes,
                relationships: [
                    items,
                    RelationshipDescription(name: "best", destination: b, inverse: "bestOf", toMany: c.bestToMany),
                ]),
            entityB,
        ]
        if c.addEntity {
            entities.append(EntityDescription(name: "D", attributes: [AttributeDescription(name: "x", type: .string)]))
        }
        return try ManagedObjectModel(entities: entities)
    }

    /// Every object by entity and id: its values and links (ids, sorted unless ordered), under version 1's names and
    /// as version 1's types hold them (a widened value converted back for comparing: all of them are exact).
    /// (`omitRatio` leaves out the attribute the next version removes; peers are compared as a set, as an unordered
    /// to-many made ordered takes an order of its own.)
    /// (`nilTextAs`: what a nil text is expected to have become.)
    static func state(
        _ context: ManagedObjectContext, _ changes: Changes?, omitRatio: Bool, nilTextAs: String? = nil
    ) throws -> [String: String] {
        let c = changes ?? Changes()
        let b = c.renameB ? "C" : "B"
        func id(_ object: ManagedObject) throws -> String { try object.attributeValue(forKey: "id").literalText }
        var result: [String: String] = [:]
        for object in try Self.fetch("A", in: context) {
            var parts: [String] = []
            let text = try object.attributeValue(forKey: c.renameText ? "title" : "text")
            parts.append("text=\(text.isNull ? (nilTextAs ?? "nil") : text.literalText)")
            let small = try object.attributeValue(forKey: "small")
            let smallText: String
            switch small {
            case .integer32(let v): smallText = "\(v)"
            case .integer64(let v): smallText = "\(v)"
            case .integer16(let v): smallText = "\(v)"
            case .decimal(let v): smallText = "\(v)"
            case .double(let v): smallText = "\(Int64(exactly: v).map { "\($0)" } ?? "\(v)")"
            default: smallText = small.literalText
            }
            parts.append("small=\(smallText)")
            let fraction = try object.attributeValue(forKey: "fraction")
            if case .double(let d) = fraction, let f = Float(exactly: d) {
                parts.append("fraction=\(AttributeValue.float(f).literalText)")
            } else {
                parts.append("fraction=\(fraction.literalText)")
            }
            parts.append("blob=\(try object.attributeValue(forKey: "blob").literalText)")
            if !omitRatio { parts.append("ratio=\(try object.attributeValue(forKey: "ratio").literalText)") }
            let items = try object.objects(forKey: c.renameItems ? "things" : "items").map(id).sorted()
            parts.append("items=\(items)")
            let bestObjects =
                c.bestToMany
                ? try object.objects(forKey: "best") : [try object.object(forKey: "best")].compactMap { $0 }
            let best = try bestObjects.map(id)
            parts.append("best=\(best)")
            result["A \(try id(object))"] = parts.joined(separator: " ")
        }
        for object in try Self.fetch(b, in: context) {
            let peers = try object.objects(forKey: "peers").map(id)
            result["B \(try id(object))"] =
                "when=\(try object.attributeValue(forKey: "when").literalText) owner=\(try object.object(forKey: "owner").map(id) ?? "-") peers=\(peers.sorted())"
        }
        return result
    }

    static func fetch(_ entity: String, in context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: entity))
    }

    @Test(arguments: Kind.all)
    func everyValueAndLinkComesThroughARandomNextVersion(kind: Kind) throws {
        let old = try Self.model()
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed &* 48_271)
            let url = try Fixtures.temporaryDirectory().appendingPathComponent("evolving.\(kind.ext)")
            let document = try PersistentDocument(creatingAt: url, ofType: kind.type, model: old)
            let context = document.managedObjectContext
            var aObjects: [ManagedObject] = []
            var bObjects: [ManagedObject] = []
            for id in Int64(1)...Int64.random(in: 3...12, using: &random) {
                let a = try context.insertNewObject(forEntityName: "A")
                try a.setAttributeValue(.integer64(id), forKey: "id")
                let texts: [AttributeValue] = [.null, .string("t\(id)"), .string("")]
                try a.setAttributeValue(texts.randomElement(using: &random)!, forKey: "text")
                try a.setAttributeValue(
                    Bool.random(using: &random) ? .null : .integer16(Int16(truncatingIfNeeded: random.next())),
                    forKey: "small")
                try a.setAttributeValue(
                    Bool.random(using: &random)
                        ? .null : .float(Float(Int.random(in: -1000...1000, using: &random)) / 7), forKey: "fraction")
                try a.setAttributeValue(
                    Bool.random(using: &random) ? .null : .binary(Data([UInt8(id), 0, 255])), forKey: "blob")
                try a.setAttributeValue(.double(Double(id) / 3), forKey: "ratio")
                aObjects.append(a)
            }
            for id in Int64(1)...Int64.random(in: 3...15, using: &random) {
                let b = try context.insertNewObject(forEntityName: "B")
                try b.setAttributeValue(.integer64(id), forKey: "id")
                try b.setAttributeValue(
                    .date(Date(timeIntervalSinceReferenceDate: Double(id) * 86_400.5)), forKey: "when")
                try b.setObject(
                    Bool.random(using: &random) ? aObjects.randomElement(using: &random) : nil, forKey: "owner")
                bObjects.append(b)
            }
            for a in aObjects where Bool.random(using: &random) {
                try a.setObject(bObjects.randomElement(using: &random), forKey: "best")
            }
            for b in bObjects {
                try b.setObjects(
                    Array(
                        bObjects.filter { $0 !== b }.shuffled(using: &random).prefix(
                            Int.random(in: 0...3, using: &random))),
                    forKey: "peers")
            }
            try document.save()
            let changes = Changes.random(&random)
            let before = try Self.state(
                context, nil, omitRatio: changes.removeRatio, nilTextAs: changes.requireText ? "none" : nil)
            try document.close()

            let new = try Self.model(changes)
            let migrated = try PersistentDocument(contentsOf: url, model: new)
            // (Migrated unless no change touches a version hash: then it is the same model.)
            #expect(
                (migrated.migratedFrom != nil) == (old.entityVersionHashes != new.entityVersionHashes),
                "\(kind), seed \(seed): \(changes)")
            let after = try Self.state(migrated.managedObjectContext, changes, omitRatio: changes.removeRatio)
            #expect(after == before, "\(kind), seed \(seed): \(changes)")
            if after != before {
                for key in Set(after.keys).union(before.keys).sorted() where after[key] != before[key] {
                    print("\(kind) seed \(seed) \(key):\n  before \(before[key] ?? "-")\n  after  \(after[key] ?? "-")")
                }
            }
            if let added = changes.added {
                for object in try Self.fetch("A", in: migrated.managedObjectContext) {
                    #expect(try object.attributeValue(forKey: "added") == added, "\(kind), seed \(seed): added")
                }
            }
            try migrated.close()
        }
    }
}
