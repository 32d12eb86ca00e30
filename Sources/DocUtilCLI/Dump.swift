import ArgumentParser
import Documents
import Foundation
import ObjectGraph

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

    @OptionGroup var options: DocumentOptions

    func run() throws {
        try reportingErrors {
            let opened = try options.open(document, lenient: lenient)
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
            // IDs first, then the objects batch by batch, each batch written and let go, so that memory stays
            // bounded by the batch (plus the IDs) however large the document.
            var ids: [ManagedObjectID] = []
            for name in names { ids += try opened.context.fetchObjectIDs(FetchRequest(entityName: name)) }
            opened.context.reset()
            ids.sort { ($0.entityName, $0.primaryKey) < ($1.entityName, $1.primaryKey) }
            var stream = ObjectStream(
                format: format,
                csvColumns: ObjectOutput.csvColumns(entities: Set(ids.map(\.entityName)), model: opened.model))
            let output = FileHandle.standardOutput
            output.write(Data(stream.begin().utf8))
            var buffer = JSONBytes(capacity: 1 << 20)
            let progress = ProgressLine("dumping")
            defer { progress.end() }
            var start = 0
            while start < ids.count {
                let batch = Array(ids[start..<min(start + Self.batchSize, ids.count)])
                let objects = try opened.context.objects(with: batch)
                try opened.context.prefetchToManyRelationships(of: objects)
                buffer.removeAll()
                try stream.write(objects, to: &buffer)
                try buffer.bytes.withUnsafeBytes { try output.write(contentsOf: $0) }
                opened.context.reset()
                start += batch.count
                progress.update(start, of: ids.count)
            }
            output.write(Data(stream.end().utf8))
        }
    }
}
