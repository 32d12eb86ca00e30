import ArgumentParser
import Documents
import Foundation
import ObjectGraph

/// Options every document command takes.
struct DocumentOptions: ParsableArguments {
    @Option(help: "A model to read the document with (.xcdatamodeld, .xcdatamodel, contents, .momd, .mom).")
    var model: String?

    /// The model's URL, if one was given.
    var modelURL: URL? { model.map { URL(fileURLWithPath: $0) } }

    /// Opens the document read-only (`-`: standard input), printing its warnings to stderr. The document is let go
    /// with the process (``ProcessEnd/outlive(_:)``).
    func open(_ path: String, lenient: Bool = false) throws -> OpenedDocument {
        let document = try DocumentStack.open(
            StandardStreams.documentURL(path), model: modelURL, readOnly: true, lenient: lenient)
        ProcessEnd.outlive(document)
        for warning in document.warnings { printError("warning: \(StandardStreams.displayName(path)): \(warning)") }
        return document
    }

    /// Prints what a lenient read kept raw (at most 20 lines, then a count).
    static func reportValueWarnings(_ document: OpenedDocument, path: String) {
        let warnings = document.valueWarnings
        for warning in warnings.prefix(20) { printError("warning: \(path): \(warning)") }
        if warnings.count > 20 {
            printError("warning: \(path): \(warnings.count - 20) more value(s) kept as they are")
        }
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
