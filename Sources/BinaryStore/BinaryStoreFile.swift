public import Foundation
public import ModelFiles
public import ObjectGraph

/// A binary store file, checked and decoded: header, trailer and CRC-32 are verified when it is opened; objects
/// are decoded for a model on request. Every error names the file and the byte offset.
public struct BinaryStoreFile: Sendable {
    /// The file.
    public let url: URL
    /// The store's UUID.
    public let uuid: String
    /// The store's metadata.
    public let metadata: [String: PropertyList]
    /// The model the file was written with (Xcode `contents` XML).
    public let modelContents: String
    let body: [UInt8]
    let entitiesOffset: Int
    let names: [String]

    /// Whether the file starts with the binary store's magic.
    /// - Parameter url: the file.
    /// - Returns: `true` for a binary store.
    public static func hasMagic(_ url: URL) -> Bool {
        FileKind.head(url, count: 8).map { Array($0) == BinaryStore.magic } ?? false
    }

    /// Reads the file's header and metadata without reading its objects.
    /// - Parameter url: The store file.
    /// - Throws: `StoreError` naming the file when it cannot be read or is not a store of this type.
    public init(url: URL) throws(StoreError) {
        self.url = url
        let data: Data
        do {
            data = try FileKind.readRegularFile(url)
        } catch {
            throw StoreError(reading: error, path: url.path)
        }
        let path = url.path
        func corrupt(_ offset: Int, _ message: String) -> StoreError {
            StoreError(.corrupt, path: "\(path):offset \(offset)", "binary store: \(message)")
        }
        let bytes = [UInt8](data)
        guard bytes.count >= 16 + 28 else { throw corrupt(0, "file too short (\(bytes.count) bytes)") }
        guard Array(bytes[0..<8]) == BinaryStore.magic else {
            throw corrupt(0, "no DUBSTORE magic: not a docutil binary store")
        }
        let version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard version == 1 else { throw corrupt(8, "format version \(version) is not supported (this reader knows 1)") }
        let flags = UInt16(bytes[10]) | UInt16(bytes[11]) << 8
        let trailer = bytes.count - 28
        guard Array(bytes[(bytes.count - 8)...]) == Array("DUBEND01".utf8) else {
            throw corrupt(bytes.count - 8, "no end marker: the file is truncated")
        }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        let plainLength = u64(trailer)
        let storedLength = u64(trailer + 8)
        let crc = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[trailer + 16 + $1]) << (8 * UInt32($1)) }
        guard storedLength == UInt64(trailer - 16), plainLength < 1 << 40, flags & 1 != 0 || plainLength == storedLength
        else {
            throw corrupt(
                trailer,
                "recorded body lengths (\(plainLength), \(storedLength)) do not match the file (\(trailer - 16))")
        }
        guard flags & ~1 == 0, bytes[12..<16].allSatisfy({ $0 == 0 }) else { throw corrupt(10, "unknown flags") }
        let actual = bytes.withUnsafeBytes { Zlib.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<trailer])) }
        guard actual == crc else { throw corrupt(trailer + 16, "checksum mismatch: the file is damaged") }
        let body: [UInt8]
        if flags & 1 != 0 {
            do {
                body = try Zlib.decompress(Array(bytes[16..<trailer]), expected: Int(plainLength))
            } catch {
                throw error.code == .corrupt ? corrupt(16, error.message) : error
            }
        } else {
            body = Array(bytes[16..<trailer])
        }
        var cursor = Cursor(bytes: body, path: path, base: 16)
        let count = try cursor.count()
        var names: [String] = []
        names.reserveCapacity(count)
        for _ in 0..<count { names.append(try cursor.string()) }
        uuid = try cursor.string()
        guard case .dictionary(let metadata) = try cursor.metadataValue(depth: 0) else {
            throw corrupt(16 + cursor.position, "metadata is not a dictionary")
        }
        self.metadata = metadata
        modelContents = try cursor.string()
        entitiesOffset = cursor.position
        self.names = names
        self.body = body
    }

    /// The number of objects of each entity, read without decoding their values.
    /// - Returns: objects per entity name.
    /// - Throws: `StoreError` naming the offset when the objects cannot be walked.
    public func objectCounts() throws(StoreError) -> [String: Int] {
        var counts: [String: Int] = [:]
        var scan = Cursor(bytes: body, path: url.path, base: 16)
        scan.position = entitiesOffset
        let entities = try scan.count()
        for _ in 0..<entities {
            let header = try scan.entityHeader(names: names)
            counts[header.name] = header.objectCount
            for _ in 0..<header.objectCount { try scan.skipObject(header) }
        }
        return counts
    }

    /// The model the file carries.
    /// - Returns: the model.
    /// - Throws: `ModelFileError` when the model text cannot be read.
    public func model() throws(ModelFileError) -> ManagedObjectModel {
        try ModelLoader.readContents(Data(modelContents.utf8))
    }

    /// Decodes every object for `model` (properties are matched by name).
    /// - Parameters:
    ///   - model: the model to read the objects with.
    ///   - storeIdentifier: the store's UUID, for the object IDs.
    /// - Returns: every object's values.
    /// - Throws: `StoreError` naming the offset and the object of what cannot be read or does not fit the model.
    public func snapshots(model: ManagedObjectModel, storeIdentifier: String) throws(StoreError) -> [ObjectSnapshot] {
        var cursor = Cursor(bytes: body, path: url.path, base: 16)
        cursor.position = entitiesOffset
        let entityNames = model.entities.map(\.name).sorted()
        var snapshots: [ObjectSnapshot] = []
        let entities = try cursor.count()
        for _ in 0..<entities {
            let header = try cursor.entityHeader(names: names)
            // The count is what the file claims: room is made for at most 65,536 objects ahead of reading them.
            snapshots.reserveCapacity(snapshots.count + min(header.objectCount, 1 << 16))
            guard let layout = model.layout(of: header.name) else {
                throw cursor.fail("unknown entity '\(header.name)' (not in the model)")
            }
            // Each stored attribute's slot is found once per entity; values go straight into the slots: read into
            // the slot itself when stored as the attribute's own type of number, date or text (`direct`), else
            // decoded as a value and converted.
            let attributes = try header.attributes.map {
                (name, code) throws(StoreError) -> (name: String, type: AttributeType, slot: Int, direct: Bool) in
                guard let slot = layout.attributeSlot(named: name) else {
                    throw cursor.fail("\(header.name) has no attribute '\(name)' in the model")
                }
                guard let stored = AttributeType(rawValue: UInt32(code) * 100) else {
                    throw cursor.fail("unknown type code \(code) for \(header.name).\(name)")
                }
                let direct =
                    stored == layout.attributeTypes[slot] && !layout.attributes[slot].isTransient
                    && [.integer16, .integer32, .integer64, .boolean, .double, .date, .string].contains(stored)
                return (name, stored, slot, direct)
            }
            // Each stored relationship's slot, found once per entity, and the entities its destinations may be of.
            var relationshipSlots: [Int] = []
            // By the index of an entity in the file's names: whether it may be a destination.
            var destinationKinds: [[Bool]] = []
            for (name, isToMany) in header.relationships {
                guard let slot = layout.relationshipSlot(named: name) else {
                    throw cursor.fail("\(header.name) has no relationship '\(name)' in the model")
                }
                let relationship = layout.relationships[slot]
                guard relationship.isToMany == isToMany else {
                    throw cursor.fail(
                        "\(header.name).\(name) is \(isToMany ? "to-many" : "to-one") in the file, not in the model")
                }
                relationshipSlots.append(slot)
                let kinds = model.layout(of: relationship.destinationEntityName)?.kindNames ?? []
                destinationKinds.append(entityNames.map { kinds.contains($0) })
            }
            /// A destination of relationship `r` as the file names it, refused when of an entity the relationship
            /// cannot hold (it would put, say, a Book where a Friend belongs).
            func destination(_ r: Int, entity: Int, key: UInt64) throws(StoreError) -> ManagedObjectID {
                let name = entityNames[entity]
                guard destinationKinds[r][entity] else {
                    throw cursor.fail(
                        "\(header.name).\(header.relationships[r].0) refers to a \(name), which it cannot hold")
                }
                return ManagedObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: Int64(key))
            }
            let toMany = header.relationships.map(\.1)
            for _ in 0..<header.objectCount {
                let key = try cursor.varint()
                let version = try cursor.varint()
                guard key > 0, key <= UInt64(Int64.max), version <= UInt64(Int64.max) else {
                    throw cursor.fail("bad object key \(key)")
                }
                let id = ManagedObjectID(
                    entityName: header.name, storeIdentifier: storeIdentifier, primaryKey: Int64(key))
                let values = SlotValues(layout: layout)
                let bitmap = try cursor.take((attributes.count + 7) / 8)
                for (i, attribute) in attributes.enumerated()
                where bitmap[bitmap.startIndex + i / 8] & (1 << UInt8(i % 8)) != 0 {
                    if attribute.direct {
                        try cursor.read(attribute.type, into: values, at: attribute.slot)
                        continue
                    }
                    let value = try cursor.value(attribute.type)
                    do {
                        values.set(try layout.converted(value, forAttributeAt: attribute.slot), at: attribute.slot)
                    } catch {
                        throw cursor.fail("\(header.name).\(attribute.name) of \(id): \(error.description)")
                    }
                }
                // Relationships by slot: those the file does not hold stay absent.
                var snapshot = ObjectSnapshot(
                    objectID: id, version: Int64(version), values: values,
                    relationships: .filled(with: .absent, count: layout.relationships.count))
                for (r, (name, _)) in header.relationships.enumerated() {
                    if toMany[r] {
                        let count = try cursor.count()
                        var ids: [ManagedObjectID] = []
                        ids.reserveCapacity(count)
                        for _ in 0..<count {
                            let entity = try cursor.varint()
                            let key = try cursor.varint()
                            guard entity < UInt64(entityNames.count), key > 0, key <= UInt64(Int64.max) else {
                                throw cursor.fail("bad reference")
                            }
                            ids.append(try destination(r, entity: Int(entity), key: key))
                        }
                        // An object named twice is one link (as the XML store reads it).
                        ids = ids.withoutRepeats(by: \.primaryKey)
                        if !snapshot.setRelationship(atSlot: relationshipSlots[r], .toMany(ids)) {
                            snapshot.toMany[name] = ids
                        }
                    } else {
                        let entity = try cursor.varint()
                        var target: ManagedObjectID?
                        if entity != 0 {
                            let key = try cursor.varint()
                            guard entity <= UInt64(entityNames.count), key > 0, key <= UInt64(Int64.max) else {
                                throw cursor.fail("bad reference")
                            }
                            target = try destination(r, entity: Int(entity) - 1, key: key)
                        }
                        if !snapshot.setRelationship(atSlot: relationshipSlots[r], .toOne(target)) {
                            snapshot.toOne[name] = .some(target)
                        }
                    }
                }
                snapshots.append(consume snapshot)
            }
        }
        return snapshots
    }
}

/// A bounds-checked reader over the body.
struct Cursor {
    let bytes: [UInt8]
    let path: String
    let base: Int
    var position = 0

    struct EntityHeader {
        var name: String
        var attributes: [(String, UInt8)]
        var relationships: [(String, Bool)]
        var objectCount: Int
    }

    func fail(_ message: String) -> StoreError {
        StoreError(.corrupt, path: "\(path):offset \(base + position)", "binary store: \(message)")
    }

    mutating func byte() throws(StoreError) -> UInt8 {
        guard position < bytes.count else { throw fail("unexpected end of data") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(StoreError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64 else { throw fail("varint too long") }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    mutating func zigzag() throws(StoreError) -> Int64 {
        let v = try varint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    /// A count or length that must fit in the remaining bytes.
    mutating func count() throws(StoreError) -> Int {
        let v = try varint()
        guard v <= UInt64(bytes.count - position) else { throw fail("count \(v) larger than the rest of the file") }
        return Int(v)
    }

    mutating func take(_ n: Int) throws(StoreError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= bytes.count - position else { throw fail("unexpected end of data") }
        defer { position += n }
        return bytes[position..<position + n]
    }

    mutating func fixed64() throws(StoreError) -> UInt64 {
        guard bytes.count - position >= 8 else { throw fail("unexpected end of data") }
        defer { position += 8 }
        return UInt64(
            littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt64.self) })
    }

    mutating func fixed32() throws(StoreError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw fail("unexpected end of data") }
        defer { position += 4 }
        return UInt32(
            littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) })
    }

    mutating func string() throws(StoreError) -> String {
        let n = try count()
        // docutil writes strings as UTF-8: other bytes are damage, never read with replacement characters.
        guard let string = try take(n).withUnsafeBufferPointer(UTF8Text.string) else {
            throw fail("a string of \(n) bytes is not UTF-8")
        }
        return string
    }

    mutating func data() throws(StoreError) -> Data {
        let n = try count()
        return Data(try take(n))
    }

    mutating func metadataValue(depth: Int) throws(StoreError) -> PropertyList {
        guard depth < 64 else { throw fail("metadata nested too deeply") }
        switch try byte() {
        case 1: return .string(try string())
        case 2: return .integer(try zigzag())
        case 3: return .real(Double(bitPattern: try fixed64()))
        case 4: return .boolean(try byte() != 0)
        case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed64())))
        case 6: return .data(try data())
        case 7:
            let n = try count()
            var items: [PropertyList] = []
            for _ in 0..<n { items.append(try metadataValue(depth: depth + 1)) }
            return .array(items)
        case 8:
            let n = try count()
            var entries: [String: PropertyList] = [:]
            for _ in 0..<n {
                let key = try string()
                entries[key] = try metadataValue(depth: depth + 1)
            }
            return .dictionary(entries)
        case 9:
            let u = try zigzag()
            guard let index = Int(exactly: u), index >= 0 else { throw fail("archive reference \(u) out of range") }
            return .uid(index)
        case 10: return .null
        case let tag: throw fail("unknown metadata tag \(tag)")
        }
    }

    mutating func name(_ names: [String]) throws(StoreError) -> String {
        let i = try varint()
        guard i < UInt64(names.count) else { throw fail("name index \(i) out of range") }
        return names[Int(i)]
    }

    mutating func entityHeader(names: [String]) throws(StoreError) -> EntityHeader {
        let name = try self.name(names)
        let attributeCount = try count()
        var attributes: [(String, UInt8)] = []
        for _ in 0..<attributeCount { attributes.append((try self.name(names), try byte())) }
        let relationshipCount = try count()
        var relationships: [(String, Bool)] = []
        for _ in 0..<relationshipCount {
            let relationshipName = try self.name(names)
            let kind = try byte()
            guard kind <= 1 else { throw fail("bad relationship kind \(kind)") }
            relationships.append((relationshipName, kind == 1))
        }
        return EntityHeader(name: name, attributes: attributes, relationships: relationships, objectCount: try count())
    }

    /// Reads a value stored as `type` straight into `slot` of `values`, whose attribute is of that type: a whole
    /// number, a boolean, a Double, a date or text. Refused as ``value(_:depth:)`` refuses it (a number out of the
    /// type's range, text that is not UTF-8).
    mutating func read(_ type: AttributeType, into values: SlotValues, at slot: Int) throws(StoreError) {
        switch type {
        case .integer16, .integer32, .integer64:
            guard values.setInteger(try zigzag(), at: slot) else {
                throw fail("Integer \(type == .integer16 ? 16 : 32) out of range")
            }
        case .boolean: _ = values.setInteger(try byte() != 0 ? 1 : 0, at: slot)
        case .double, .date: _ = values.setReal(Double(bitPattern: try fixed64()), at: slot)
        case .string:
            let n = try count()
            guard try take(n).withUnsafeBufferPointer({ values.setText($0, at: slot) }) else {
                throw fail("a string of \(n) bytes is not UTF-8")
            }
        default: values.set(try value(type), at: slot)
        }
    }

    mutating func value(_ type: AttributeType, depth: Int = 0) throws(StoreError) -> AttributeValue {
        switch type {
        case .integer16:
            guard let v = Int16(exactly: try zigzag()) else { throw fail("Integer 16 out of range") }
            return .integer16(v)
        case .integer32:
            guard let v = Int32(exactly: try zigzag()) else { throw fail("Integer 32 out of range") }
            return .integer32(v)
        case .integer64: return .integer64(try zigzag())
        case .decimal:
            let text = try string()
            guard let v = try? AttributeValue(parsing: text, as: .decimal) else { throw fail("bad decimal '\(text)'") }
            return v
        case .double: return .double(Double(bitPattern: try fixed64()))
        case .float: return .float(Float(bitPattern: try fixed32()))
        case .string: return .string(try string())
        case .boolean: return .boolean(try byte() != 0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed64())))
        case .binary: return .binary(try data())
        case .transformable: return .transformable(try data())
        case .uuid:
            guard let uuid = UUID(bytes: Data(try take(16))) else { throw fail("a UUID of other than 16 bytes") }
            return .uuid(uuid)
        case .uri, .objectID:
            let text = try string()
            guard let url = URL(string: text) else { throw fail("bad URL '\(text)'") }
            return type == .uri ? .uri(url) : .objectID(url)
        case .composite:
            // Members by name, each with its type code: `count (name type value)…` (format version 1, docutil 0.2).
            guard depth < 16 else { throw fail("composite values nested too deeply") }
            let count = try count()
            var members: [String: AttributeValue] = [:]
            for _ in 0..<count {
                let name = try string()
                let code = try byte()
                guard let memberType = AttributeType(rawValue: UInt32(code) * 100), memberType != .undefined else {
                    throw fail("unknown type code \(code) in a composite value")
                }
                let member = try value(memberType, depth: depth + 1)
                guard members.updateValue(member, forKey: name) == nil else {
                    throw fail("composite member '\(Diagnostics.quote(name))' appears twice")
                }
            }
            return .composite(members)
        case .undefined: throw fail("attribute type \(type.xcodeName) is never stored")
        }
    }

    mutating func skipObject(_ header: EntityHeader) throws(StoreError) {
        _ = try varint()
        _ = try varint()
        let bitmap = try take((header.attributes.count + 7) / 8)
        for (i, (_, code)) in header.attributes.enumerated()
        where bitmap[bitmap.startIndex + i / 8] & (1 << UInt8(i % 8)) != 0 {
            guard let type = AttributeType(rawValue: UInt32(code) * 100) else {
                throw fail("unknown type code \(code)")
            }
            switch type {
            case .string, .binary, .transformable:
                // Read as they are, whatever their bytes (strings are decoded repairing, data kept): only skipped.
                _ = try take(try count())
            default:
                _ = try value(type)
            }
        }
        for (_, toMany) in header.relationships {
            if toMany {
                let n = try count()
                for _ in 0..<n {
                    _ = try varint()
                    _ = try varint()
                }
            } else if try varint() != 0 {
                _ = try varint()
            }
        }
    }
}
