import ArgumentParser
import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// `docutil check DOC`: is a document (or a model) sound?
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a document or a model for problems; exit 0 when sound, 1 when problems were found.",
        discussion: """
            Each problem is printed as the object's URI (or the file), a kind and the detail. Kinds: \
            dangling-reference, inverse-mismatch, unknown-entity, primary-key, validation, uniqueness, metadata, \
            sqlite, external-data, value. A document is opened read-only and never changed. A model (.xcdatamodeld, \
            .xcdatamodel, contents, .momd, .mom) must load, and a compiled model's version hashes must be the ones in \
            its VersionInfo.plist. JSON: {"formatVersion":1,"problems":[{"object","kind","key","detail"}]}.
            """)

    @Argument(help: "The document (XML, binary or SQLite store; '-' reads it from standard input) or a model.")
    var document: String

    @Option(help: "Output format: text or json.")
    var format: ReportFormat = .text

    @Option(help: "The most problems of each kind to list (the rest are counted).")
    var limit: Int = 1_000

    @OptionGroup var options: DocumentOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try reportingErrors {
            let name = StandardStreams.displayName(document)
            let report: DocumentCheckReport
            if document != StandardStreams.dash && ModelSource.isModel(document) {
                if options.model != nil { throw ValidationError("--model is for documents; '\(document)' is a model") }
                report = try DocumentCheck.checkModel(URL(fileURLWithPath: document))
            } else {
                let progress = ProgressLine("checking")
                defer { progress.end() }
                report = try DocumentCheck.check(
                    StandardStreams.documentURL(document), model: options.modelURL, limit: limit,
                    progress: progress.isShown ? { progress.update($0, of: $1) } : nil)
            }
            for warning in report.warnings { printError("warning: \(name): \(warning)") }
            let rendered = Self.render(report, format: format)
            try OutputFile.standardOutput.write(format == .text ? TerminalText.safe(rendered) : rendered)
            if !report.isSound {
                let count = report.problems.count + report.unlisted.values.reduce(0, +)
                printError("\(name): \(count) problem\(count == 1 ? "" : "s") found")
                throw ExitCode(ExitStatus.problemsFound)
            }
        }
    }

    static func render(_ report: DocumentCheckReport, format: ReportFormat) -> String {
        switch format {
        case .text:
            var lines = report.problems.map { "\($0.object) \($0.kind.rawValue): \($0.detail)" }
            for (kind, count) in report.unlisted.sorted(by: { $0.key < $1.key }) {
                lines.append("… \(count) more \(kind.rawValue) problem\(count == 1 ? "" : "s") not listed")
            }
            return lines.map { $0 + "\n" }.joined()
        case .json:
            let problems = report.problems.map { problem -> JSONValue in
                .object([
                    ("object", .string(problem.object)), ("kind", .string(problem.kind.rawValue)),
                    ("key", .optional(problem.key)), ("detail", .string(problem.detail)),
                ])
            }
            let unlisted = report.unlisted.sorted(by: { $0.key < $1.key }).map {
                ($0.key.rawValue, JSONValue.int(Int64($0.value)))
            }
            return JSONValue.object([
                ("formatVersion", .int(1)), ("problems", .array(problems)), ("unlisted", .object(unlisted)),
                ("objectsChecked", .int(Int64(report.objectsChecked))),
            ]).serialized() + "\n"
        }
    }
}

/// The output formats of the report commands (`check`, `diff`).
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
