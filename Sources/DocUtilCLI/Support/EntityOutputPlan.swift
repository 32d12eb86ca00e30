import Foundation
import ModelFiles
import ObjectGraph

/// What writing an entity's objects needs, worked out once per entity rather than once per object: its stored
/// properties in key order (the order JSON `values` are written in), by slot, and the Transformable attributes a
/// known transformer reads.
final class EntityOutputPlan {
    enum Member {
        case attribute(slot: Int)
        case relationship(slot: Int, toMany: Bool, ordered: Bool)
    }

    /// Every non-transient property, sorted by name.
    let members: [(name: String, member: Member)]
    /// The Transformable attributes with a known transformer, sorted by name.
    let transformables: [(name: String, slot: Int, transformer: any StoredValueTransformer)]

    init(_ layout: EntityLayout) {
        var members: [(String, Member)] = []
        var transformables: [(String, Int, any StoredValueTransformer)] = []
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            members.append((attribute.name, .attribute(slot: slot)))
            if attribute.type == .transformable,
                let transformer = ValueTransformerRegistry.transformer(forName: attribute.valueTransformerName)
            {
                transformables.append((attribute.name, slot, transformer))
            }
        }
        for (slot, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            members.append(
                (
                    relationship.name,
                    .relationship(slot: slot, toMany: relationship.isToMany, ordered: relationship.isOrdered)
                ))
        }
        self.members = members.sorted { $0.0 < $1.0 }
        self.transformables = transformables.sorted { $0.0 < $1.0 }
    }

    /// Each member's line start at one indentation level: a line break, the indentation, the quoted name and `: `.
    private var memberStarts: (level: Int, starts: [[UInt8]])?

    /// The member line starts at `level`, made once per level.
    private func starts(at level: Int) -> [[UInt8]] {
        if let memberStarts, memberStarts.level == level { return memberStarts.starts }
        let starts = members.map { member in
            var out = JSONBytes(capacity: 64)
            out.newline(level)
            out.append(string: member.name)
            out.append(literal: ": ")
            return out.bytes
        }
        memberStarts = (level, starts)
        return starts
    }

    /// The plans of the entities met so far.
    final class Cache {
        private var plans: [ObjectIdentifier: EntityOutputPlan] = [:]
        private var last: (EntityLayout, EntityOutputPlan)?

        func plan(for layout: EntityLayout) -> EntityOutputPlan {
            if let last, last.0 === layout { return last.1 }
            let plan = plans[ObjectIdentifier(layout)] ?? EntityOutputPlan(layout)
            plans[ObjectIdentifier(layout)] = plan
            last = (layout, plan)
            return plan
        }
    }

    /// The order of an unordered to-many relationship's destinations: by entity name, then key.
    static func precedes(_ a: ManagedObjectID, _ b: ManagedObjectID) -> Bool {
        a.entityName == b.entityName ? a.primaryKey < b.primaryKey : a.entityName < b.entityName
    }

    /// The decoded values of the object's Transformable attributes that a transformer reads.
    func transformedValues(_ object: ManagedObject) throws -> [(String, PropertyList)] {
        var result: [(String, PropertyList)] = []
        for (name, slot, transformer) in transformables {
            guard case .transformable(let data) = try object.attributeValue(atSlot: slot) else { continue }
            // Bytes the transformer does not read (an archive of the app's own class) are shown as bytes.
            guard let value = try? transformer.value(from: data) else { continue }
            result.append((name, value))
        }
        return result
    }

    /// The object in dump's JSON form, written straight into `out` as `ObjectOutput.json(_:)` of an object then
    /// `write(to:indent:)` at `indent` would (the same bytes, without building the value tree).
    func writeJSON(_ object: ManagedObject, uris: inout URIText, to out: inout JSONBytes, indent level: Int) throws {
        out.append(byte: UInt8(ascii: "{"))
        out.newline(level + 1)
        out.append(literal: "\"entity\": ")
        out.append(string: object.entity.name)
        out.append(byte: UInt8(ascii: ","))
        out.newline(level + 1)
        out.append(literal: "\"uri\": ")
        uris.write(object.objectID, to: &out)
        out.append(byte: UInt8(ascii: ","))
        out.newline(level + 1)
        out.append(literal: "\"values\": ")
        if members.isEmpty {
            out.append(literal: "{}")
        } else {
            out.append(byte: UInt8(ascii: "{"))
            let starts = starts(at: level + 2)
            for (i, (_, member)) in members.enumerated() {
                out.append(bytes: starts[i])
                switch member {
                case .attribute(let slot):
                    out.append(value: try object.attributeValue(atSlot: slot), indent: level + 2)
                case .relationship(let slot, let toMany, let ordered):
                    var ids = try object.objectIDs(atSlot: slot)
                    if toMany {
                        // Sorted only when out of order: a sort writes a copy of the object's list.
                        if !ordered, ids.indices.dropFirst().contains(where: { Self.precedes(ids[$0], ids[$0 - 1]) }) {
                            ids.sort(by: Self.precedes)
                        }
                        if ids.isEmpty {
                            out.append(literal: "[]")
                        } else {
                            out.append(byte: UInt8(ascii: "["))
                            for (j, id) in ids.enumerated() {
                                out.newline(level + 3)
                                uris.write(id, to: &out)
                                if j < ids.count - 1 { out.append(byte: UInt8(ascii: ",")) }
                            }
                            out.newline(level + 2)
                            out.append(byte: UInt8(ascii: "]"))
                        }
                    } else if let id = ids.first {
                        uris.write(id, to: &out)
                    } else {
                        out.append(literal: "null")
                    }
                }
                if i < members.count - 1 { out.append(byte: UInt8(ascii: ",")) }
            }
            out.newline(level + 1)
            out.append(byte: UInt8(ascii: "}"))
        }
        if !transformables.isEmpty {
            let transformed = try transformedValues(object)
            if !transformed.isEmpty {
                out.append(byte: UInt8(ascii: ","))
                out.newline(level + 1)
                out.append("\"transformed\": ")
                JSONValue.object(transformed.map { ($0.0, ObjectOutput.json($0.1)) }).write(to: &out, indent: level + 1)
            }
        }
        out.newline(level)
        out.append(byte: UInt8(ascii: "}"))
    }
}
