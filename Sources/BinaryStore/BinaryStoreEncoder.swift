import Foundation
import ModelFiles
import ObjectGraph

/// Encodes a whole store in the binary format.
struct BinaryStoreEncoder {
    let model: ManagedObjectModel
    private var out: [UInt8] = []

    init(model: ManagedObjectModel) {
        self.model = model
    }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { bytes in
            varint(UInt64(bytes.count))
            out.append(contentsOf: bytes)
        }
    }

    mutating func bytes(_ d: Data) {
        varint(UInt64(d.count))
        out.append(contentsOf: d)
    }

    mutating func metadataValue(_ value: PropertyList) {
        switch value {
        case .string(let s):
            out.append(1)
            string(s)
        case .integer(let i):
            out.append(2)
            zigzag(i)
        case .real(let r):
            out.append(3)
            fixed(r.bitPattern)
        case .boolean(let b): out.append(contentsOf: [4, b ? 1 : 0])
        case .date(let d):
            out.append(5)
            fixed(d.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let d):
            out.append(6)
            bytes(d)
        case .array(let items):
            out.append(7)
            varint(UInt64(items.count))
            for item in items { metadataValue(item) }
        case .dictionary(let entries):
            out.append(8)
            varint(UInt64(entries.count))
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                string(key)
                metadataValue(item)
            }
        case .uid(let u):
            out.append(9)
            zigzag(Int64(u))
        case .null: out.append(10)
        }
    }

    /// How one entity's objects are written: its layout, stored attributes with their slots, relationships.
    final class EntityPlan {
        let name: String
        let layout: EntityLayout
        let columns: [SlottedAttribute]
        /// The stored relationships' names and kinds: what each object needs of them (a relationship's whole
        /// description, copied per object, retained every string it holds).
        let relationships: [(name: String, isToMany: Bool)]

        init(name: String, layout: EntityLayout) {
            self.name = name
            self.layout = layout
            // Each stored attribute with its slot, held by reference: read once per value without copying its
            // description.
            columns = layout.attributes.indices.filter { !layout.attributes[$0].isTransient }.map {
                SlottedAttribute(slot: $0, attribute: layout.attributes[$0])
            }
            relationships = layout.relationships.filter { !$0.isTransient }.map { ($0.name, $0.isToMany) }
        }
    }

    /// The names table and each entity's plan, for the entities that have objects (sorted by name).
    private var nameIndex: [String: Int] = [:]
    private var entityIndex: [String: Int] = [:]
    /// The entity of the last destination written, and its index.
    private var lastReference: (name: String, index: Int)?

    /// Encodes a whole store from snapshots in any order, to `sink`: the header, the body (compressed in one piece
    /// when asked) and the trailer, with the checksum kept as they go (the body is not copied into a file image).
    mutating func encode(
        snapshots: [ObjectSnapshot], uuid: String, metadata: [String: PropertyList], compress: Bool,
        to sink: AtomicFileWriter.Sink
    ) throws(StoreError) {
        // Each entity's objects as keys and places in `snapshots`, in key order (the snapshots are not copied).
        var byEntity: [String: [(key: Int64, place: Int)]] = [:]
        // Snapshots come in runs of one entity: each run is gathered apart and added to its entity's list once.
        var run: (entity: String, objects: [(key: Int64, place: Int)])? = nil
        for place in snapshots.indices {
            let id = snapshots[place].objectID
            if run?.entity != id.entityName {
                if let done = run { byEntity[done.entity, default: []].append(contentsOf: done.objects) }
                run = (id.entityName, [])
            }
            run?.objects.append((id.primaryKey, place))
        }
        if let done = run { byEntity[done.entity, default: []].append(contentsOf: done.objects) }
        out.reserveCapacity(64 + snapshots.count * 120)
        let plans = try encodeStart(entityNames: byEntity.keys.sorted(), uuid: uuid, metadata: metadata)
        for plan in plans {
            var objects = byEntity.removeValue(forKey: plan.name) ?? []
            if !zip(objects, objects.dropFirst()).allSatisfy({ $0.key < $1.key }) { objects.sort { $0.key < $1.key } }
            encodeEntityStart(plan, count: objects.count)
            var reader = SlotReader(layout: plan.layout)
            for object in objects { try encodeObject(snapshots[object.place], plan, &reader) }
        }
        let start = Self.fileStart(compressed: compress)
        let body = compress ? try Zlib.compress(out) : out
        let crc = Zlib.crc32(start: Zlib.crc32(start: nil, start), body)
        try sink.write(contentsOf: start)
        try sink.write(contentsOf: body)
        try sink.write(contentsOf: Self.fileEnd(bodyLength: out.count, storedLength: body.count, crc: crc))
    }

    /// Encodes a whole store from a stream that gives its objects entity by entity (entities by name, keys ascending),
    /// uncompressed, to `sink` a megabyte at a time with the checksum kept as it goes: only one batch and a megabyte
    /// of bytes are held at once.
    /// - Throws: `StoreError` when a value does not fit, the stream is out of order or fails, or the file cannot be
    ///   written.
    mutating func encode(_ stream: AtomicStoreStream, uuid: String, to sink: AtomicFileWriter.Sink)
        throws(StoreError)
    {
        let names = stream.counts.filter { $0.value > 0 }.keys.sorted()
        let plans = try encodeStart(entityNames: names, uuid: uuid, metadata: stream.metadata)
        var crc = Zlib.crc32(start: nil, Self.fileStart(compressed: false))
        var bodyLength = 0
        func flush(_ encoder: inout BinaryStoreEncoder) throws(StoreError) {
            crc = Zlib.crc32(start: crc, encoder.out)
            bodyLength += encoder.out.count
            try sink.write(contentsOf: encoder.out)
            encoder.out.removeAll(keepingCapacity: true)
        }
        try sink.write(contentsOf: Self.fileStart(compressed: false))
        var entity = -1
        var left = 0
        var last = Int64.min
        var readers = plans.map { SlotReader(layout: $0.layout) }
        while let batch = try stream.next() {
            for snapshot in batch {
                while left == 0 {
                    entity += 1
                    guard entity < plans.count else {
                        throw StoreError(.unsupported, "the store gave more objects than it counted; not written")
                    }
                    left = stream.counts[plans[entity].name] ?? 0
                    last = Int64.min
                    encodeEntityStart(plans[entity], count: left)
                }
                guard snapshot.objectID.entityName == plans[entity].name, snapshot.objectID.primaryKey > last else {
                    throw StoreError(
                        .unsupported,
                        "\(snapshot.objectID) came out of order: a stream must go entity by entity, keys ascending")
                }
                last = snapshot.objectID.primaryKey
                try encodeObject(snapshot, plans[entity], &readers[entity])
                left -= 1
            }
            if out.count >= 1 << 20 { try flush(&self) }
        }
        guard left == 0, entity == plans.count - 1 else {
            throw StoreError(.io, "the store gave fewer objects than it counted; not written")
        }
        try flush(&self)
        try sink.write(contentsOf: Self.fileEnd(bodyLength: bodyLength, storedLength: bodyLength, crc: crc))
    }

    /// The file's first bytes: magic, format version, flags.
    static func fileStart(compressed: Bool) -> [UInt8] {
        var file: [UInt8] = BinaryStore.magic
        withUnsafeBytes(of: UInt16(1).littleEndian) { file.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(compressed ? 1 : 0).littleEndian) { file.append(contentsOf: $0) }
        file.append(contentsOf: [0, 0, 0, 0])
        return file
    }

    /// The file's trailer: the body's length before and after compression, the checksum of everything before it and
    /// the end marker.
    static func fileEnd(bodyLength: Int, storedLength: Int, crc: UInt32) -> [UInt8] {
        var end: [UInt8] = []
        withUnsafeBytes(of: UInt64(bodyLength).littleEndian) { end.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(storedLength).littleEndian) { end.append(contentsOf: $0) }
        withUnsafeBytes(of: crc.littleEndian) { end.append(contentsOf: $0) }
        end.append(contentsOf: Array("DUBEND01".utf8))
        return end
    }

    /// The body's start: the names table (every entity of the model, then the stored properties of the entities
    /// with objects), the UUID, the metadata, the model and the number of entities with objects; returns their plans.
    private mutating func encodeStart(entityNames: [String], uuid: String, metadata: [String: PropertyList])
        throws(StoreError) -> [EntityPlan]
    {
        var names: [String] = []
        func intern(_ name: String) {
            guard nameIndex[name] == nil else { return }
            nameIndex[name] = names.count
            names.append(name)
        }
        entityIndex = Dictionary(
            uniqueKeysWithValues: model.entities.map(\.name).sorted().enumerated().map { ($1, $0) })
        for name in model.entities.map(\.name).sorted() { intern(name) }
        var plans: [EntityPlan] = []
        for name in entityNames {
            guard let layout = model.layout(of: name) else {
                throw StoreError(.corrupt, "objects of entity \(name), which the model lacks; not written")
            }
            let plan = EntityPlan(name: name, layout: layout)
            for column in plan.columns { intern(column.attribute.name) }
            for r in plan.relationships { intern(r.name) }
            plans.append(plan)
        }
        varint(UInt64(names.count))
        for name in names { string(name) }
        string(uuid)
        metadataValue(.dictionary(metadata))
        do {
            string(try XcodeModelWriter.contents(of: model))
        } catch {
            throw StoreError(.unsupported, "the model cannot be written into the document: \(error.message)")
        }
        varint(UInt64(entityNames.count))
        return plans
    }

    /// An entity block's start: its name, attributes, relationships and object count.
    private mutating func encodeEntityStart(_ plan: EntityPlan, count: Int) {
        varint(UInt64(nameIndex[plan.name] ?? 0))
        varint(UInt64(plan.columns.count))
        for column in plan.columns {
            varint(UInt64(nameIndex[column.attribute.name] ?? 0))
            out.append(UInt8(column.attribute.type.rawValue / 100))
        }
        varint(UInt64(plan.relationships.count))
        for r in plan.relationships {
            varint(UInt64(nameIndex[r.name] ?? 0))
            out.append(r.isToMany ? 1 : 0)
        }
        varint(UInt64(count))
    }

    /// One object: key, version, the bitmap of present attributes and their values, then every relationship.
    /// - Parameter reader: Reads the snapshot's values by slot (one reader for all the objects of an entity).
    private mutating func encodeObject(_ snapshot: ObjectSnapshot, _ plan: EntityPlan, _ reader: inout SlotReader)
        throws(StoreError)
    {
        let layout = plan.layout
        guard snapshot.objectID.primaryKey > 0 else {
            throw StoreError(.corrupt, "\(snapshot.objectID) has no key a file can hold; not written")
        }
        varint(UInt64(snapshot.objectID.primaryKey))
        varint(UInt64(max(0, snapshot.version)))
        let bitmapStart = out.count
        out.append(contentsOf: repeatElement(0, count: (plan.columns.count + 7) / 8))
        reader.read(snapshot)
        for (i, column) in plan.columns.enumerated() {
            let value = reader[column.slot]
            guard !value.isNull else { continue }
            let converted: AttributeValue
            do {
                // A value of the attribute's own type is itself (as `converted` gives it), without the call.
                if let type = value.type, type == column.type, type != .composite, type != .undefined {
                    converted = value
                } else {
                    converted = try layout.converted(value, forAttributeAt: column.slot)
                }
            } catch {
                throw StoreError(
                    .corrupt,
                    "\(plan.name).\(column.attribute.name) of \(snapshot.objectID): \(error.description); not written")
            }
            // The file keeps each value by its attribute's type; an Undefined attribute (meant to be transient) has
            // none to read it back by.
            guard column.type != .undefined else {
                throw StoreError(
                    .unsupported,
                    "\(plan.name).\(column.attribute.name) of \(snapshot.objectID) holds a value, but its type is Undefined, which a binary store cannot hold (make the attribute transient); not written"
                )
            }
            // (Only a decimal or a composite value, after conversion of the attribute's type, can hold one.)
            guard (column.type != .decimal && column.type != .composite) || !converted.holdsDecimalNaN else {
                throw StoreError(
                    .unsupported,
                    "\(plan.name).\(column.attribute.name) of \(snapshot.objectID) is a decimal NaN, which no store file can hold; not written"
                )
            }
            guard encode(converted) else { continue }
            out[bitmapStart + i / 8] |= 1 << UInt8(i % 8)
        }
        for relationship in plan.relationships {
            if relationship.isToMany {
                let ids = snapshot[toMany: relationship.name] ?? []
                varint(UInt64(ids.count))
                for id in ids {
                    let (entity, key) = try reference(id, from: snapshot.objectID, relationship.name)
                    varint(entity)
                    varint(key)
                }
            } else if let id = snapshot[toOne: relationship.name] ?? nil {
                let (entity, key) = try reference(id, from: snapshot.objectID, relationship.name)
                varint(entity + 1)
                varint(key)
            } else {
                varint(0)
            }
        }
    }

    /// A destination as the file names it: its entity's index in the names table and its key. One the file cannot
    /// name (an entity the model lacks, a key that is not positive) is an error, never another object.
    private mutating func reference(_ id: ManagedObjectID, from owner: ManagedObjectID, _ name: String)
        throws(StoreError) -> (entity: UInt64, key: UInt64)
    {
        // Destinations come in runs of one entity: the last one's index is tried before the table.
        let index: Int
        if let last = lastReference, last.name == id.entityName {
            index = last.index
        } else if let found = entityIndex[id.entityName] {
            index = found
            lastReference = (id.entityName, found)
        } else {
            throw StoreError(.corrupt, "\(owner).\(name) names \(id), an entity the model lacks; not written")
        }
        guard id.primaryKey > 0 else {
            throw StoreError(.corrupt, "\(owner).\(name) names \(id), which has no key a file can hold; not written")
        }
        return (UInt64(index), UInt64(id.primaryKey))
    }

    /// Appends one value; `false` for null (not stored: its bit stays clear).
    mutating func encode(_ value: AttributeValue) -> Bool {
        switch value {
        case .integer16(let v): zigzag(Int64(v))
        case .integer32(let v): zigzag(Int64(v))
        case .integer64(let v): zigzag(v)
        case .decimal: string(value.literalText)
        case .double(let v): fixed(v.bitPattern)
        case .float(let v): fixed(v.bitPattern)
        case .string(let s): string(s)
        case .boolean(let b): out.append(b ? 1 : 0)
        case .date(let d): fixed(d.timeIntervalSinceReferenceDate.bitPattern)
        case .binary(let d), .transformable(let d): bytes(d)
        case .uuid(let u): withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        case .uri(let u), .objectID(let u): string(u.absoluteString)
        case .composite(let members):
            let present = members.filter { !$0.value.isNull }
            varint(UInt64(present.count))
            for name in present.keys.sorted() {
                guard let member = present[name], let type = member.type else { continue }
                string(name)
                out.append(UInt8(type.rawValue / 100))
                _ = encode(member)
            }
        case .null: return false
        }
        return true
    }
}
