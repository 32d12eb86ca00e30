import Foundation
import ModelFiles
import ObjectGraph

/// Writes a Core Data XML store in Apple's layout: the prolog and DOCTYPE, `<databaseInfo>` with version
/// 134481920, the UUID, `nextObjectID` and the metadata plist, then one `<object>` per object in id order, with
/// upper-cased entity types, lower-cased property names, typed attribute values (nil omitted) and both sides of
/// every relationship.
struct XMLStoreWriter {
    static let formatVersion = "134481920"

    let model: ManagedObjectModel
    private var out: [UInt8] = []
    /// How each entity met so far is written.
    private var plans: [String: EntityPlan] = [:]

    init(model: ManagedObjectModel) {
        self.model = model
    }

    private mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { out.append(contentsOf: $0) }
    }

    /// Appends text escaped for element content (or, with `attribute`, an attribute value).
    /// - Returns: `false`, having appended nothing, when the text holds a character XML cannot hold (a control
    ///   character): the document would not open again.
    private mutating func appendEscaped(_ s: String, attribute: Bool) -> Bool {
        Self.escape(s, attribute: attribute, into: &out)
    }

    /// Appends `s` to `out` escaped for element content (or, with `attribute`, an attribute value).
    /// - Returns: `false`, having appended nothing, when the text holds a character XML cannot hold.
    static func escape(_ s: String, attribute: Bool, into out: inout [UInt8]) -> Bool {
        var s = s
        let plain = s.withUTF8 { bytes -> Bool in
            // Anything to escape, any control character, and 0xEF (the lead byte of U+FFFE and U+FFFF) is looked at.
            for byte in bytes
            where byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0xEF
                || (byte < 0x20 && (attribute || (byte != 0x0A && byte != 0x09))) || (attribute && byte == 0x22)
            {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if plain { return true }
        if XMLCharacters.firstUnwritable(in: s) != nil { return false }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\"") where attribute: out.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "&#13;".utf8)
            case UInt8(ascii: "\n") where attribute: out.append(contentsOf: "&#10;".utf8)
            case UInt8(ascii: "\t") where attribute: out.append(contentsOf: "&#9;".utf8)
            default: out.append(byte)
            }
        }
        return true
    }

    /// Writes a whole store from snapshots in any order (they are written in id order).
    /// - Throws: `StoreError` when a value does not fit its attribute (it is never written as something else).
    mutating func write(
        snapshots: [ObjectSnapshot], uuid: String, nextObjectID: Int64, metadata: [String: PropertyList],
        to sink: AtomicFileWriter.Sink
    ) throws(StoreError) {
        try writeStart(uuid: uuid, nextObjectID: nextObjectID, metadata: metadata)
        // In id order, by index (the snapshots are not copied).
        let ordered = snapshots.indices.sorted {
            snapshots[$0].objectID.primaryKey < snapshots[$1].objectID.primaryKey
        }
        // Made the first time a relationship names an object of an entity other than its destination.
        var objects: Set<ManagedObjectID>?
        let holds = { (id: ManagedObjectID) -> Bool in
            if objects == nil { objects = Set(snapshots.lazy.map(\.objectID)) }
            return objects?.contains(id) ?? false
        }
        for index in ordered { try writeObject(snapshots[index], key: \.primaryKey, holds: holds, to: sink) }
        try writeEnd(to: sink)
    }

    /// Writes a whole store from a stream that gives its objects a batch at a time in id order: only one batch and
    /// a megabyte of text are held at once.
    /// - Throws: `StoreError` when a value does not fit its attribute or the stream fails.
    mutating func write(_ stream: AtomicStoreStream, nextObjectID: Int64, to sink: AtomicFileWriter.Sink)
        throws(StoreError)
    {
        try writeStart(uuid: stream.identifier, nextObjectID: nextObjectID, metadata: stream.metadata)
        var written = 0
        var last = Int64.min
        while let batch = try stream.next() {
            for snapshot in batch {
                let key = try stream.key(snapshot.objectID)
                guard key > last else {
                    throw StoreError(
                        .unsupported, "\(snapshot.objectID) came after key \(last): a stream must be in id order")
                }
                last = key
                try writeObject(snapshot, key: stream.key, holds: stream.holds, to: sink)
            }
            written += batch.count
        }
        guard written == stream.count else {
            throw StoreError(.io, "the store gave \(written) objects of \(stream.count); not written")
        }
        try writeEnd(to: sink)
    }

    /// The prolog and `<databaseInfo>`.
    private mutating func writeStart(uuid: String, nextObjectID: Int64, metadata: [String: PropertyList])
        throws(StoreError)
    {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(Self.flushSize + 64 * 1024)
        append("<?xml version=\"1.0\" standalone=\"yes\"?>\n")
        append("<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n")
        append("<database>\n    <databaseInfo>\n")
        append("        <version>\(Self.formatVersion)</version>\n")
        append("        <UUID>")
        // The reader trims white space from the UUID (a file edited by hand): one with white space at an end would
        // come back as another store's (an all-blank one as none), and every object's URI with it.
        guard uuid == uuid.trimmingCharacters(in: .whitespacesAndNewlines), !uuid.isEmpty else {
            throw StoreError(
                .unsupported,
                "the store UUID '\(Diagnostics.quote(uuid))' is empty or has white space at an end, which an XML store cannot keep; not written"
            )
        }
        guard appendEscaped(uuid, attribute: false) else {
            throw StoreError(.unsupported, "the store UUID holds a character XML cannot hold; not written")
        }
        append("</UUID>\n")
        append("        <nextObjectID>\(nextObjectID)</nextObjectID>\n")
        append("        <metadata>\n")
        do {
            append(try XMLPropertyListWriter.plistElement(.dictionary(metadata), indent: 12))
        } catch {
            throw StoreError(.unsupported, "metadata: \(error.message)")
        }
        append("        </metadata>\n    </databaseInfo>\n")
    }

    /// The end of the document, and the rest of the text to the file.
    private mutating func writeEnd(to sink: AtomicFileWriter.Sink) throws(StoreError) {
        append("</database>\n")
        try flush(to: sink)
    }

    /// The text gathered so far to the file.
    private mutating func flush(to sink: AtomicFileWriter.Sink) throws(StoreError) {
        try sink.write(contentsOf: out)
        out.removeAll(keepingCapacity: true)
    }

    /// One `<object>`, each object named by `key`; the text goes to the file a megabyte at a time, so a large store is
    /// never held whole as text.
    ///
    /// A document names a relationship's destination by its key alone, and reads a key no object has as an object of
    /// the relationship's destination entity: a reference to a missing object of a sub-entity (whose row another store
    /// kept after it was deleted) would come back as another entity's, so it is refused (`holds` says which objects
    /// are written; without it, every reference is taken to name one).
    private mutating func writeObject(
        _ snapshot: ObjectSnapshot, key: (ManagedObjectID) throws(StoreError) -> Int64,
        holds: ((ManagedObjectID) -> Bool)?, to sink: AtomicFileWriter.Sink
    ) throws(StoreError) {
        let entityName = snapshot.objectID.entityName
        let plan: EntityPlan
        if let known = plans[entityName] {
            plan = known
        } else {
            guard let layout = model.layout(of: entityName) else {
                throw StoreError(.unsupported, "no entity \(entityName) in the model; not written")
            }
            plan = try EntityPlan(layout: layout, model: model)
            plans[entityName] = plan
        }
        append("    <object type=\"")
        let ownKey = try key(snapshot.objectID)
        guard ownKey > 0 else {
            throw StoreError(.corrupt, "\(snapshot.objectID) has no key a file can hold; not written")
        }
        append(plan.type)
        append("\" id=\"z")
        appendInteger(ownKey)
        append("\">\n")
        // A snapshot held by this layout's slots is read slot by slot.
        let slotted = snapshot.slotted.flatMap { $0.layout === plan.layout ? $0 : nil }
        for (column, xmlName) in plan.attributes {
            let value =
                slotted.map { column.slot < $0.count ? $0[column.slot] : .null } ?? snapshot[attribute: column.name]
            guard !value.isNull else { continue }
            let converted: AttributeValue
            do {
                converted = try plan.layout.converted(value, forAttributeAt: column.slot)
            } catch {
                throw StoreError(
                    .corrupt,
                    "\(entityName).\(column.name) of \(snapshot.objectID): \(error.description); not written")
            }
            // An Undefined attribute (meant to be transient) has no type to read a value back by: `int16` comes
            // back as a 64-bit integer, a UUID as a string.
            guard plan.layout.attributeTypes[column.slot] != .undefined else {
                throw StoreError(
                    .unsupported,
                    "\(entityName).\(column.name) of \(snapshot.objectID) holds a value, but its type is Undefined, which an XML store cannot hold (make the attribute transient); not written"
                )
            }
            guard !converted.holdsDecimalNaN else {
                throw StoreError(
                    .unsupported,
                    "\(entityName).\(column.name) of \(snapshot.objectID) is a decimal NaN, which no store file can hold; not written"
                )
            }
            guard writeAttribute(xmlName, converted) else {
                let text = converted.stringValue ?? converted.literalText
                let scalar = text.unicodeScalars.first { !XMLCharacters.canHold($0) }
                throw StoreError(
                    .unsupported,
                    "\(entityName).\(column.name) of \(snapshot.objectID) holds \(scalar.map(XMLCharacters.name) ?? "a character"), which an XML document cannot hold; not written (the binary and SQLite stores hold it)"
                )
            }
        }
        for (relationship, xmlName, destination) in plan.relationships {
            let ids: [ManagedObjectID] =
                relationship.isToMany
                ? snapshot[toMany: relationship.name] ?? []
                : (snapshot[toOne: relationship.name] ?? nil).map { [$0] } ?? []
            append(
                "        <relationship name=\"\(xmlName)\" type=\"\(relationship.isToMany ? "0/0" : "1/1")\" destination=\"\(destination)\""
            )
            if !ids.isEmpty {
                append(" idrefs=\"")
                for (i, id) in ids.enumerated() {
                    if id.entityName != relationship.destinationEntityName, let holds, !holds(id) {
                        throw StoreError(
                            .unsupported,
                            "\(snapshot.objectID).\(relationship.name) names \(id), which is not in the store: an XML document can name a missing object only as a \(relationship.destinationEntityName), so it would come back as one; not written (a binary store keeps such a link, and a SQLite store a to-one's; set the relationship to an object that is there first)"
                        )
                    }
                    let written = try key(id)
                    // An id the file could not hold would make a document that does not open again.
                    guard written > 0 else {
                        throw StoreError(
                            .corrupt,
                            "\(snapshot.objectID).\(relationship.name) names \(id), which has no key a file can hold; not written"
                        )
                    }
                    if i > 0 { out.append(0x20) }
                    out.append(UInt8(ascii: "z"))
                    appendInteger(written)
                }
                out.append(UInt8(ascii: "\""))
            }
            append("></relationship>\n")
        }
        append("    </object>\n")
        if out.count >= Self.flushSize { try flush(to: sink) }
    }

    /// How much text is gathered before it is written.
    static let flushSize = 1 << 20

    /// The attributes and relationships of an entity in writing order, with their names as written.
    final class EntityPlan {
        let type: String
        let layout: EntityLayout
        /// Stored attributes with their slots and their names as written, in writing order.
        let attributes: [(SlottedAttribute, String)]
        let relationships: [(RelationshipDescription, String, String)]

        /// - Throws: `StoreError` when a name holds a character XML cannot hold.
        init(layout: EntityLayout, model: ManagedObjectModel) throws(StoreError) {
            type = try Self.escaped(Self.written(layout.name, among: model.entityNames, cased: { $0.uppercased() }))
            self.layout = layout
            let attributeNames = layout.attributes.map(\.name)
            var attributes: [(SlottedAttribute, String)] = []
            for slot in layout.attributes.indices where !layout.attributes[slot].isTransient {
                let name = Self.written(layout.attributes[slot].name, among: attributeNames, cased: { $0.lowercased() })
                attributes.append(
                    (SlottedAttribute(slot: slot, attribute: layout.attributes[slot]), try Self.escaped(name)))
            }
            self.attributes = attributes.sorted { $0.1 < $1.1 }
            let relationshipNames = layout.relationships.map(\.name)
            var relationships: [(RelationshipDescription, String, String)] = []
            for relationship in layout.relationships where !relationship.isTransient {
                let name = Self.written(relationship.name, among: relationshipNames, cased: { $0.lowercased() })
                let destination = Self.written(
                    relationship.destinationEntityName, among: model.entityNames, cased: { $0.uppercased() })
                relationships.append((relationship, try Self.escaped(name), try Self.escaped(destination)))
            }
            self.relationships = relationships.sorted { $0.1 < $1.1 }
        }

        /// A name as an attribute value holds it (`<`, `&` and quotes escaped: a name may hold them).
        static func escaped(_ name: String) throws(StoreError) -> String {
            var bytes: [UInt8] = []
            guard XMLStoreWriter.escape(name, attribute: true, into: &bytes) else {
                throw StoreError(
                    .unsupported,
                    "the name '\(Diagnostics.quote(name))' holds a character an XML document cannot hold; not written")
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// A name as Apple writes it (entities upper-cased, properties lower-cased), or as it is when another name
        /// would be written the same way (the reader tries a name as written first, then ignoring case).
        static func written(_ name: String, among names: [String], cased: (String) -> String) -> String {
            let form = cased(name)
            return names.contains { $0 != name && cased($0) == form } ? name : form
        }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value == 0 {
            out.append(0x30)
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[23 - count] = UInt8(0x30 + magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// Seconds since 2001 with 20 fractional digits, as Apple's XML store writes dates.
    private mutating func appendDate(_ seconds: Double) {
        // Apple's form, 20 fractional digits, holds every date but those within 1e-4 s of the reference date that
        // need more digits (and the non-finite ones): those are written in the shortest form that reads back exact.
        if seconds.isFinite, seconds != 0, abs(seconds) < 1e-4 {
            append("\(seconds)")
            return
        }
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { buffer in
            let length = withVaList([seconds]) { vsnprintf(buffer.baseAddress, 400, "%.20f", $0) }
            buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: 400) { bytes in
                out.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(min(max(length, 0), 399))))
            }
        }
    }

    /// Writes one attribute. A composite value is written as one attribute per member, named
    /// `attribute.member` (nested members add `.member` again) and typed as the member: docutil's own layout, as
    /// no Apple file shows one (see the README).
    /// - Returns: `false` when a string holds a character XML cannot hold (the element is then left unfinished: the
    ///   caller throws, and the file is not written).
    private mutating func writeAttribute(_ name: String, _ value: AttributeValue) -> Bool {
        if case .composite(let members) = value {
            for member in members.keys.sorted() {
                guard let memberValue = members[member], !memberValue.isNull else { continue }
                var memberName: [UInt8] = []
                guard Self.escape(member.lowercased(), attribute: true, into: &memberName),
                    writeAttribute(name + "." + String(decoding: memberName, as: UTF8.self), memberValue)
                else { return false }
            }
            return true
        }
        let type: String
        switch value {
        case .string, .uuid, .uri, .objectID: type = "string"
        case .integer16: type = "int16"
        case .integer32: type = "int32"
        case .integer64: type = "int64"
        case .decimal: type = "decimal"
        case .double: type = "double"
        case .float: type = "float"
        case .boolean: type = "bool"
        case .date: type = "date"
        case .binary, .transformable: type = "binary"
        case .composite, .null: return true
        }
        append("        <attribute name=\"")
        append(name)
        append("\" type=\"")
        append(type)
        append("\">")
        switch value {
        case .string(let s): guard appendEscaped(s, attribute: false) else { return false }
        case .integer16(let v): appendInteger(Int64(v))
        case .integer32(let v): appendInteger(Int64(v))
        case .integer64(let v): appendInteger(v)
        case .decimal: append(value.literalText)
        case .double(let v): append("\(v)")
        case .float(let v): append("\(v)")
        case .boolean(let b): out.append(b ? 0x31 : 0x30)
        case .date(let d): appendDate(d.timeIntervalSinceReferenceDate)
        case .binary(let d), .transformable(let d): append(Self.base64Lines(d))
        case .uuid(let u): append(u.uuidString)
        case .uri(let u), .objectID(let u):
            guard appendEscaped(u.absoluteString, attribute: false) else { return false }
        case .composite, .null: break
        }
        append("</attribute>\n")
        return true
    }

    /// Base64 as Apple's XML store writes it: the first 76 characters on the first line, the rest on a second
    /// line, and a final newline when there is more than one line.
    static func base64Lines(_ data: Data) -> String {
        let text = data.base64EncodedString()
        guard text.utf8.count > 76 else { return text }
        let split = text.index(text.startIndex, offsetBy: 76)
        return text[..<split] + "\n" + text[split...] + "\n"
    }
}
