public import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore

/// The built-in import formats (`--from`).
public enum ImportFormat: String, Sendable, CaseIterable {
    case csv, tsv, json, plist, archive, sqlite

    /// The file extensions that name the format (a plain SQLite database shares its extensions with the SQLite
    /// store type, which the registry finds first; `import` takes them as a database to import).
    public var fileExtensions: [String] {
        switch self {
        case .csv: ["csv"]
        case .tsv: ["tsv", "tab"]
        case .json: ["json"]
        case .plist: ["plist"]
        case .archive: ["archive", "nskeyedarchive"]
        case .sqlite: ["sqlite", "sqlite3", "db"]
        }
    }

    /// The document type registered for the format.
    public var documentType: DocumentType {
        let importer: any DocumentImporter
        let name: String
        switch self {
        case .csv: (name, importer) = ("CSV", DelimitedImporter(separator: UInt8(ascii: ",")))
        case .tsv: (name, importer) = ("TSV", DelimitedImporter(separator: 0x09))
        case .json: (name, importer) = ("JSON", JSONImporter())
        case .plist: (name, importer) = ("PropertyList", PropertyListImporter())
        case .archive: (name, importer) = ("KeyedArchive", PropertyListImporter())
        case .sqlite: (name, importer) = ("SQLiteDatabase", SQLiteTableImporter())
        }
        return DocumentType(
            name: name, fileExtensions: self == .sqlite ? [] : fileExtensions, storeType: nil, importer: importer)
    }

    /// The format of a source: `explicit` if given, else by extension, else by the first bytes.
    /// - Parameters:
    ///   - url: the source.
    ///   - explicit: the format given with `--from`, if any.
    /// - Returns: the format to read it with.
    /// - Throws: ``DocumentError`` `badData` when neither tells (name it with `--from`), `noInput` for a missing
    ///   file.
    public static func of(_ url: URL, explicit: ImportFormat? = nil) throws(DocumentError) -> ImportFormat {
        if let explicit { return explicit }
        let ext = url.pathExtension.lowercased()
        if let byName = allCases.first(where: { $0.fileExtensions.contains(ext) }) { return byName }
        // The first bytes; a missing or unreadable file is reported as such here, not as an unknown format.
        let input = try ByteInput(url)
        var head: [UInt8] = []
        while head.count < 64, let byte = try input.next() { head.append(byte) }
        let text = String(decoding: head, as: UTF8.self)
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return .sqlite }
        if head.starts(with: Array("bplist".utf8)) { return .plist }
        if text.hasPrefix("<?xml") || text.hasPrefix("<plist") { return .plist }
        let first = head.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }.first
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") { return .json }
        throw DocumentError(
            .badData, "\(url.path): cannot tell the file's format from its name or contents; name it with --from")
    }
}

/// CSV and TSV: the header names the columns; each row is one object of the file's entity.
struct DelimitedImporter: DocumentImporter {
    let separator: UInt8

    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError) {
        let input = try ByteInput(url)
        var reader = DelimitedReader(input, separator: separator)
        let entity = try target.entity(forFile: url)
        guard let header = try reader.next() else {
            throw DocumentError(
                .badData, "\(url.path):1:1: the file is empty; a header row naming the columns is needed")
        }
        var seen = Set<String>()
        for (name, position) in zip(header.fields, header.positions) where !seen.insert(name.lowercased()).inserted {
            throw DocumentError(
                .badData, "\(url.path):\(position.line):\(position.column): the column '\(name)' appears twice")
        }
        let columns = target.checkColumns(
            zip(header.fields, header.positions).map { ($0, .position(line: $1.line, column: $1.column)) },
            of: entity, in: url)
        var cells: [ImportNode] = []
        var record = DelimitedRecord()
        while try reader.next(into: &record) {
            guard let first = record.positions.first else { continue }
            guard record.fields.count == columns.count else {
                target.problem(
                    "the row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"); the header has \(columns.count)",
                    at: .position(line: first.line, column: first.column), in: url)
                try target.recordRead(from: url, bytesRead: input.offset, totalBytes: input.size)
                continue
            }
            cells.removeAll(keepingCapacity: true)
            for (field, position) in zip(record.fields, record.positions) {
                cells.append(ImportNode(.text(field), at: .position(line: position.line, column: position.column)))
            }
            try target.insertRow(
                entity, columns: columns, cells: cells, at: .position(line: first.line, column: first.column), in: url)
            try target.recordRead(from: url, bytesRead: input.offset, totalBytes: input.size)
        }
    }
}

/// JSON: `docutil dump`'s format (`{"formatVersion": 1, "objects": [...]}`, lossless, relationships by object URI),
/// an array of objects of one entity, or an object mapping entity names to such arrays. Keys name properties; a
/// nested object (or array of objects) under a relationship creates the destination(s).
struct JSONImporter: DocumentImporter {
    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError) {
        let input = try ByteInput(url)
        let reader = JSONReader(input)
        switch try reader.peekToken() {
        case UInt8(ascii: "["):
            input.advance()
            try readArray(reader, of: try target.entity(forFile: url), into: target)
        case UInt8(ascii: "{"):
            input.advance()
            var first = true
            var dump = false
            while let (key, place) = try reader.nextKey(first: first) {
                defer { first = false }
                if first && key == "formatVersion" {
                    let version = try reader.readValue()
                    guard case .integer(1) = version.value else {
                        throw reader.fail(at: version.place, "formatVersion \(version.value) is not supported (only 1)")
                    }
                    dump = true
                    continue
                }
                if dump {
                    guard key == "objects" else {
                        throw reader.fail(
                            at: place, "unknown key '\(key)' in a dump (it has formatVersion and objects)")
                    }
                    try expectArray(reader)
                    try readDumpObjects(reader, into: target)
                    continue
                }
                guard try reader.peekToken() == UInt8(ascii: "[") else {
                    throw reader.fail("the value of '\(key)' must be an array of \(key) objects")
                }
                input.advance()
                guard let entity = try target.entity(forKey: key, prefix: "key:", in: url) else {
                    throw reader.fail(
                        at: place,
                        "no entity is named '\(key)' (the model has: \(target.model.entityNames.joined(separator: ", ")); a mapping can name it)"
                    )
                }
                try readArray(reader, of: entity, into: target)
            }
        case nil:
            throw DocumentError(.badData, "\(url.path):1:1: the file is empty")
        default:
            throw reader.fail("expected an array of objects or an object of arrays, found \(try reader.describeNext())")
        }
        try reader.expectEnd()
    }

    private func expectArray(_ reader: JSONReader) throws(DocumentError) {
        try reader.expect(UInt8(ascii: "["), "an array")
    }

    /// Reads each element of the array whose `[` was just read, whole, and passes it on; progress is reported
    /// after each.
    private func forEachRecord(
        _ reader: JSONReader, into target: ImportTarget, _ body: (ImportNode) throws(DocumentError) -> Void
    ) throws(DocumentError) {
        var first = true
        while try reader.nextElement(first: first) {
            first = false
            try body(try reader.readValue(depth: 1))
            try target.recordRead(
                from: reader.input.url, bytesRead: reader.input.offset, totalBytes: reader.input.size)
        }
    }

    private func readArray(_ reader: JSONReader, of entity: EntityLayout, into target: ImportTarget)
        throws(DocumentError)
    {
        let url = reader.input.url
        try forEachRecord(reader, into: target) { (record) throws(DocumentError) in
            guard case .object(let fields) = record.value else {
                target.problem(
                    "expected an object of \(entity.name), found \(record.value.kind)", at: record.place, in: url)
                return
            }
            try target.insert(entity, fields: fields, at: record.place, in: url)
        }
    }

    private func readDumpObjects(_ reader: JSONReader, into target: ImportTarget) throws(DocumentError) {
        let url = reader.input.url
        try forEachRecord(reader, into: target) { (record) throws(DocumentError) in
            guard case .object(let fields) = record.value else {
                throw reader.fail(at: record.place, "expected a dumped object, found \(record.value.kind)")
            }
            var entityName: String?
            var uri: String?
            var values: [ImportField] = []
            for field in fields {
                switch (field.name, field.node.value) {
                case ("entity", .string(let name)): entityName = name
                case ("uri", .string(let text)): uri = text
                case ("values", .object(let members)): values = members
                // Transformable values shown decoded; their bytes are in values.
                case ("transformed", .object): break
                default:
                    throw reader.fail(
                        at: field.node.place,
                        "unexpected '\(field.name)' in a dumped object (it has entity, uri, values and transformed)")
                }
            }
            guard let entityName, let uri else {
                throw reader.fail(at: record.place, "a dumped object needs \"entity\" and \"uri\"")
            }
            guard target.model.layout(of: entityName) != nil else {
                target.problem("the model has no entity '\(entityName)'", at: record.place, in: url)
                return
            }
            let entity = try target.layout(named: entityName, for: url)
            try target.insertDumped(entity, uri: uri, values: values, at: record.place, in: url)
        }
    }
}

/// Property lists (XML or binary) and `NSKeyedArchiver` archives whose root is an array of records of one entity or
/// a dictionary mapping entity names to such arrays; records are dictionaries whose keys name properties.
struct PropertyListImporter: DocumentImporter {
    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError) {
        let data: Data
        do {
            data = try FileKind.readRegularFile(url)
        } catch {
            throw DocumentError(error)
        }
        var root: PropertyList
        do {
            root = try PropertyList.read(data)
            if KeyedArchiveReader.isKeyedArchive(root) { root = try KeyedArchiveReader.rootObject(of: data) }
        } catch {
            throw DocumentError(.badData, "\(url.path): \(error.message)")
        }
        switch root {
        case .array(let records):
            try readRecords(records, of: try target.entity(forFile: url), path: "", url: url, into: target)
        case .dictionary(let entries):
            for key in entries.keys.sorted() {
                guard let entity = try target.entity(forKey: key, prefix: "key:", in: url) else {
                    target.problem(
                        "no entity is named '\(key)' (the model has: \(target.model.entityNames.joined(separator: ", ")); a mapping can name it)",
                        at: .keyPath(key), in: url)
                    continue
                }
                guard case .array(let records) = entries[key] else {
                    target.problem("expected an array of \(entity.name) records", at: .keyPath(key), in: url)
                    continue
                }
                try readRecords(records, of: entity, path: key, url: url, into: target)
            }
        default:
            throw DocumentError(.badData, "\(url.path): the root must be an array of records or a dictionary of arrays")
        }
    }

    private func readRecords(
        _ records: [PropertyList], of entity: EntityLayout, path: String, url: URL, into target: ImportTarget
    ) throws(DocumentError) {
        for (i, record) in records.enumerated() {
            let place = ImportPlace.keyPath(path).appending(String(i))
            let node = Self.node(record, at: place)
            guard case .object(let fields) = node.value else {
                target.problem(
                    "expected a dictionary of \(entity.name) values, found \(node.value.kind)", at: place, in: url)
                continue
            }
            try target.insert(entity, fields: fields, at: place, in: url)
            try target.recordRead(from: url)
        }
    }

    /// A property list value as an import value, each element and entry with its key path.
    static func node(_ plist: PropertyList, at place: ImportPlace) -> ImportNode {
        switch plist {
        case .string(let s): ImportNode(.string(s), at: place)
        case .integer(let i): ImportNode(.integer(i), at: place)
        case .real(let d): ImportNode(.real(d), at: place)
        case .boolean(let b): ImportNode(.bool(b), at: place)
        case .date(let d): ImportNode(.date(d), at: place)
        case .data(let d): ImportNode(.data(d), at: place)
        case .null: ImportNode(.null, at: place)
        case .uid(let u): ImportNode(.integer(Int64(u)), at: place)
        case .array(let items):
            ImportNode(.array(items.enumerated().map { node($1, at: place.appending(String($0))) }), at: place)
        case .dictionary(let entries):
            ImportNode(
                .object(
                    entries.keys.sorted().map { key in
                        ImportField(name: key, node: node(entries[key] ?? .null, at: place.appending(key)))
                    }), at: place)
        }
    }
}

/// A plain SQLite database (not a Core Data store): each table named like an entity (ignoring case, or as a
/// mapping says) imports as that entity, its columns as attributes. Other tables are left out.
struct SQLiteTableImporter: DocumentImporter {
    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError) {
        do {
            let reader = try SQLiteTableReader(url: url)
            if try reader.isCoreDataStore {
                throw DocumentError(
                    .badData,
                    "\(url.path) is a Core Data store, not a plain database; convert it (docutil convert) or open it")
            }
            var matched = 0
            for table in try reader.tables() {
                guard let entity = try target.entity(forKey: table, prefix: "table:", in: url) else { continue }
                matched += 1
                let names = try reader.columns(of: table)
                let columns = target.checkColumns(
                    names.map { ($0, .row(table: table, rowid: 0, column: $0)) }, of: entity, in: url)
                let rows = try reader.rows(of: table)
                var cells: [ImportNode] = []
                while let (rowid, values) = try rows.next() {
                    cells.removeAll(keepingCapacity: true)
                    for (name, value) in zip(names, values) {
                        let place = ImportPlace.row(table: table, rowid: rowid, column: name)
                        switch value {
                        case .null: cells.append(ImportNode(.null, at: place))
                        case .integer(let i): cells.append(ImportNode(.integer(i), at: place))
                        case .real(let d): cells.append(ImportNode(.real(d), at: place))
                        case .text(let s): cells.append(ImportNode(.string(s), at: place))
                        case .blob(let d): cells.append(ImportNode(.data(d), at: place))
                        }
                    }
                    try target.insertRow(
                        entity, columns: columns, cells: cells, at: .row(table: table, rowid: rowid, column: nil),
                        in: url)
                    try target.recordRead(from: url)
                }
            }
            if matched == 0 {
                throw DocumentError(
                    .badData,
                    "\(url.path): no table is named like an entity (tables: \(try reader.tables().joined(separator: ", ")); entities: \(target.model.entityNames.joined(separator: ", ")); a mapping can name them)"
                )
            }
        } catch let error as DocumentError {
            throw error
        } catch let error as SQLiteStoreError {
            throw DocumentError(error.code == .notFound ? .noInput : .badData, error.description)
        } catch {
            throw DocumentError(.io, "\(url.path): \(error)")
        }
    }
}
