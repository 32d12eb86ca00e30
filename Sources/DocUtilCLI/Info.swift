import ArgumentParser
import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// `docutil info DOC`: what a document is and holds.
struct Info: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a document's store type, size, UUID, metadata, model version and object counts.")

    @Argument(help: "The document (XML, binary or SQLite store; '-' reads it from standard input).")
    var document: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @OptionGroup var options: DocumentOptions

    func run() throws {
        try reportingErrors {
            let given = try StandardStreams.documentURL(document)
            // (A link is followed; one that cannot be, a loop, is an error of its own, not a missing file.)
            guard try FileKind(path: given.path) != .missing else {
                throw DocumentError(.noInput, "\(document): no such file")
            }
            // A document package is described by the store inside it.
            let (url, isPackage) = try DocumentPackage.storeFile(of: given)
            let size = try Self.fileSize(url.path) ?? 0
            var members: [(String, JSONValue)] = [("path", .string(document))]
            if isPackage { members.append(("package", .object([("store", .string(url.path))]))) }
            var counts: [String: Int] = [:]
            var metadata: [String: PropertyList] = [:]
            var uuid: String?
            var storeType: String
            var identifiers: [String] = []
            var modelSource: String?
            var extra: [(String, JSONValue)] = []
            if let summary = try SQLiteDocumentSummary.read(url) {
                storeType = "SQLite"
                counts = summary.entityCounts
                metadata = summary.metadata
                uuid = summary.uuid
                if case .array(let ids)? = metadata["NSStoreModelVersionIdentifiers"] {
                    identifiers = ids.compactMap {
                        if case .string(let s) = $0 { return s }; return nil
                    }
                }
                modelSource = summary.modelSource
                let walSize = try Self.fileSize(url.path + "-wal")
                let walMembers: [(String, JSONValue)] = [
                    ("present", .bool(walSize != nil)), ("size", walSize.map { JSONValue.int($0) } ?? .null),
                    ("shm", .bool(FileManager.default.fileExists(atPath: url.path + "-shm"))),
                ]
                extra.append(("wal", JSONValue.object(walMembers)))
                // Apple's persistent history (NSPersistentHistoryTrackingKey): docutil's saves append to it too.
                extra.append(
                    (
                        "persistentHistory",
                        summary.history.map {
                            JSONValue.object([
                                ("transactions", .int(Int64($0.transactions))), ("changes", .int(Int64($0.changes))),
                            ])
                        } ?? .null
                    ))
            } else {
                let opened = try options.open(url.path)
                storeType = opened.storeType
                uuid = opened.store.identifier
                metadata = opened.store.metadata
                metadata.removeValue(forKey: StoreMetadata.modelKey)
                identifiers = opened.model.versionIdentifiers
                modelSource = opened.modelSource
                for entity in opened.model.entities {
                    var request = FetchRequest(entityName: entity.name)
                    request.includesSubentities = false
                    counts[entity.name] = try opened.context.count(for: request)
                }
            }
            members.append(("storeType", JSONValue.string(storeType)))
            members.append(("size", JSONValue.int(size)))
            members.append(("uuid", JSONValue.optional(uuid)))
            members.append(("modelVersionIdentifiers", JSONValue.array(identifiers.map { JSONValue.string($0) })))
            members.append(("modelSource", JSONValue.optional(modelSource)))
            members.append(("metadata", ObjectOutput.json(.dictionary(metadata))))
            var countMembers: [(String, JSONValue)] = []
            for (name, count) in counts.sorted(by: { $0.key < $1.key }) {
                countMembers.append((name, JSONValue.int(Int64(count))))
            }
            members.append(("entityCounts", JSONValue.object(countMembers)))
            members += extra
            members += Self.documentState(given)
            let output: String
            switch format {
            case .json: output = JSONValue.object(members).serialized() + "\n"
            case .text: output = TerminalText.safe(Self.renderText(members))
            }
            try OutputFile.standardOutput.write(output)
        }
    }

    /// A file's size, `nil` when there is no file; other failures are errors, never a size of 0.
    static func fileSize(_ path: String) throws(DocumentError) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw DocumentError(.io, "\(path): cannot examine the file: \(String(cString: strerror(errno)))")
        }
        return Int64(info.st_size)
    }

    /// Who holds the document open for writing, and the autosaved version beside it, if any.
    static func documentState(_ url: URL) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let holder = PersistentDocument.lockHolder(of: url) {
            members.append(
                (
                    "lock",
                    .object([
                        ("pid", .int(Int64(holder.pid))), ("host", .string(holder.host)),
                        ("program", .string(holder.program)),
                        ("since", holder.since.map { .string(ISO8601.string($0)) } ?? .null),
                    ])
                ))
        } else {
            members.append(("lock", .null))
        }
        do {
            if let found = try PersistentDocument.autosave(of: url) {
                members.append(
                    (
                        "autosave",
                        .object([
                            ("path", .string(found.url.path)), ("written", .string(ISO8601.string(found.written))),
                            ("pid", .int(Int64(found.pid))), ("host", .string(found.host)),
                            ("inserted", .int(Int64(found.inserted))), ("updated", .int(Int64(found.updated))),
                            ("deleted", .int(Int64(found.deleted))),
                        ])
                    ))
            } else {
                members.append(("autosave", .null))
            }
        } catch {
            members.append(("autosave", .object([("error", .string(error.message))])))
        }
        return members
    }

    static func renderText(_ members: [(String, JSONValue)]) -> String {
        JSONValue.object(members).infoText()
    }
}
