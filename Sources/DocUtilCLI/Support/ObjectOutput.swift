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

    static func json(_ object: ManagedObject) -> JSONValue {
        let (attributes, relationships) = properties(object)
        var values: [(String, JSONValue)] = []
        for attribute in attributes {
            values.append((attribute.name, json(object.attributeValue(forKey: attribute.name))))
        }
        for relationship in relationships {
            if relationship.isToMany {
                let uris = destinations(object, relationship).map { JSONValue.string($0.objectID.description) }
                values.append((relationship.name, .array(uris)))
            } else {
                let uri = object.object(forKey: relationship.name).map { JSONValue.string($0.objectID.description) }
                values.append((relationship.name, uri ?? .null))
            }
        }
        values.sort { $0.0 < $1.0 }
        return .object([
            ("entity", .string(object.entity.name)), ("uri", .string(object.objectID.description)),
            ("values", .object(values)),
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

    static func text(_ object: ManagedObject) -> String {
        var out = "\(object.entity.name) \(object.objectID)\n"
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
        return out
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The CSV columns after `entity` and `uri`: every property of every entity present, sorted.
    static func csvColumns(entities: Set<String>, model: ManagedObjectModel) -> [String] {
        var columns = Set<String>()
        for name in entities {
            guard let layout = model.layout(of: name) else { continue }
            columns.formUnion(layout.attributes.filter { !$0.isTransient }.map(\.name))
            columns.formUnion(layout.relationships.filter { !$0.isTransient }.map(\.name))
        }
        return columns.sorted()
    }

    /// One CSV record: to-many relationships list URIs separated by spaces; nil is an empty field.
    static func csvRow(_ object: ManagedObject, columns: [String]) -> String {
        var fields = [object.entity.name, object.objectID.description]
        for column in columns {
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
                    fields.append(destinations(object, relationship).map(\.objectID.description).joined(separator: " "))
                } else {
                    fields.append(object.object(forKey: column)?.objectID.description ?? "")
                }
            } else {
                fields.append("")
            }
        }
        return fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    /// All of `objects` in one string.
    static func render(_ objects: [ManagedObject], as format: ObjectFormat, model: ManagedObjectModel) -> String {
        var stream = ObjectStream(
            format: format, csvColumns: csvColumns(entities: Set(objects.map(\.entity.name)), model: model))
        return stream.begin() + stream.write(objects) + stream.end()
    }
}

/// Output written in pieces — a header, objects batch by batch, a trailer — that together are exactly what
/// ``ObjectOutput/render(_:as:model:)`` makes, so a large document can be written without holding every object.
struct ObjectStream {
    let format: ObjectFormat
    let csvColumns: [String]
    private(set) var count = 0

    init(format: ObjectFormat, csvColumns: [String]) {
        self.format = format
        self.csvColumns = csvColumns
    }

    func begin() -> String {
        switch format {
        case .json: "{\n  \"formatVersion\": 1,\n  \"objects\": ["
        case .csv: (["entity", "uri"] + csvColumns).map(ObjectOutput.csvField).joined(separator: ",") + "\r\n"
        case .text: ""
        }
    }

    mutating func write(_ objects: [ManagedObject]) -> String {
        var out = ""
        for object in objects {
            switch format {
            case .json: out += (count == 0 ? "\n    " : ",\n    ") + ObjectOutput.json(object).serialized(indent: 2)
            case .csv: out += ObjectOutput.csvRow(object, columns: csvColumns)
            case .text: out += ObjectOutput.text(object)
            }
            count += 1
        }
        return out
    }

    func end() -> String {
        switch format {
        case .json: count == 0 ? "]\n}\n" : "\n  ]\n}\n"
        case .csv: ""
        case .text: "\(count) object\(count == 1 ? "" : "s")\n"
        }
    }
}
