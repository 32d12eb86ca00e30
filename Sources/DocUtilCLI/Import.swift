import ArgumentParser
import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// `--from`: the built-in import formats.
enum ImportFrom: String, ExpressibleByArgument, CaseIterable {
    case csv, tsv, json, plist, archive, sqlite

    var format: ImportFormat? { ImportFormat(rawValue: rawValue) }
}

/// How legacy sources are read: options `import` and `open` share.
struct ImportSourceOptions: ParsableArguments {
    @Option(help: "The entity of a CSV or TSV file, or of a top-level array (default: the file's base name).")
    var entity: String?

    @Option(
        help:
            "The format of the sources: csv, tsv, json, plist, archive or sqlite (default: by extension, then content)."
    )
    var from: ImportFrom?

    @Option(help: "A JSON mapping file for sources whose names differ from the model's.")
    var mapping: String?

    /// The import options, with progress on standard error when it is a terminal.
    func importOptions() throws(DocumentError) -> ImportOptions {
        let mapping = try mapping.map { (path) throws(DocumentError) in
            try ImportMapping(contentsOf: URL(fileURLWithPath: path))
        }
        let progress: (@Sendable (ImportProgress) -> Void)? = isatty(2) != 0 ? Self.showProgress : nil
        return ImportOptions(entity: entity, mapping: mapping, format: from?.format, progress: progress)
    }

    /// One line, redrawn in place once the import has taken about a second: the file, how much of it is read,
    /// records and records per second.
    @Sendable static func showProgress(_ progress: ImportProgress) {
        guard progress.elapsed >= ProgressLine.delay else { return }
        var line = "importing \(progress.file.lastPathComponent):"
        if progress.totalBytes > 0 {
            line += " \(Int(Double(progress.bytesRead) * 100 / Double(progress.totalBytes)))%"
        }
        let rate = progress.elapsed > 0 ? Int(Double(progress.records) / progress.elapsed) : 0
        line += " \(progress.records) records, \(rate) records/s"
        OutputFile.message("\r\u{1B}[K\(line)")
    }

    /// Clears the progress line.
    static func endProgress() {
        if isatty(2) != 0 { OutputFile.message("\r\u{1B}[K") }
    }
}

/// `docutil import SOURCE… OUT --model M` / `docutil import SOURCE… --into DOC`: legacy files into a document.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import CSV, TSV, JSON, property lists, keyed archives or a plain SQLite database into a document.",
        discussion: """
            Into a new document OUT (its type from --type, else its extension; the model from --model), or with \
            --into into an existing document, in one save. An import completes or writes nothing: OUT is not \
            created, DOC stays byte-identical. OUT is never replaced without --force.

            CSV and TSV (RFC 4180): one entity per file (--entity, else the file's base name); the header names \
            attributes, and 'rel.key' fills a to-one with the object whose attribute key equals the cell (from any \
            file of the run, or already in the document). JSON: dump's format (lossless), an array of objects of one \
            entity, or an object mapping entity names to arrays; a nested object under a relationship creates it. \
            Property lists and keyed archives: the same two shapes. A plain SQLite database: each table named like an \
            entity. --mapping names sources, columns and matches that differ.

            Every problem is listed as FILE:LINE:COLUMN (or the key path, or the table and rowid) with the \
            attribute, and the status is 65. Other statuses: 64 usage, 66 no such source, 73 OUT exists or cannot \
            be created, 74 I/O error, 75 DOC is open elsewhere.
            """)

    @Argument(help: "The files to import, then OUT (unless --into).")
    var paths: [String]

    @Option(help: "The model of the new document (.xcdatamodeld, .xcdatamodel, .momd, .mom).")
    var model: String?

    @Option(help: "The type of OUT: xml, binary or sqlite (default: from OUT's extension).")
    var type: String?

    @Option(help: "Add the objects to this existing document instead of writing a new one.")
    var into: String?

    @Flag(help: "Replace OUT if it exists.")
    var force = false

    @OptionGroup var sources: ImportSourceOptions

    func validate() throws {
        if into != nil {
            if type != nil { throw ValidationError("--type is for a new document, not --into") }
            if force { throw ValidationError("--force is for a new document, not --into") }
            if paths.isEmpty { throw ValidationError("name the files to import") }
        } else {
            if paths.count < 2 { throw ValidationError("name the files to import and OUT (or use --into DOC)") }
            if model == nil { throw ValidationError("a new document needs --model") }
            if let output = paths.last { try StandardStreams.refuseDash(output, "a new document") }
        }
        if paths.contains(StandardStreams.dash) || into == StandardStreams.dash {
            throw ValidationError("import reads files: '-' (standard input) is not one")
        }
    }

    func run() throws {
        try reportingErrors {
            let options = try sources.importOptions()
            defer { ImportSourceOptions.endProgress() }
            var given: ManagedObjectModel?
            if let model {
                let loaded = try ModelSource.load(model)
                for warning in loaded.warnings { printError("warning: the model \(model): \(warning)") }
                given = loaded.model
            }
            let summary: ImportSummary
            let written: String
            if let into {
                let urls = paths.map { URL(fileURLWithPath: $0) }
                summary = try DocumentImport.importInto(
                    urls, document: URL(fileURLWithPath: into), model: given, options: options,
                    program: "docutil import")
                written = into
            } else {
                guard let output = paths.last, let given else { throw ValidationError("name OUT") }
                let outputURL = URL(fileURLWithPath: output)
                guard let documentType = DocumentTypeRegistry.type(forName: type, url: outputURL),
                    documentType.isWritable
                else {
                    throw ValidationError("cannot tell the type of '\(output)'; give --type xml|binary|sqlite")
                }
                summary = try DocumentImport.importNew(
                    paths.dropLast().map { URL(fileURLWithPath: $0) }, to: outputURL, ofType: documentType,
                    model: given, options: options, force: force, program: "docutil import")
                written = output
            }
            ImportSourceOptions.endProgress()
            let total = summary.inserted.values.reduce(0, +)
            let parts = summary.inserted.keys.sorted().map { "\($0) \(summary.inserted[$0] ?? 0)" }
            try OutputFile.standardOutput.write(
                "\(written): \(total) object\(total == 1 ? "" : "s") imported (\(parts.joined(separator: ", ")))\n")
        }
    }
}
