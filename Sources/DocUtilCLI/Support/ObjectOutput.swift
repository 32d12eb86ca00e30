import Foundation
import ModelFiles
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

    static func destinations(_ object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject]
    {
        let objects = try object.objects(forKey: relationship.name)
        return relationship.isOrdered
            ? objects
            : objects.sorted {
                ($0.entity.name, $0.objectID.primaryKey) < ($1.entity.name, $1.objectID.primaryKey)
            }
    }

    /// The IDs of a relationship's destinations, without making objects of them: in order for an ordered
    /// relationship, else sorted by entity and key (the order ``destinations(_:_:)`` gives).
    static func destinationIDs(_ object: ManagedObject, _ relationship: RelationshipDescription) throws
        -> [ManagedObjectID]
    {
        let ids = try object.objectIDs(forKey: relationship.name)
        return relationship.isOrdered
            ? ids : ids.sorted { ($0.entityName, $0.primaryKey) < ($1.entityName, $1.primaryKey) }
    }

    /// JSON has no NaN or infinities: they are written as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` (as
    /// JavaScript's `Number()` and most JSON libraries read them), never as null, which means nil.
    static func nonFinite(_ v: Double) -> JSONValue {
        .string(v.isNaN ? "NaN" : v > 0 ? "Infinity" : "-Infinity")
    }

    static func json(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .null: .null
        case .composite(let members):
            .object(members.keys.sorted().map { ($0, json(members[$0] ?? .null)) })
        case .integer16(let v): .int(Int64(v))
        case .integer32(let v): .int(Int64(v))
        case .integer64(let v): .int(v)
        case .decimal: .string(value.literalText)
        case .double(let v): v.isFinite ? .double(v) : nonFinite(v)
        case .float(let v): v.isFinite ? .double(Double(v)) : nonFinite(Double(v))
        case .string(let s): .string(s)
        case .boolean(let b): .bool(b)
        case .date(let d): .string(ISO8601.string(d))
        case .binary(let d), .transformable(let d): .string(d.base64EncodedString())
        case .uuid(let u): .string(u.uuidString)
        case .uri(let u), .objectID(let u): .string(u.absoluteString)
        }
    }

    static func json(_ object: ManagedObject) throws -> JSONValue {
        let uri = { (id: ManagedObjectID) in id.description }
        let (attributes, relationships) = properties(object)
        var values: [(String, JSONValue)] = []
        for attribute in attributes {
            values.append((attribute.name, json(try object.attributeValue(forKey: attribute.name))))
        }
        for relationship in relationships {
            if relationship.isToMany {
                let list = try destinationIDs(object, relationship).map { JSONValue.string(uri($0)) }
                values.append((relationship.name, .array(list)))
            } else {
                let destination = try object.objectIDs(forKey: relationship.name).first
                values.append((relationship.name, destination.map { .string(uri($0)) } ?? .null))
            }
        }
        values.sort { $0.0 < $1.0 }
        var members: [(String, JSONValue)] = [
            ("entity", .string(object.entity.name)), ("uri", .string(uri(object.objectID))),
            ("values", .object(values)),
        ]
        // Transformable values a known transformer reads, beside their bytes (which stay in values, losslessly).
        let transformed = try EntityOutputPlan(object.entity).transformedValues(object)
        if !transformed.isEmpty {
            members.append(("transformed", .object(transformed.map { ($0.0, json($0.1)) })))
        }
        return .object(members)
    }

    /// A property list as JSON: dates in ISO 8601, data in base64, keyed-archive references as their index.
    static func json(_ value: PropertyList) -> JSONValue {
        switch value {
        case .string(let s): .string(s)
        case .integer(let i): .int(i)
        case .real(let d): d.isFinite ? .double(d) : nonFinite(d)
        case .boolean(let b): .bool(b)
        case .date(let d): .string(ISO8601.string(d))
        case .data(let d): .string(d.base64EncodedString())
        case .array(let items): .array(items.map { json($0) })
        case .dictionary(let entries): .object(entries.keys.sorted().map { ($0, json(entries[$0] ?? .null)) })
        case .uid(let i): .int(Int64(i))
        case .null: .null
        }
    }

    static func text(_ value: AttributeValue) -> String {
        switch value {
        case .null: "nil"
        case .composite(let members):
            "{" + members.keys.sorted().map { "\($0) = \(text(members[$0] ?? .null))" }.joined(separator: ", ") + "}"
        // Quoted and escaped: a quote, a backslash or a control character (a terminal escape) is shown escaped.
        case .string(let s): JSONValue.quoted(s)
        case .date(let d): ISO8601.string(d)
        case .binary(let d), .transformable(let d): "<\(d.count) bytes>"
        default: value.literalText
        }
    }

    /// An object as text, one property a line; `plan` is the entity's, when the caller keeps them.
    static func text(_ object: ManagedObject, plan: EntityOutputPlan? = nil) throws -> String {
        var out = "\(object.entity.name) \(object.objectID)\n"
        let (attributes, relationships) = properties(object)
        let transformed = Dictionary(
            try (plan ?? EntityOutputPlan(object.entity)).transformedValues(object), uniquingKeysWith: { a, _ in a })
        for attribute in attributes.sorted(by: { $0.name < $1.name }) {
            let value = try object.attributeValue(forKey: attribute.name)
            if let decoded = transformed[attribute.name] {
                out += "  \(attribute.name) = \(json(decoded).serialized(compact: true)) (\(text(value)))\n"
            } else {
                out += "  \(attribute.name) = \(text(value))\n"
            }
        }
        for relationship in relationships.sorted(by: { $0.name < $1.name }) {
            if relationship.isToMany {
                let ids = try destinationIDs(object, relationship).map(\.description)
                out += "  \(relationship.name) -> [\(ids.joined(separator: ", "))]\n"
            } else {
                let destination = try object.objectIDs(forKey: relationship.name).first
                out += "  \(relationship.name) -> \(destination?.description ?? "nil")\n"
            }
        }
        return out
    }

    static func csvField(_ s: String) -> String {
        let special: (UInt8) -> Bool = {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
        guard s.utf8.contains(where: special) else { return s }
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
    static func csvRow(_ object: ManagedObject, columns: [String], uris: inout URIText) throws -> String {
        func uri(_ id: ManagedObjectID) -> String { uris.text(id) }
        var fields = [object.entity.name, uri(object.objectID)]
        for column in columns {
            if object.entity.attributeSlot(named: column) != nil {
                let value = try object.attributeValue(forKey: column)
                switch value {
                case .null: fields.append("")
                case .date(let d): fields.append(ISO8601.string(d))
                case .binary(let d), .transformable(let d): fields.append(d.base64EncodedString())
                case .double(let d) where !d.isFinite: fields.append(d.isNaN ? "NaN" : d > 0 ? "Infinity" : "-Infinity")
                case .float(let f) where !f.isFinite: fields.append(f.isNaN ? "NaN" : f > 0 ? "Infinity" : "-Infinity")
                case .composite: fields.append(json(value).serialized(compact: true))
                default: fields.append(value.literalText)
                }
            } else if let slot = object.entity.relationshipSlot(named: column) {
                let relationship = object.entity.relationships[slot]
                if relationship.isToMany {
                    fields.append(try destinationIDs(object, relationship).map(uri).joined(separator: " "))
                } else {
                    fields.append(try object.objectIDs(forKey: column).first.map(uri) ?? "")
                }
            } else {
                fields.append("")
            }
        }
        return fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    /// All of `objects` in one string.
    static func render(_ objects: [ManagedObject], as format: ObjectFormat, model: ManagedObjectModel) throws -> String
    {
        var stream = ObjectStream(
            format: format, csvColumns: csvColumns(entities: Set(objects.map(\.entity.name)), model: model))
        return stream.begin() + (try stream.write(objects)) + stream.end()
    }

    /// Writes what ``render(_:as:model:)`` makes to `output` a megabyte at a time, without making the whole text.
    static func write(
        _ objects: [ManagedObject], as format: ObjectFormat, model: ManagedObjectModel, to output: OutputFile
    ) throws {
        var stream = ObjectStream(
            format: format, csvColumns: csvColumns(entities: Set(objects.map(\.entity.name)), model: model))
        var buffer = JSONBytes(capacity: 1 << 20)
        func flush() throws {
            try buffer.withUnsafeBytes { try output.write(contentsOf: $0) }
            buffer.removeAll()
        }
        buffer.append(stream.begin())
        var start = 0
        while start < objects.count {
            let end = min(start + 1_000, objects.count)
            try stream.write(objects[start..<end], to: &buffer)
            if buffer.count >= 1 << 20 { try flush() }
            start = end
        }
        buffer.append(stream.end())
        try flush()
    }
}

/// The URI text of object IDs, with the `x-coredata://UUID/Entity/p` part made once per store and entity. A value
/// the writer keeps and passes `inout`, so reading its prefixes needs no run-time exclusivity check (a class's stored
/// list did, on every URI).
struct URIText {
    /// A store's and an entity's prefix, as text and as the bytes of a JSON string's start (`"x-coredata://…/p`).
    private final class Prefix {
        let store: String
        let entity: String
        let text: String
        let quoted: [UInt8]

        init(store: String, entity: String, text: String) {
            self.store = store
            self.entity = entity
            self.text = text
            quoted = [UInt8(ascii: "\"")] + Array(text.utf8)
        }

        /// Whether this is the prefix of `id`'s store and entity (strings of one store's IDs share their storage, and
        /// compare equal at once).
        func fits(_ id: ManagedObjectID, store: String) -> Bool { id.entityName == entity && store == self.store }
    }

    /// The prefixes made so far. Documents have few entities: a short scan comparing strings is cheaper than hashing
    /// them.
    private var prefixes: [Prefix] = []
    /// The place of the prefix found last: IDs come in runs of one entity (a list of one entity's destinations).
    private var last = 0

    /// `x-coredata://UUID/Entity/pN`, exactly as ``ManagedObjectID/uriString`` writes it.
    mutating func text(_ id: ManagedObjectID) -> String {
        guard let prefix = prefix(id) else { return id.description }
        return prefix.text + String(id.primaryKey)
    }

    /// The URI as a JSON string, appended to `out` without making a string of it.
    mutating func write(_ id: ManagedObjectID, to out: inout JSONBytes) {
        guard let prefix = prefix(id) else {
            out.append(string: id.description)
            return
        }
        // The prefix is percent-encoded (only unreserved characters, `%`, `:` and `/`): nothing in it needs escaping.
        out.append(bytes: prefix.quoted)
        out.append(integer: id.primaryKey)
        out.append(byte: UInt8(ascii: "\""))
    }

    /// The prefix of a permanent ID.
    private mutating func prefix(_ id: ManagedObjectID) -> Prefix? {
        guard !id.isTemporary, let store = id.storeIdentifier else { return nil }
        if last < prefixes.count, prefixes[last].fits(id, store: store) { return prefixes[last] }
        for place in prefixes.indices where prefixes[place].fits(id, store: store) {
            last = place
            return prefixes[place]
        }
        let full = id.uriString
        let text = String(full[..<(full.range(of: "/p", options: .backwards)?.upperBound ?? full.endIndex)])
        let made = Prefix(store: store, entity: id.entityName, text: text)
        last = prefixes.count
        prefixes.append(made)
        return made
    }
}

/// Output written in pieces — a header, objects batch by batch, a trailer — that together are exactly what
/// ``ObjectOutput/render(_:as:model:)`` makes, so a large document can be written without holding every object.
struct ObjectStream {
    let format: ObjectFormat
    let csvColumns: [String]
    private(set) var count = 0
    private var uris = URIText()
    private let plans = EntityOutputPlan.Cache()

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

    mutating func write(_ objects: [ManagedObject]) throws -> String {
        var out = JSONBytes(capacity: 1 << 16)
        try write(objects, to: &out)
        return out.string
    }

    /// Appends the objects' text to a byte buffer.
    mutating func write(_ objects: some Collection<ManagedObject>, to out: inout JSONBytes) throws {
        for object in objects {
            switch format {
            case .json:
                out.append(count == 0 ? "\n    " : ",\n    ")
                try plans.plan(for: object.entity).writeJSON(object, uris: &uris, to: &out, indent: 2)
            case .csv: out.append(try ObjectOutput.csvRow(object, columns: csvColumns, uris: &uris))
            case .text: out.append(try ObjectOutput.text(object, plan: plans.plan(for: object.entity)))
            }
            count += 1
        }
    }

    func end() -> String {
        switch format {
        case .json: count == 0 ? "]\n}\n" : "\n  ]\n}\n"
        case .csv: ""
        case .text: "\(count) object\(count == 1 ? "" : "s")\n"
        }
    }
}
