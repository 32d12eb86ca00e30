import Foundation
public import ObjectGraph

/// A graph with every kind of relationship (one-to-one, one-to-many ordered or not, many-to-many ordered on neither,
/// one or both sides, a relationship that is its own inverse, to-manys and to-ones without an inverse, a
/// sub-entity), edited at random by a seeded generator, and its state by object name: for tests that save random
/// edits and compare what is read back.
public enum RandomGraph {
    /// A deterministic generator (SplitMix64): the same seed, the same edits.
    public struct Generator: RandomNumberGenerator {
        public var state: UInt64
        public init(state: UInt64) { self.state = state }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Each relationship of the model: its entity, name, destination, whether to-many and ordered, and whether it
    /// has an inverse.
    public static let relationships:
        [(entity: String, name: String, destination: String, toMany: Bool, ordered: Bool, inverse: String?)] = [
            ("Group", "members", "Node", true, false, "group"),
            ("Group", "ranked", "Node", true, true, "rankedIn"),
            ("Group", "tags", "Node", true, true, "taggedBy"),
            ("Group", "peers", "Node", true, true, "peerOf"),
            ("Group", "linked", "Node", true, false, "links"),
            ("Group", "notes", "Node", true, true, nil),
            ("Group", "best", "Node", false, false, nil),
            ("Node", "group", "Group", false, false, "members"),
            ("Node", "rankedIn", "Group", false, false, "ranked"),
            ("Node", "taggedBy", "Group", true, false, "tags"),
            ("Node", "peerOf", "Group", true, true, "peers"),
            ("Node", "links", "Group", true, false, "linked"),
            ("Node", "friends", "Node", true, false, "friends"),
            ("Node", "next", "Node", false, false, "previous"),
            ("Node", "previous", "Node", false, false, "next"),
            ("Node", "queue", "Node", true, true, "queuedIn"),
            ("Node", "queuedIn", "Node", false, false, "queue"),
        ]

    /// The relationships a second version of the model renames (each with its old name as renaming identifier).
    public static let renamedInVersion2 = ["tags": "labels", "queue": "line", "friends": "pals", "notes": "remarks"]

    /// The model; `version2` renames ``renamedInVersion2`` and adds an optional attribute `note` to `Node`.
    public static func model(version2: Bool = false) throws -> ManagedObjectModel {
        func named(_ name: String) -> String { version2 ? renamedInVersion2[name] ?? name : name }
        func declared(_ entity: String) -> [RelationshipDescription] {
            relationships.filter { $0.entity == entity }.map {
                RelationshipDescription(
                    name: named($0.name), destination: $0.destination, inverse: $0.inverse.map(named),
                    toMany: $0.toMany, ordered: $0.ordered,
                    renamingIdentifier: named($0.name) != $0.name ? $0.name : nil)
            }
        }
        let name = AttributeDescription(name: "name", type: .string)
        let note = AttributeDescription(name: "note", type: .string)
        return try ManagedObjectModel(entities: [
            EntityDescription(name: "Group", attributes: [name], relationships: declared("Group")),
            EntityDescription(
                name: "Node", attributes: version2 ? [name, note] : [name], relationships: declared("Node")),
            EntityDescription(
                name: "Leaf", parent: "Node", attributes: [AttributeDescription(name: "weight", type: .integer64)]),
        ])
    }

    /// Every object by name: its entity, and each relationship's destinations by name (in order when ordered,
    /// sorted when not).
    public static func state(_ context: ManagedObjectContext, version2: Bool = false) throws -> [String: [String:
        String]]
    {
        var result: [String: [String: String]] = [:]
        for entity in ["Group", "Node"] {
            for object in try context.fetch(FetchRequest(entityName: entity)) {
                var values = ["entity": object.entity.name]
                for relationship in relationships where relationship.entity == entity {
                    // (Read under its name in the model, kept under its first name.)
                    let key = version2 ? renamedInVersion2[relationship.name] ?? relationship.name : relationship.name
                    if relationship.toMany {
                        let names = try object.objects(forKey: key).map {
                            try $0.attributeValue(forKey: "name").literalText
                        }
                        values[relationship.name] = (relationship.ordered ? names : names.sorted()).joined(
                            separator: " ")
                    } else {
                        values[relationship.name] =
                            try object.object(forKey: key)?.attributeValue(forKey: "name").literalText
                            ?? "-"
                    }
                }
                result[try object.attributeValue(forKey: "name").literalText] = values
            }
        }
        return result
    }

    /// One round of edits: a few objects inserted, a dozen relationships set at random, perhaps one object deleted.
    public static func edit(_ context: ManagedObjectContext, _ random: inout Generator, counter: inout Int) throws {
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            counter += 1
            let entity = ["Group", "Node", "Leaf"].randomElement(using: &random)!
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(.string("\(entity.lowercased())\(counter)"), forKey: "name")
        }
        let groups = try context.fetch(FetchRequest(entityName: "Group"))
        let nodes = try context.fetch(FetchRequest(entityName: "Node"))
        for _ in 0..<12 {
            let relationship = relationships.randomElement(using: &random)!
            let owners = relationship.entity == "Group" ? groups : nodes
            let candidates = relationship.destination == "Group" ? groups : nodes
            guard let owner = owners.randomElement(using: &random) else { continue }
            if !relationship.toMany {
                let destination = Bool.random(using: &random) ? nil : candidates.randomElement(using: &random)
                try owner.setObject(destination, forKey: relationship.name)
                continue
            }
            var pool = candidates
            if relationship.inverse == nil {
                // A to-many without an inverse holds each destination for one owner only.
                let taken = Set(
                    try groups.filter { $0 !== owner }.flatMap { try $0.objects(forKey: relationship.name) }.map {
                        ObjectIdentifier($0)
                    })
                pool = pool.filter { !taken.contains(ObjectIdentifier($0)) }
            }
            pool.shuffle(using: &random)
            let current = try owner.objects(forKey: relationship.name)
            if relationship.ordered, !current.isEmpty, Bool.random(using: &random) {
                // Moved within the list: the same destinations in another order.
                try owner.setObjects(current.shuffled(using: &random), forKey: relationship.name)
            } else {
                try owner.setObjects(
                    Array(pool.prefix(Int.random(in: 0...4, using: &random))), forKey: relationship.name)
            }
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            let doomed = (groups + nodes).randomElement(using: &random)!
            if doomed.entity.name != "Group" {
                // What holds it without an inverse lets go of it first (nothing would tell the holder).
                for group in groups {
                    let notes = try group.objects(forKey: "notes")
                    if notes.contains(where: { $0 === doomed }) {
                        try group.setObjects(notes.filter { $0 !== doomed }, forKey: "notes")
                    }
                    if try group.object(forKey: "best") === doomed { try group.setObject(nil, forKey: "best") }
                }
            }
            context.delete(doomed)
        }
    }

}
