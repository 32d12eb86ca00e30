import ArgumentParser
import Documents
import Foundation
import ObjectGraph

/// `docutil dump DOC`: every object of a document.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print every object of a document (or of one entity) as JSON, CSV or text.")

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
            let output = OutputFile.standardOutput
            try output.write(stream.begin())
            let progress = ProgressLine("dumping")
            defer { progress.end() }
            try BatchedObjects.write(
                count: order.count,
                reading: { range throws(StoreError) in
                    let ids = order.ids(range)
                    return (ids, try coordinator.wholeSnapshots(for: ids))
                }, of: opened, through: &stream, to: output, progress: progress)
            try output.write(stream.end())
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
        try OutputFile.standardOutput.write(output)
    }
}
