import ArgumentParser
import Documents
import Foundation
import ObjectGraph

/// `docutil diff A B`: what differs between two documents, or two models.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract:
            "Show what differs between two documents (of any store types) or two models; exit 1 when they differ.",
        discussion: """
            Documents: objects are matched within each entity by the attribute given with --key ENTITY=ATTRIBUTE, \
            else by primary key (Entity/pN) and contents: the same key and values first, then the same values (and \
            matched relationships) under another key, so a conversion that renumbered objects compares equal, then \
            the rest by key. Printed: objects only in A (-), only in B \
            (+), and changed objects (~) with each changed key and its old and new value; relationships compare by \
            the matched objects. JSON: {"formatVersion":1,"onlyInA":[uri],"onlyInB":[uri],"changed":[{"a","b",\
            "keys":{"key":[old,new]}}]} with values in dump's JSON form.

            Models (any model form, or the models of two documents with --models): entities, attributes, \
            relationships, fetched properties, fetch requests and configurations added (+), removed (-), renamed (>, \
            by renaming identifier) or changed (~, field by field). JSON: {"formatVersion":1,"changes":[{"element",\
            "name","change","field","a","b","from"}]}.
            """)

    @Argument(help: "The first document or model ('-': standard input).")
    var a: String

    @Argument(help: "The second document or model ('-': standard input).")
    var b: String

    @Option(
        name: .customLong("key"), parsing: .unconditionalSingleValue,
        help: "Match the objects of ENTITY (and its sub-entities) by ATTRIBUTE: ENTITY=ATTRIBUTE (repeatable).")
    var keys: [String] = []

    @Flag(help: "Compare the models of two documents instead of their objects.")
    var models = false

    @Option(help: "Output format: text or json.")
    var format: ReportFormat = .text

    @OptionGroup var options: DocumentOptions

    func validate() throws {
        if a == StandardStreams.dash && b == StandardStreams.dash {
            throw ValidationError("only one of A and B can be standard input ('-')")
        }
        _ = try keyAttributes()
    }

    /// `--key` values: entity → attribute.
    func keyAttributes() throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in keys {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--key takes ENTITY=ATTRIBUTE, not '\(pair)'")
            }
            guard result.updateValue(parts[1], forKey: parts[0]) == nil else {
                throw ValidationError("--key names \(parts[0]) twice")
            }
        }
        return result
    }

    func run() throws {
        try reportingErrors {
            let bothModels = ModelSource.isModel(a) && ModelSource.isModel(b)
            let output: String
            let equal: Bool
            if models || bothModels || ModelSource.isModel(a) || ModelSource.isModel(b) {
                if !keys.isEmpty { throw ValidationError("--key is for documents, not models") }
                let (old, new) = (try model(a), try model(b))
                let changes = old.differences(to: new)
                let problems = changes.isEmpty ? [] : MappingModel.inferenceProblems(from: old, to: new)
                output = Self.render(changes, migrationProblems: problems, format: format)
                equal = changes.isEmpty
            } else {
                let first = try options.open(a)
                let second = try options.open(b)
                let difference = try DocumentDiff.compare(first, second, keys: try keyAttributes())
                output = Self.render(difference, format: format)
                equal = difference.isEqual
            }
            try OutputFile.standardOutput.write(format == .text ? TerminalText.safe(output) : output)
            if !equal { throw ExitCode(ExitStatus.problemsFound) }
        }
    }

    /// The model a path stands for: a model file, or (with --models, or beside a model) a document's model.
    func model(_ path: String) throws -> ManagedObjectModel {
        if path != StandardStreams.dash && ModelSource.isModel(path) {
            let loaded = try ModelSource.load(path)
            for warning in loaded.warnings { printError("warning: \(warning)") }
            return loaded.model
        }
        let url = try StandardStreams.documentURL(path)
        try DocumentStack.requireReadable(url)
        guard let type = DocumentStack.detectType(url) else {
            throw DocumentError(
                .badData, "\(StandardStreams.displayName(path)): not a model, nor a document of any known type")
        }
        let chosen = try DocumentStack.chooseModel(for: url, type: type, given: options.modelURL)
        for warning in chosen.warnings { printError("warning: \(StandardStreams.displayName(path)): \(warning)") }
        return chosen.model
    }

    // MARK: - Output

    static func json(_ value: DifferenceValue) -> JSONValue {
        switch value {
        case .attribute(let value): ObjectOutput.json(value)
        case .object(let id): .optional(id?.description)
        case .objects(let ids): .array(ids.map { .string($0.description) })
        }
    }

    static func text(_ value: DifferenceValue) -> String {
        switch value {
        case .attribute(let value): ObjectOutput.text(value)
        case .object(let id): id?.description ?? "nil"
        case .objects(let ids): "[" + ids.map(\.description).joined(separator: ", ") + "]"
        }
    }

    static func render(_ difference: DocumentDifference, format: ReportFormat) -> String {
        switch format {
        case .text:
            var lines = difference.onlyInA.map { "- \($0)" } + difference.onlyInB.map { "+ \($0)" }
            for change in difference.changed {
                let same = change.a.description == change.b.description
                lines.append(same ? "~ \(change.a)" : "~ \(change.a) → \(change.b)")
                for property in change.changes {
                    lines.append("    \(property.key): \(text(property.old)) → \(text(property.new))")
                }
            }
            return lines.map { $0 + "\n" }.joined()
        case .json:
            let changed = difference.changed.map { change -> JSONValue in
                .object([
                    ("a", .string(change.a.description)), ("b", .string(change.b.description)),
                    ("keys", .object(change.changes.map { ($0.key, .array([json($0.old), json($0.new)])) })),
                ])
            }
            return JSONValue.object([
                ("formatVersion", .int(1)),
                ("onlyInA", .array(difference.onlyInA.map { .string($0.description) })),
                ("onlyInB", .array(difference.onlyInB.map { .string($0.description) })),
                ("changed", .array(changed)),
            ]).serialized() + "\n"
        }
    }

    /// The model changes, then (when there are any) whether lightweight migration can go from A to B: `problems`
    /// are the reasons it can't.
    static func render(_ changes: [ModelChange], migrationProblems problems: [MigrationProblem], format: ReportFormat)
        -> String
    {
        switch format {
        case .text:
            var text = changes.map { $0.description + "\n" }.joined()
            if !changes.isEmpty {
                text +=
                    problems.isEmpty
                    ? "lightweight migration from A to B: possible\n"
                    : "lightweight migration from A to B: not possible\n" + problems.map { "  \($0)\n" }.joined()
            }
            return text
        case .json:
            let items = changes.map { change -> JSONValue in
                var members: [(String, JSONValue)] = [
                    ("element", .string(change.element.rawValue)), ("name", .string(change.name)),
                ]
                switch change.change {
                case .added: members.append(("change", .string("added")))
                case .removed: members.append(("change", .string("removed")))
                case .renamed(let from): members += [("change", .string("renamed")), ("from", .string(from))]
                case .changed(let field, let old, let new):
                    members += [
                        ("change", .string("changed")), ("field", .string(field)), ("a", .optional(old)),
                        ("b", .optional(new)),
                    ]
                }
                return .object(members)
            }
            var members: [(String, JSONValue)] = [("formatVersion", .int(1)), ("changes", .array(items))]
            if !changes.isEmpty {
                members.append(
                    (
                        "lightweightMigration",
                        .object([
                            ("possible", .bool(problems.isEmpty)),
                            ("problems", .array(problems.map { .string($0.description) })),
                        ])
                    ))
            }
            return JSONValue.object(members).serialized() + "\n"
        }
    }
}
