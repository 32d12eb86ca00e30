import ArgumentParser
import Documents
import Foundation
import ObjectGraph

/// Options every document command takes.
struct DocumentOptions: ParsableArguments {
    @Option(help: "A model to read the document with (.xcdatamodeld, .xcdatamodel, contents, .momd, .mom).")
    var model: String?

    /// Opens the document read-only, printing its warnings to stderr.
    func open(_ path: String) throws -> OpenedDocument {
        let document = try DocumentStack.open(
            URL(fileURLWithPath: path), model: model.map { URL(fileURLWithPath: $0) }, readOnly: true)
        for warning in document.warnings { printError("warning: \(path): \(warning)") }
        return document
    }
}

/// The output formats of the object commands.
enum ObjectFormat: String, ExpressibleByArgument, CaseIterable {
    case json, csv, text
}

extension ExitStatus {
    static func code(forDocument error: any Error) -> Int32? {
        (error as? DocumentError)?.code.rawValue
    }
}
