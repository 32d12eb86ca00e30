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

    mutating func encode(
        snapshots: [ObjectSnapshot], uuid: String, metadata: [String: PropertyList], compress: Bool
    ) throws(StoreError) -> Data {
        // Names used by the entity blocks.
        var names: [String] = []
        var nameIndex: [String: Int] = [:]
        func intern(_ name: String) -> Int {
            if let i = nameIndex[name] { return i }
            nameIndex[name] = names.count
            names.append(name)
            return names.count - 1
        }
        var byEntity: [String: [ObjectSnapshot]] = [:]
        for snapshot in snapshots { byEntity[snapshot.objectID.entityName, default: []].append(snapshot) }
        let entityNames = byEntity.keys.sorted()
        let entityIndex = Dictionary(
            uniqueKeysWithValues: model.entities.map(\.name).sorted().enumerated().map { ($1, $0) })
        for name in model.entities.map(\.name).sorted() { _ = intern(name) }
        var layouts: [String: EntityLayout] = [:]
        for name in entityNames {
            guard let layout = model.layout(of: name) else {
                throw StoreError(.corrupt, "objects of entity \(name), which the model lacks; not written")
            }
            layouts[name] = layout
            for a in layout.attributes where !a.isTransient { _ = intern(a.name) }
            for r in layout.relationships where !r.isTransient { _ = intern(r.name) }
        }
        out.reserveCapacity(64 + snapshots.count * 120)
        varint(UInt64(names.count))
        for name in names { string(name) }
        string(uuid)
        metadataValue(.dictionary(metadata))
        string(XcodeModelWriter.contents(of: model))
        varint(UInt64(entityNames.count))
        for name in entityNames {
            guard let layout = layouts[name] else { continue }
            // Each stored attribute with its slot, held by reference: read once per value without copying its
            // description.
            let columns = layout.attributes.indices.filter { !layout.attributes[$0].isTransient }.map {
                SlottedAttribute(slot: $0, attribute: layout.attributes[$0])
            }
            let attributes = columns.map(\.attribute)
            let relationships = layout.relationships.filter { !$0.isTransient }
            varint(UInt64(intern(name)))
            varint(UInt64(attributes.count))
            for a in attributes {
                varint(UInt64(intern(a.name)))
                out.append(UInt8(a.type.rawValue / 100))
            }
            varint(UInt64(relationships.count))
            for r in relationships {
                varint(UInt64(intern(r.name)))
                out.append(r.isToMany ? 1 : 0)
            }
            let objects = (byEntity[name] ?? []).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            varint(UInt64(objects.count))
            let bitmapBytes = (attributes.count + 7) / 8
            for snapshot in objects {
                varint(UInt64(snapshot.objectID.primaryKey))
                varint(UInt64(max(0, snapshot.version)))
                let bitmapStart = out.count
                out.append(contentsOf: repeatElement(0, count: bitmapBytes))
                // A snapshot held by this layout's slots is read slot by slot.
                let slotted = snapshot.slotted.flatMap { $0.layout === layout ? $0.values : nil }
                for (i, column) in columns.enumerated() {
                    let value =
                        slotted.map { column.slot < $0.count ? $0[column.slot] : .null }
                        ?? snapshot[attribute: column.attribute.name]
                    guard !value.isNull else { continue }
                    let converted: AttributeValue
                    do {
                        converted = try AttributeValue.converted(
                            value, to: column.attribute, composites: layout.composites)
                    } catch {
                        throw StoreError(
                            .corrupt,
                            "\(name).\(column.attribute.name) of \(snapshot.objectID): \(error.description); not written"
                        )
                    }
                    guard encode(converted) else { continue }
                    out[bitmapStart + i / 8] |= 1 << UInt8(i % 8)
                }
                for relationship in relationships {
                    if relationship.isToMany {
                        let ids = snapshot.toMany[relationship.name] ?? []
                        varint(UInt64(ids.count))
                        for id in ids {
                            varint(UInt64(entityIndex[id.entityName] ?? 0))
                            varint(UInt64(id.primaryKey))
                        }
                    } else if let id = snapshot.toOne[relationship.name] ?? nil {
                        varint(UInt64((entityIndex[id.entityName] ?? 0) + 1))
                        varint(UInt64(id.primaryKey))
                    } else {
                        varint(0)
                    }
                }
            }
        }
        let body = compress ? try Zlib.compress(out) : out
        var file: [UInt8] = BinaryStore.magic
        file.reserveCapacity(body.count + 48)
        withUnsafeBytes(of: UInt16(1).littleEndian) { file.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(compress ? 1 : 0).littleEndian) { file.append(contentsOf: $0) }
        file.append(contentsOf: [0, 0, 0, 0])
        file.append(contentsOf: body)
        let crc = file.withUnsafeBytes { Zlib.crc32($0) }
        withUnsafeBytes(of: UInt64(out.count).littleEndian) { file.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(body.count).littleEndian) { file.append(contentsOf: $0) }
        withUnsafeBytes(of: crc.littleEndian) { file.append(contentsOf: $0) }
        file.append(contentsOf: Array("DUBEND01".utf8))
        return Data(file)
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
