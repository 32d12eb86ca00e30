import BinaryStore
import CBenchXML2
import Foundation
import ObjectGraph
import XMLStore

/// Issue 5: loading and saving 100,000 objects in the XML and binary stores, side by side with libxml2's own
/// streaming parse of the same file, writing the same text with a minimal hand-written formatter, and a
/// hand-written fixed-layout binary codec.
enum AtomicStoreBenchmarks {
    static func snapshots(count: Int, storeIdentifier: String) -> [ObjectSnapshot] {
        let group = ManagedObjectID(entityName: "Group", storeIdentifier: storeIdentifier, primaryKey: 102)
        var result = [ObjectSnapshot(objectID: group, attributes: ["title": .string("all")], toMany: ["items": []])]
        var members: [ManagedObjectID] = []
        for i in 0..<count {
            let id = ManagedObjectID(entityName: "Item", storeIdentifier: storeIdentifier, primaryKey: Int64(103 + i))
            members.append(id)
            result.append(
                ObjectSnapshot(objectID: id, attributes: ObjectGraphBenchmarks.values(i), toOne: ["group": group]))
        }
        result[0].toMany["items"] = members
        return result
    }

    /// The store identifier every store of this block is written with.
    static let uuid = "6B1F3C2E-6F0B-4D4A-9C5E-2A1D7E8F9A01"

    /// Registers the stores and makes the model, a scratch folder (the caller removes it) and `count` items.
    static func setUp(count: Int) throws -> (ManagedObjectModel, URL, AtomicStoreContents) {
        XMLStore.register()
        BinaryStore.register()
        let model = try ObjectGraphBenchmarks.model()
        let contents = AtomicStoreContents(identifier: uuid, snapshots: snapshots(count: count, storeIdentifier: uuid))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "docutil-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (model, directory, contents)
    }

    /// One operation of this block, repeated, for a profiler (`perf record`): xml-save, xml-load, binary-save,
    /// binary-load.
    static func profile(_ operation: String, times: Int) throws {
        let (model, directory, contents) = try setUp(count: 100_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = ["storeIdentifier": uuid]
        let xml = try XMLStore(
            description: StoreDescription(type: "XML", url: directory.appendingPathComponent("p.xml"), options: options)
        )
        let binary = try BinaryStore(
            description: StoreDescription(
                type: "Binary", url: directory.appendingPathComponent("p.binary"), options: options))
        try xml.prepareWrite(contents, model: model).commit()
        try binary.prepareWrite(contents, model: model).commit()
        for _ in 0..<times {
            switch operation {
            case "xml-save": try xml.prepareWrite(contents, model: model).commit()
            case "binary-save": try binary.prepareWrite(contents, model: model).commit()
            case "xml-load": blackHole(try XMLStore(description: xml.description).load(model: model))
            case "binary-load": blackHole(try BinaryStore(description: binary.description).load(model: model))
            default: throw CocoaError(.featureUnsupported)
            }
        }
    }

    static func run() throws {
        let count = 100_000
        let (model, directory, contents) = try setUp(count: count)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("\nAtomic stores (\(count) objects + 1 group; each save writes, flushes and renames a file)")

        // Each store and its baseline in turns with the other store and its baseline (see `Comparison`): bodies 0
        // and 1 are the XML baseline and store, 2 and 3 the binary ones; ratios are medians of the rounds'.
        let xmlURL = directory.appendingPathComponent("store.xml")
        let xml = try XMLStore(
            description: StoreDescription(type: "XML", url: xmlURL, options: ["storeIdentifier": uuid]))
        let binaryURL = directory.appendingPathComponent("store.binary")
        let binary = try BinaryStore(
            description: StoreDescription(type: "Binary", url: binaryURL, options: ["storeIdentifier": uuid]))
        let rawURL = directory.appendingPathComponent("raw.xml")
        let fixedURL = directory.appendingPathComponent("fixed.bin")
        /// The four saves of `snapshots` (held by name, or as a load gives them), in turns.
        func saves(of snapshots: AtomicStoreContents) throws -> Comparison {
            try Comparison(
                rounds: 5,
                [
                    { try writeFlushed(rawXML(snapshots.snapshots), to: rawURL) },
                    { try xml.prepareWrite(snapshots, model: model).commit() },
                    { try writeFlushed(FixedCodec.encode(snapshots.snapshots), to: fixedURL) },
                    { try binary.prepareWrite(snapshots, model: model).commit() },
                ])
        }
        let save = try saves(of: contents)
        let load = try Comparison(
            rounds: 5,
            [
                { blackHole(try libxml2Parse(xmlURL)) },
                { blackHole(try XMLStore(description: StoreDescription(type: "XML", url: xmlURL)).load(model: model)) },
                { blackHole(FixedCodec.decode(try Data(contentsOf: fixedURL), storeIdentifier: uuid)) },
                {
                    blackHole(
                        try BinaryStore(description: StoreDescription(type: "Binary", url: binaryURL)).load(
                            model: model))
                },
            ])
        func size(_ url: URL) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        }
        report(
            "XML save via the store (\(try size(xmlURL) / 1_000_000) MB)", seconds: save.median(1),
            ratio: save.ratio(1, to: 0), goal: "goal ≤ 1.5×")
        report("  baseline: hand-written formatter + write + fsync", seconds: save.median(0))
        report("XML load via the store", seconds: load.median(1), ratio: load.ratio(1, to: 0), goal: "goal ≤ 1.5×")
        report("  baseline: libxml2 xmlTextReader over the same file", seconds: load.median(0))
        report(
            "binary save via the store (\(try size(binaryURL) / 1_000_000) MB)", seconds: save.median(3),
            ratio: save.ratio(3, to: 2), goal: "goal ≤ 3×")
        report("binary load via the store", seconds: load.median(3), ratio: load.ratio(3, to: 2), goal: "goal ≤ 3×")
        report("  baseline: fixed-layout codec save + fsync", seconds: save.median(2))
        report("  baseline: fixed-layout codec load", seconds: load.median(2))
        print(
            String(
                format: "binary vs XML: load %.1f× faster, save %.1f× faster (goal ≥ 5×)", load.ratio(1, to: 3),
                save.ratio(1, to: 3)))

        // A document's save hands a store the snapshots it loaded (held by slot) with the changes laid over them,
        // not snapshots built by name: the same saves, of what the XML store loaded.
        let resave = try saves(
            of: try XMLStore(description: StoreDescription(type: "XML", url: xmlURL)).load(model: model))
        print("Saving the snapshots a load gives (held by slot, as a document's save passes them):")
        report("XML save via the store", seconds: resave.median(1), ratio: resave.ratio(1, to: 0), goal: "goal ≤ 1.5×")
        report("  baseline: hand-written formatter + write + fsync", seconds: resave.median(0))
        report(
            "binary save via the store", seconds: resave.median(3), ratio: resave.ratio(3, to: 2), goal: "goal ≤ 3×")
        report("  baseline: fixed-layout codec save + fsync", seconds: resave.median(2))
        print(String(format: "binary vs XML: save %.1f× faster (goal ≥ 5×)", resave.ratio(1, to: 3)))
    }

    /// Writes `data` to `url` and flushes it to the disk, as a store's save does (the baselines' write).
    static func writeFlushed(_ data: Data, to url: URL) throws {
        try data.write(to: url)
        let fd = open(url.path, O_RDONLY)
        fsync(fd)
        close(fd)
    }

    /// libxml2's own streaming parse: every node read, names and values touched.
    static func libxml2Parse(_ url: URL) throws -> Int {
        guard let reader = xmlReaderForFile(url.path, nil, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue))
        else {
            throw StoreError(.io, "libxml2 could not open the file")
        }
        defer { xmlFreeTextReader(reader) }
        var nodes = 0
        while xmlTextReaderRead(reader) == 1 {
            if let name = xmlTextReaderConstName(reader) { nodes &+= Int(name.pointee) }
            if xmlTextReaderHasAttributes(reader) == 1 {
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    if let value = xmlTextReaderConstValue(reader) { nodes &+= Int(value.pointee) }
                }
            }
            if let value = xmlTextReaderConstValue(reader) { nodes &+= Int(value.pointee) }
        }
        return nodes
    }

    /// The same XML text from a minimal formatter, for the raw-writing baseline.
    static func rawXML(_ snapshots: [ObjectSnapshot]) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(snapshots.count * 700)
        out.append(contentsOf: "<?xml version=\"1.0\" standalone=\"yes\"?>\n<database>\n".utf8)
        for s in snapshots {
            out.append(
                contentsOf:
                    "    <object type=\"\(s.objectID.entityName.uppercased())\" id=\"z\(s.objectID.primaryKey)\">\n"
                    .utf8)
            for (name, value) in s.attributes {
                out.append(
                    contentsOf:
                        "        <attribute name=\"\(name.lowercased())\" type=\"x\">\(value.literalText)</attribute>\n"
                        .utf8)
            }
            for (name, id) in s.toOne {
                out.append(
                    contentsOf:
                        "        <relationship name=\"\(name)\" type=\"1/1\" destination=\"GROUP\" idrefs=\"z\(id?.primaryKey ?? 0)\"></relationship>\n"
                        .utf8)
            }
            for (name, ids) in s.toMany {
                out.append(
                    contentsOf: "        <relationship name=\"\(name)\" type=\"0/0\" destination=\"ITEM\" idrefs=\""
                        .utf8)
                for id in ids { out.append(contentsOf: "z\(id.primaryKey) ".utf8) }
                out.append(contentsOf: "\"></relationship>\n".utf8)
            }
            out.append(contentsOf: "    </object>\n".utf8)
        }
        out.append(contentsOf: "</database>\n".utf8)
        return Data(out)
    }
}

/// A hand-written fixed-layout codec for the benchmark entity: each field at a fixed place, strings with a length.
enum FixedCodec {
    static func encode(_ snapshots: [ObjectSnapshot]) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(snapshots.count * 120)
        func put<T>(_ v: T) { withUnsafeBytes(of: v) { out.append(contentsOf: $0) } }
        func put(_ s: String?) {
            let bytes = Array((s ?? "").utf8)
            put(UInt32(bytes.count))
            out.append(contentsOf: bytes)
        }
        put(UInt64(snapshots.count))
        for s in snapshots {
            put(s.objectID.primaryKey)
            put(s[attribute: "name"].stringValue)
            put(s[attribute: "number"].int64Value ?? 0)
            put(s[attribute: "price"].doubleValue ?? 0)
            if case .date(let d) = s[attribute: "created"] { put(d.timeIntervalSinceReferenceDate) } else { put(0.0) }
            put(UInt8(s[attribute: "done"] == .boolean(true) ? 1 : 0))
            put(Int32(s[attribute: "rank"].int64Value ?? 0))
            put(s[attribute: "note"].stringValue)
            put(Float(s[attribute: "ratio"].doubleValue ?? 0))
            put(Int16(s[attribute: "small"].int64Value ?? 0))
            put(s[attribute: "code"].stringValue)
            put((s.toOne["group"] ?? nil)?.primaryKey ?? 0)
        }
        return Data(out)
    }

    static func decode(_ data: Data, storeIdentifier: String) -> [ObjectSnapshot] {
        let bytes = [UInt8](data)
        var p = 0
        func get<T>(_: T.Type) -> T {
            defer { p += MemoryLayout<T>.size }
            return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: p, as: T.self) }
        }
        func string() -> String {
            let n = Int(get(UInt32.self))
            defer { p += n }
            return String(decoding: bytes[p..<p + n], as: UTF8.self)
        }
        let count = Int(get(UInt64.self))
        var result: [ObjectSnapshot] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let key = get(Int64.self)
            var s = ObjectSnapshot(
                objectID: ManagedObjectID(entityName: "Item", storeIdentifier: storeIdentifier, primaryKey: key))
            s.attributes["name"] = .string(string())
            s.attributes["number"] = .integer64(get(Int64.self))
            s.attributes["price"] = .double(get(Double.self))
            s.attributes["created"] = .date(Date(timeIntervalSinceReferenceDate: get(Double.self)))
            s.attributes["done"] = .boolean(get(UInt8.self) == 1)
            s.attributes["rank"] = .integer32(get(Int32.self))
            s.attributes["note"] = .string(string())
            s.attributes["ratio"] = .float(get(Float.self))
            s.attributes["small"] = .integer16(get(Int16.self))
            s.attributes["code"] = .string(string())
            let group = get(Int64.self)
            s.toOne["group"] = ManagedObjectID(entityName: "Group", storeIdentifier: storeIdentifier, primaryKey: group)
            result.append(s)
        }
        return result
    }
}
