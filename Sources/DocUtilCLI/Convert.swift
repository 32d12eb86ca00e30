import ArgumentParser
import Documents
import Foundation
import ModelFiles

/// `docutil convert IN OUT`: writes a document as another store type.
struct Convert: ParsableCommand {
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case xml, binary, sqlite
    }

    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Write a document to a new file of another store type (by --to, else by OUT's extension).",
        discussion:
            """
            The output carries the model. An existing OUT is never replaced without --force; IN is never changed. \
            IN may be '-' (standard input); OUT may be '-': XML written to standard output.
            """)

    @Argument(help: "The document to read ('-': standard input).")
    var input: String

    @Argument(help: "The file to write (.xml, .binary or .sqlite); '-' writes XML to standard output.")
    var output: String

    @Option(help: "The output type: xml, binary or sqlite.")
    var to: Target?

    @Flag(help: "Replace OUT if it exists.")
    var force = false

    @OptionGroup var options: DocumentOptions

    func validate() throws {
        if output == StandardStreams.dash && to != nil && to != .xml {
            throw ValidationError(
                "only XML can be written to standard output ('-'): give a file for \(to?.rawValue ?? "")"
            )
        }
    }

    func run() throws {
        try reportingErrors {
            if output == StandardStreams.dash {
                try convertToStandardOutput()
                return
            }
            let outputURL = URL(fileURLWithPath: output)
            guard let type = DocumentStack.type(forName: to?.rawValue, url: outputURL) else {
                throw ValidationError("cannot tell the output type from '\(output)'; give --to xml|binary|sqlite")
            }
            if FileManager.default.fileExists(atPath: output) && !force {
                throw DocumentError(.cannotCreate, "\(output) exists; use --force to replace it")
            }
            let opened = try options.open(input)
            let progress = ProgressLine("converting")
            defer { progress.end() }
            try DocumentStack.convert(
                opened, to: outputURL, type: type, force: force,
                progress: progress.isShown ? { progress.update($0, of: $1) } : nil)
        }
    }

    /// Writes the XML to a scratch file (removed however the process ends), then copies it to standard output in
    /// blocks: the document is complete before the first byte is written, so a failed conversion writes nothing.
    private func convertToStandardOutput() throws {
        let opened = try options.open(input)
        let folder = try ScratchFolders.make(prefix: "docutil-stdout")
        defer { ScratchFolders.remove(folder) }
        let file = folder.appendingPathComponent("output")
        let progress = ProgressLine("converting")
        defer { progress.end() }
        try DocumentStack.convert(
            opened, to: file, type: "XML", force: false,
            progress: progress.isShown ? { progress.update($0, of: $1) } : nil)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }  // a read-only handle: closing it cannot lose anything
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            try OutputFile.standardOutput.write(block)
        }
    }
}
