import ArgumentParser
import Documents
import Foundation

/// `docutil convert IN OUT`: writes a document as another store type.
struct Convert: ParsableCommand {
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case xml, binary, sqlite
    }

    static let configuration = CommandConfiguration(
        abstract: "Write a document to a new file of another store type (by --to, else by OUT's extension).",
        discussion:
            "The output carries the model. An existing OUT is never replaced without --force; IN is never changed.")

    @Argument(help: "The document to read.")
    var input: String

    @Argument(help: "The file to write (.xml, .binary or .sqlite).")
    var output: String

    @Option(help: "The output type: xml, binary or sqlite.")
    var to: Target?

    @Flag(help: "Replace OUT if it exists.")
    var force = false

    @OptionGroup var options: DocumentOptions

    func run() throws {
        try reportingErrors {
            let outputURL = URL(fileURLWithPath: output)
            guard let type = DocumentStack.type(forName: to?.rawValue, url: outputURL) else {
                throw ValidationError("cannot tell the output type from '\(output)'; give --to xml|binary|sqlite")
            }
            if FileManager.default.fileExists(atPath: output) && !force {
                throw DocumentError(.cannotCreate, "\(output) exists; use --force to replace it")
            }
            let opened = try options.open(input)
            try DocumentStack.convert(opened, to: outputURL, type: type, force: force)
        }
    }
}
