import Foundation
import ObjectGraph

/// Writes managed objects as JSON (`{"formatVersion":1,"objects":[{"entity","uri","values"}]}`), CSV or text, with
/// every non-transient property, in a deterministic order.
enum ObjectOutput {
    /// Objects sorted by entity name, then key.
    static func sorted(_ objects: [ManagedObject]) -> [ManagedObject] {
        objects.sorted {
            ($0.entity.name, $0.objectID.primaryKey) < ($1.entity.name, $1.objectID.primaryKey)
        }
    }

    static func properties(_ object: ManagedObject) -> (
        attributes: [AttributeDescription], relationships: [RelationshipDescription]
    ) {
        (object.entity.attributes.filter { !$0.isTransient }, object.entity.relationships.filter { !$0.isTransient })
    }

    static func destinations(_ object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObject] {
        let objects = object.objects(forKey: relationship.name)
        return relationship.isOrdered
            ? objects
            : objects.sorted {
                ($0.entity.name, $0.objectID.primaryKey) < ($1.entity.name, $1.objectID.primaryKey)
            }
    }

    static func json(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .null, .composite: .null
        case .integer16(let v): .int(Int64(v))
        case .integer32(let v): .int(Int64(v))
        case .integer64(let v): .int(v)
        case .decimal: .string(value.literalText)
        case .double(let v): v.isFinite ? .double(v) : .string("\(v)")
        case .float(let v): v.isFinite ? .double(Double(v)) : .string("\(v)")
        case .string(let s): .string(s)
        case .boolean(let b): .bool(b)
        case .date(let d): .string(ISO8601.string(d))
        case .binary(let d), .transformable(let d): .string(d.base64EncodedString())
        case .uuid(let u): .string(u.uuidString)
        case .uri(let u), .objectID(let u): .string(u.absoluteString)
        }
    }

    static func json(_ objects: [ManagedObject]) -> JSONValue {
        .object([
            ("formatVersion", .int(1)),
            (
                "objects",
                .array(
                    objects.map { object in
                        let (attributes, relationships) = properties(object)
                        var values: [(String, JSONValue)] = []
                        for attribute in attributes {
                            values.append((attribute.name, json(object.attributeValue(forKey: attribute.name))))
                        }
                        for relationship in relationships {
                            if relationship.isToMany {
                                values.append(
                                    (
                                        relationship.name,
                                        .array(
                                            destinations(object, relationship).map { .string($0.objectID.description) })
                                    ))
                            } else {
                                values.append(
                                    (
                                        relationship.name,
                                        object.object(forKey: relationship.name).map {
                                            .string($0.objectID.description)
                                        } ?? .null
                                    ))
                            }
                        }
                        values.sort { $0.0 < $1.0 }
                        return .object([
                            ("entity", .string(object.entity.name)), ("uri", .string(object.objectID.description)),
                            ("values", .object(values)),
                        ])
                    })
            ),
        ])
    }

    static func text(_ value: AttributeValue) -> String {
        switch value {
        case .null: "nil"
        case .string(let s): "\"\(s.replacingOccurrences(of: "\n", with: "\\n"))\""
        case .date(let d): ISO8601.string(d)
        case .binary(let d), .transformable(let d): "<\(d.count) bytes>"
        default: value.literalText
        }
    }

    static func text(_ objects: [ManagedObject]) -> String {
        var out = ""
        for object in objects {
            out += "\(object.entity.name) \(object.objectID)\n"
            let (attributes, relationships) = properties(object)
            for attribute in attributes.sorted(by: { $0.name < $1.name }) {
                out += "  \(attribute.name) = \(text(object.attributeValue(forKey: attribute.name)))\n"
            }
            for relationship in relationships.sorted(by: { $0.name < $1.name }) {
                if relationship.isToMany {
                    let ids = destinations(object, relationship).map(\.objectID.description)
                    out += "  \(relationship.name) -> [\(ids.joined(separator: ", "))]\n"
                } else {
                    out +=
                        "  \(relationship.name) -> \(object.object(forKey: relationship.name)?.objectID.description ?? "nil")\n"
                }
            }
        }
        out += "\(objects.count) object\(objects.count == 1 ? "" : "s")\n"
        return out
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// CSV with the columns `entity`, `uri`, then every property of every entity present (sorted); to-many
    /// relationships list URIs separated by spaces; nil is an empty field.
    static func csv(_ objects: [ManagedObject]) -> String {
        var columns = Set<String>()
        for object in objects {
            let (attributes, relationships) = properties(object)
            columns.formUnion(attributes.map(\.name) + relationships.map(\.name))
        }
        let ordered = columns.sorted()
        var out = (["entity", "uri"] + ordered).map(csvField).joined(separator: ",") + "\r\n"
        for object in objects {
            var fields = [object.entity.name, object.objectID.description]
            for column in ordered {
                if object.entity.attributeSlot(named: column) != nil {
                    let value = object.attributeValue(forKey: column)
                    switch value {
                    case .null: fields.append("")
                    case .date(let d): fields.append(ISO8601.string(d))
                    case .binary(let d), .transformable(let d): fields.append(d.base64EncodedString())
                    default: fields.append(value.literalText)
                    }
                } else if let slot = object.entity.relationshipSlot(named: column) {
                    let relationship = object.entity.relationships[slot]
                    if relationship.isToMany {
                        fields.append(
                            destinations(object, relationship).map(\.objectID.description).joined(separator: " "))
                    } else {
                        fields.append(object.object(forKey: column)?.objectID.description ?? "")
                    }
                } else {
                    fields.append("")
                }
            }
            out += fields.map(csvField).joined(separator: ",") + "\r\n"
        }
        return out
    }

    static func render(_ objects: [ManagedObject], as format: ObjectFormat) -> String {
        switch format {
        case .json: json(objects).serialized() + "\n"
        case .csv: csv(objects)
        case .text: text(objects)
        }
    }
}
