import ArgumentParser
import Documents
import Foundation
import ObjectGraph
import Synchronization

/// `docutil dump DOC`: every object of a document.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every object of a document (or of one entity) as JSON, CSV or text.")

    /// Objects read, written and let go at a time.
    static let batchSize = 1_000

    @Argument(help: "The document (XML, binary or SQLite store; '-' reads it from standard input).")
    var document: String

    @Option(help: "Only objects of this entity (and its sub-entities).")
    var entity: String?

    @Option(help: "Output format: json, csv or text.")
    var format: ObjectFormat = .json

    @Flag(
        help:
            "Show stored values that do not fit their attributes as they are (with a warning each) instead of failing.")
    var lenient = false

    @Flag(
        help:
            "List the persistent-history transactions and their changes (a SQLite store that tracks history) instead of the objects."
    )
    var history = false

    @OptionGroup var options: DocumentOptions

    func validate() throws {
        if history && (entity != nil || format == .csv) {
            throw ValidationError("--history lists transactions: it takes --format json or text, not --entity or csv")
        }
    }

    func run() throws {
        try reportingErrors {
            let opened = try options.open(document, lenient: lenient)
            if history {
                try Self.writeHistory(of: opened, path: document, format: format)
                return
            }
            defer { DocumentOptions.reportValueWarnings(opened, path: document) }
            let names =
                try entity.map { name -> [String] in
                    guard opened.model.entity(named: name) != nil else {
                        throw DocumentError(
                            .badData,
                            "the document has no entity '\(name)' (it has: \(opened.model.entityNames.joined(separator: ", ")))"
                        )
                    }
                    return [name]
                } ?? opened.model.entities.filter { $0.parentName == nil }.map(\.name)
            // Each entity's keys first (8 bytes an object), then the objects batch by batch, each batch written and
            // let go, so that memory stays bounded by the batch (plus the keys) however large the document.
            let coordinator = opened.context.persistentStoreCoordinator
            let order: DumpOrder
            do throws(StoreError) {
                order = try DumpOrder(
                    entities: names.flatMap { opened.model.entityAndDescendants(of: $0) }, coordinator: coordinator)
            } catch {
                throw ContextError.store(error)
            }
            var stream = ObjectStream(
                format: format, csvColumns: ObjectOutput.csvColumns(entities: order.entities, model: opened.model))
            let output = FileHandle.standardOutput
            output.write(Data(stream.begin().utf8))
            var buffer = JSONBytes(capacity: 1 << 20)
            let progress = ProgressLine("dumping")
            defer { progress.end() }
            // Each batch's IDs and rows (and its to-manys) are made on another thread while the previous batch is
            // written, and let go on that thread too, when it starts a later read: memory is then freed by the
            // thread that allocated it (freeing another thread's blocks takes its allocator's lock, which that thread
            // wants at the same moment: measured, a third more CPU time).
            typealias Batch = (ids: [ManagedObjectID], snapshots: [ObjectSnapshot])
            func readAhead(_ start: Int, releasing spent: Batch) -> BackgroundWork<Batch>? {
                guard start < order.count else { return nil }
                let handoff = Handoff(spent)
                let range = start..<min(start + Self.batchSize, order.count)
                return BackgroundWork.start { () throws(StoreError) in
                    handoff.drop()
                    let ids = order.ids(range)
                    return (ids, try coordinator.wholeSnapshots(for: ids))
                }
            }
            var next = readAhead(0, releasing: ([], []))
            // Nothing is closed under a read still going (an error below leaves by this).
            defer { _ = next?.wait() }
            var start = 0
            var spent: Batch = ([], [])
            while start < order.count, let reading = next {
                next = nil
                var read: Batch
                switch reading.wait() {
                case .success(let batch): read = batch
                case .failure(let error): throw ContextError.store(error)
                }
                let (batch, snapshots) = read
                next = readAhead(start + batch.count, releasing: spent)
                spent = ([], [])
                let objects = try opened.context.objects(with: batch, snapshots: snapshots)
                // Written out a megabyte at a time: one batch's text can be large (a department of 20,000 people is
                // 20,000 URIs).
                for object in objects {
                    try stream.write(CollectionOfOne(object), to: &buffer)
                    if buffer.bytes.count >= 1 << 20 {
                        try buffer.bytes.withUnsafeBytes { try output.write(contentsOf: $0) }
                        buffer.removeAll()
                    }
                }
                try buffer.bytes.withUnsafeBytes { try output.write(contentsOf: $0) }
                buffer.removeAll()
                opened.context.reset()
                spent = read
                read = ([], [])
                start += batch.count
                progress.update(start, of: order.count)
            }
            output.write(Data(stream.end().utf8))
        }
    }

    /// `--history`: each transaction (number, time, bundle, process, author, context) and its changes.
    static func writeHistory(of opened: OpenedDocument, path: String, format: ObjectFormat) throws {
        guard let transactions = try opened.persistentHistory() else {
            throw DocumentError(
                .badData, "\(path): the document does not track persistent history (no ATRANSACTION/ACHANGE tables)")
        }
        var output = ""
        switch format {
        case .json:
            let items = transactions.map { transaction in
                JSONValue.object([
                    ("number", .int(transaction.number)),
                    ("timestamp", .optional(transaction.timestamp.map(ISO8601.string))),
                    ("author", .optional(transaction.author)), ("bundleID", .optional(transaction.bundleID)),
                    ("contextName", .optional(transaction.contextName)),
                    ("processID", .optional(transaction.processID)),
                    (
                        "changes",
                        .array(
                            transaction.changes.map {
                                .object([("type", .string($0.type)), ("object", .string($0.object.uriString))])
                            })
                    ),
                ])
            }
            output =
                JSONValue.object([("formatVersion", .int(1)), ("transactions", .array(items))]).serialized() + "\n"
        case .text, .csv:
            for transaction in transactions {
                var head = "transaction \(transaction.number)"
                if let timestamp = transaction.timestamp { head += " at \(ISO8601.string(timestamp))" }
                for (label, value) in [
                    ("bundle", transaction.bundleID), ("process", transaction.processID),
                    ("author", transaction.author), ("context", transaction.contextName),
                ] {
                    if let value { head += " \(label) \(value)" }
                }
                output += head + ": \(transaction.changes.count) change(s)\n"
                for change in transaction.changes { output += "  \(change.type) \(change.object.uriString)\n" }
            }
            output += "\(transactions.count) transaction(s)\n"
            // Authors and context names come from the file.
            output = TerminalText.safe(output)
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}

/// A value handed to another thread to be let go there (see `Dump`: blocks are freed by the thread that allocated
/// them).
private final class Handoff<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: consuming Value) { self.value = Mutex(value) }

    /// Lets the value go now, on the calling thread.
    func drop() { value.withLock { $0 = nil } }
}
