import ArgumentParser
import Documents
import Foundation

/// `docutil migrate DOC --model M`: migrates a document to the current version of a model.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a document to another version of its model (lightweight, or with a mapping model).",
        discussion:
            """
            The model the document was written with is found among the versions of --model (by the document's \
            version hashes), else it is the model the document carries. Without --mapping, the mapping is inferred \
            as Core Data's lightweight migration does; what inference can't handle is listed (exit 65). With \
            --mapping, an Xcode .xcmappingmodel runs; a migration policy class it names runs its default behaviour \
            (a warning says so). The document is migrated in place unless --out is given; either way the new file is \
            written beside the target and renamed into place only when complete, so a failed migration leaves \
            every file byte-identical. --dry-run prints the plan (what maps to what, defaults filled, what is \
            dropped) after running the migration in memory, and writes nothing. A migration in place holds the \
            document's lock: while another process has it open for writing, migrate exits 75 and changes nothing. \
            (docutil open --model migrates the same way before a session starts.)
            """)

    @Argument(help: "The document to migrate.")
    var document: String

    @Option(help: "The model to migrate to (.xcdatamodeld, .xcdatamodel, .momd, .mom or contents).")
    var model: String

    @Option(help: "An Xcode mapping model (.xcmappingmodel) to run instead of an inferred mapping.")
    var mapping: String?

    @Option(help: "Write the migrated document here instead of in place.")
    var out: String?

    @Option(
        help:
            "The store type to write with --out: xml, binary or sqlite (default: by OUT's extension, else the document's own type)."
    )
    var to: Convert.Target?

    @Flag(help: "Replace OUT if it exists.")
    var force = false

    @Flag(help: "Print the plan and change nothing.")
    var dryRun = false

    func validate() throws {
        if to != nil && out == nil { throw ValidationError("--to needs --out: a migration in place keeps the type") }
        if document == StandardStreams.dash || out == StandardStreams.dash {
            throw ValidationError("migrate reads and writes files; '-' is not one")
        }
    }

    func run() throws {
        try reportingErrors {
            let report = try DocumentMigration.migrate(
                URL(fileURLWithPath: document), model: URL(fileURLWithPath: model),
                mapping: mapping.map { URL(fileURLWithPath: $0) }, output: out.map { URL(fileURLWithPath: $0) },
                type: to?.rawValue, force: force, dryRun: dryRun)
            for warning in report.warnings { printError("warning: \(document): \(warning)") }
            if report.alreadyCurrent {
                try OutputFile.standardOutput.write("\(document): already uses this model; nothing to migrate\n")
                return
            }
            var lines = ["from: \(report.sourceModelDescription)"] + report.plan
            if let output = report.output {
                lines.append("migrated: \(output.path)")
            } else {
                lines.append("dry run: nothing was written")
            }
            try OutputFile.standardOutput.write(TerminalText.safe(lines.joined(separator: "\n")) + "\n")
        }
    }
}
