import ArgumentParser
import Foundation
import ModelFiles
import ObjectGraph

/// `docutil schema PATH`: shows a model, or the model inside a document.
struct Schema: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, xcdatamodel
    }

    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show a model (.xcdatamodeld, .xcdatamodel, contents, .momd, .mom) or a document's model.",
        discussion: """
            PATH may be any model form or a document of any store type (its embedded model, Z_MODELCACHE, or one \
            inferred from an Apple XML store); '-' reads it from standard input. \
            'text' is a readable summary, 'json' a stable description (see the README), \
            'xcdatamodel' the model as Xcode 'contents' XML.
            """)

    @Argument(help: "The model or document ('-': standard input).")
    var path: String

    @Option(help: "Output format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: Format = .text

    func run() throws {
        try reportingErrors {
            let loaded = try ModelSource.load(path)
            for warning in loaded.warnings { printError("warning: \(warning)") }
            let output: String
            switch format {
            case .text: output = TerminalText.safe(SchemaText.render(loaded))
            case .json: output = SchemaJSON.render(loaded.model).serialized() + "\n"
            case .xcdatamodel: output = try XcodeModelWriter.contents(of: loaded.model)
            }
            try OutputFile.standardOutput.write(output)
        }
    }
}
