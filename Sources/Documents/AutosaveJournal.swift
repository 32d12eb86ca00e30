import Foundation
import ModelFiles
import ObjectGraph

/// The autosave sidecar: a document's unsaved changes (``UnsavedChanges``), written beside it as
/// `.<name>.docutil-autosave` (a binary property list), never into the document itself.
///
/// Only the changes are written, so an autosave costs what changed, not what the document holds, and recovery lays
/// them over the document as it is on disk. Values are kept exactly (numbers by their bit patterns, decimals as
/// text), so what is recovered is what was typed. The sidecar is written to a temporary file and renamed, so a
/// crash during an autosave leaves the previous autosave whole.
enum AutosaveJournal {
    static let formatVersion: Int64 = 1
    static let suffix = ".docutil-autosave"

    /// The sidecar of a document.
    static func sidecarURL(for document: URL) -> URL {
        document.deletingLastPathComponent().appendingPathComponent(".\(document.lastPathComponent)\(suffix)")
    }

    /// Where untitled documents autosave: `$XDG_STATE_HOME/docutil/autosave` (or `~/.local/state/…`).
    static func untitledFolder() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_STATE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSTemporaryDirectory()).appendingPathComponent(
                ".local/state")
        return base.appendingPathComponent("docutil/autosave")
    }

    /// What a journal records beside the changes.
    struct Header {
        var storeIdentifier: String
        var modelDigest: String
        var document: String
        var written: Date
        var pid: Int32
        var host: String
        /// The document's file as the session last read or saved it (size, modification time), which its changes
        /// are relative to; `nil` for a new document (and in autosaves of earlier docutils).
        var file: (size: Int64, modified: timespec)? = nil
    }

    // MARK: - Writing

    static func encode(_ changes: UnsavedChanges, header: Header) -> Data {
        var root: [String: PropertyList] = [
            "docutilAutosave": .integer(formatVersion),
            "storeUUID": .string(header.storeIdentifier),
            "modelDigest": .string(header.modelDigest),
            "document": .string(header.document),
            "written": .real(header.written.timeIntervalSinceReferenceDate),
            "pid": .integer(Int64(header.pid)),
            "host": .string(header.host),
            "inserted": .array(changes.inserted.map { .dictionary(fields($0)) }),
            "updated": .array(
                changes.updated.map { update in
                    var entry = fields(update.snapshot)
                    entry["changed"] = .array(update.changedKeys.sorted().map { .string($0) })
                    entry["expected"] = .integer(update.expectedVersion)
                    return .dictionary(entry)
                }),
            "deleted": .array(
                changes.deleted.map {
                    .dictionary(["id": .string($0.objectID.uriString), "expected": .integer($0.expectedVersion)])
                }),
        ]
        if let file = header.file {
            root["fileSize"] = .integer(file.size)
            root["fileModified"] = .integer(Int64(file.modified.tv_sec))
            root["fileModifiedNanoseconds"] = .integer(Int64(file.modified.tv_nsec))
        }
        return BinaryPropertyListWriter.data(.dictionary(root))
    }

    private static func fields(_ snapshot: ObjectSnapshot) -> [String: PropertyList] {
        [
            "id": .string(snapshot.objectID.uriString),
            "version": .integer(snapshot.version),
            "attributes": .dictionary(snapshot.attributes.mapValues(value)),
            "toOne": .dictionary(snapshot.toOne.mapValues { .string($0?.uriString ?? "") }),
            "toMany": .dictionary(snapshot.toMany.mapValues { .array($0.map { .string($0.uriString) }) }),
        ]
    }

    /// A value as `[type, payload]`, exactly: binary floating point by bit pattern.
    static func value(_ value: AttributeValue) -> PropertyList {
        switch value {
        case .null: .array([.string("null")])
        case .integer16(let v): .array([.string("i16"), .integer(Int64(v))])
        case .integer32(let v): .array([.string("i32"), .integer(Int64(v))])
        case .integer64(let v): .array([.string("i64"), .integer(v)])
        case .decimal(let v): .array([.string("decimal"), .string(v.description)])
        case .double(let v): .array([.string("double"), .integer(Int64(bitPattern: v.bitPattern))])
        case .float(let v): .array([.string("float"), .integer(Int64(v.bitPattern))])
        case .string(let v): .array([.string("string"), .string(v)])
        case .boolean(let v): .array([.string("bool"), .boolean(v)])
        case .date(let v):
            .array([.string("date"), .integer(Int64(bitPattern: v.timeIntervalSinceReferenceDate.bitPattern))])
        case .binary(let v): .array([.string("binary"), .data(v)])
        case .uuid(let v): .array([.string("uuid"), .string(v.uuidString)])
        case .uri(let v): .array([.string("uri"), .string(v.absoluteString)])
        case .transformable(let v): .array([.string("transformable"), .data(v)])
        case .objectID(let v): .array([.string("objectID"), .string(v.absoluteString)])
        case .composite(let members): .array([.string("composite"), .dictionary(members.mapValues(Self.value))])
        }
    }

    // MARK: - Reading

    /// Reads a journal.
    /// - Throws: ``DocumentError`` `badData` naming the sidecar and the entry that cannot be read.
    static func decode(_ data: Data, path: String) throws(DocumentError) -> (UnsavedChanges, Header) {
        func bad(_ what: String) -> DocumentError {
            DocumentError(.badData, "\(path): not a readable autosave (\(what))")
        }
        let root: [String: PropertyList]
        do throws(ModelFileError) {
            root = try PropertyList.read(data).dictionary ?? [:]
        } catch {
            throw bad(error.message)
        }
        guard case .integer(let version)? = root["docutilAutosave"] else { throw bad("no docutilAutosave key") }
        guard version == formatVersion else { throw bad("format \(version); this docutil reads \(formatVersion)") }
        guard case .string(let uuid)? = root["storeUUID"], case .string(let digest)? = root["modelDigest"],
            case .real(let written)? = root["written"], case .integer(let pid)? = root["pid"]
        else { throw bad("its header is incomplete") }
        var header = Header(
            storeIdentifier: uuid, modelDigest: digest, document: root["document"]?.string ?? "",
            written: Date(timeIntervalSinceReferenceDate: written), pid: Int32(truncatingIfNeeded: pid),
            host: root["host"]?.string ?? "?")
        if case .integer(let size)? = root["fileSize"], case .integer(let seconds)? = root["fileModified"],
            case .integer(let nanoseconds)? = root["fileModifiedNanoseconds"]
        {
            header.file = (
                size, timespec(tv_sec: Int(truncatingIfNeeded: seconds), tv_nsec: Int(truncatingIfNeeded: nanoseconds))
            )
        }
        var changes = UnsavedChanges()
        // Each object is inserted, updated or deleted once: an ID seen twice is damage (two new objects where the
        // session had one, say), not something to apply twice.
        var seen: Set<ManagedObjectID> = []
        func once(_ id: ManagedObjectID, at place: String) throws(JournalError) {
            guard seen.insert(id).inserted else { throw JournalError(place: place, reason: "\(id) is listed twice") }
        }
        do throws(JournalError) {
            for (i, entry) in (root["inserted"]?.array ?? []).enumerated() {
                let place = "inserted[\(i)]"
                let snapshot = try snapshot(entry, at: place)
                try once(snapshot.objectID, at: place)
                changes.inserted.append(snapshot)
            }
            for (i, entry) in (root["updated"]?.array ?? []).enumerated() {
                let place = "updated[\(i)]"
                let snapshot = try snapshot(entry, at: place)
                try once(snapshot.objectID, at: place)
                guard case .integer(let expected)? = entry["expected"], let keys = entry["changed"]?.array else {
                    throw JournalError(place: place, reason: "no expected version or changed keys")
                }
                var changed: Set<String> = []
                for key in keys {
                    guard let name = key.string else {
                        throw JournalError(place: place, reason: "a changed key that is not a name")
                    }
                    changed.insert(name)
                }
                changes.updated.append(
                    ObjectUpdate(snapshot: snapshot, changedKeys: changed, expectedVersion: expected))
            }
            for (i, entry) in (root["deleted"]?.array ?? []).enumerated() {
                let place = "deleted[\(i)]"
                guard case .integer(let expected)? = entry["expected"] else {
                    throw JournalError(place: place, reason: "no expected version")
                }
                let id = try objectID(entry["id"], at: place)
                try once(id, at: place)
                changes.deleted.append(ObjectDeletion(objectID: id, expectedVersion: expected))
            }
        } catch {
            throw bad("\(error.place): \(error.reason)")
        }
        return (changes, header)
    }

    struct JournalError: Error {
        var place: String
        var reason: String
    }

    private static func objectID(_ entry: PropertyList?, at place: String) throws(JournalError) -> ManagedObjectID {
        guard case .string(let text)? = entry, let url = URL(string: text),
            let id = ManagedObjectID(uriRepresentation: url)
        else { throw JournalError(place: place, reason: "an object ID that does not read") }
        return id
    }

    private static func snapshot(_ entry: PropertyList, at place: String) throws(JournalError) -> ObjectSnapshot {
        guard case .integer(let version)? = entry["version"], let attributes = entry["attributes"]?.dictionary,
            let toOne = entry["toOne"]?.dictionary, let toMany = entry["toMany"]?.dictionary
        else { throw JournalError(place: place, reason: "an incomplete object") }
        var snapshot = ObjectSnapshot(objectID: try objectID(entry["id"], at: place), version: version)
        for (name, encoded) in attributes { snapshot.attributes[name] = try value(encoded, at: "\(place).\(name)") }
        for (name, destination) in toOne {
            if case .string("")? = Optional(destination) {
                snapshot.toOne[name] = .some(nil)
            } else {
                snapshot.toOne[name] = .some(try objectID(destination, at: "\(place).\(name)"))
            }
        }
        for (name, destinations) in toMany {
            guard let list = destinations.array else {
                throw JournalError(place: "\(place).\(name)", reason: "not a list of objects")
            }
            var ids: [ManagedObjectID] = []
            for destination in list { ids.append(try objectID(destination, at: "\(place).\(name)")) }
            snapshot.toMany[name] = ids
        }
        return snapshot
    }

    /// Reads a value written by ``value(_:)``, nested composites included (to a bounded depth).
    static func value(_ encoded: PropertyList, at place: String, depth: Int = 0) throws(JournalError)
        -> AttributeValue
    {
        guard depth < 32, let pair = encoded.array, case .string(let tag)? = pair.first else {
            throw JournalError(place: place, reason: "a value that does not read")
        }
        let payload = pair.count > 1 ? pair[1] : .null
        func fail() -> JournalError { JournalError(place: place, reason: "a \(tag) value that does not read") }
        switch (tag, payload) {
        case ("null", _): return .null
        case ("i16", .integer(let v)):
            guard let exact = Int16(exactly: v) else { throw fail() }
            return .integer16(exact)
        case ("i32", .integer(let v)):
            guard let exact = Int32(exactly: v) else { throw fail() }
            return .integer32(exact)
        case ("i64", .integer(let v)): return .integer64(v)
        case ("decimal", .string(let v)):
            guard let decimal = DecimalText.parse(v) else { throw fail() }
            return .decimal(decimal)
        case ("double", .integer(let v)): return .double(Double(bitPattern: UInt64(bitPattern: v)))
        case ("float", .integer(let v)):
            guard let bits = UInt32(exactly: v) else { throw fail() }
            return .float(Float(bitPattern: bits))
        case ("string", .string(let v)): return .string(v)
        case ("bool", .boolean(let v)): return .boolean(v)
        case ("date", .integer(let v)):
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(bitPattern: v))))
        case ("binary", .data(let v)): return .binary(v)
        case ("uuid", .string(let v)):
            guard let uuid = UUID(uuidString: v) else { throw fail() }
            return .uuid(uuid)
        case ("uri", .string(let v)):
            guard let url = URL(string: v) else { throw fail() }
            return .uri(url)
        case ("transformable", .data(let v)): return .transformable(v)
        case ("objectID", .string(let v)):
            guard let url = URL(string: v) else { throw fail() }
            return .objectID(url)
        case ("composite", .dictionary(let members)):
            var values: [String: AttributeValue] = [:]
            for (name, member) in members {
                values[name] = try value(member, at: "\(place).\(name)", depth: depth + 1)
            }
            return .composite(values)
        default:
            throw fail()
        }
    }

    /// What a sidecar holds, read from its header and counts; `nil` when there is none.
    /// - Throws: ``DocumentError`` when it exists but cannot be read.
    static func info(at url: URL) throws(DocumentError) -> AutosaveInfo? {
        let data: Data
        do {
            data = try FileKind.readRegularFile(url)
        } catch {
            if error.code == .notFound { return nil }
            throw DocumentError(error)
        }
        let changes: UnsavedChanges
        let header: Header
        do {
            (changes, header) = try decode(data, path: url.path)
        } catch {
            // Not recovered, never removed here: the user decides (the document itself is as it was).
            var failure = error
            failure.message += "; the document is as it was saved: move this file away to open it without the autosave"
            throw failure
        }
        return AutosaveInfo(
            url: url, written: header.written, pid: header.pid, host: header.host, inserted: changes.inserted.count,
            updated: changes.updated.count, deleted: changes.deleted.count)
    }
}
