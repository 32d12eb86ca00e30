import ArgumentParser
import Foundation
import ModelFiles

/// `-` as a document argument (standard input) and as an output (standard output).
enum StandardStreams {
    /// The argument that stands for standard input or output.
    static let dash = "-"

    /// The file a document argument names: the path itself, or for `-` a copy of standard input in a scratch folder
    /// (removed when the process ends, however it ends). Standard input is read once: a second `-` is a usage error.
    static func documentURL(_ path: String) throws -> URL {
        guard path == dash else { return URL(fileURLWithPath: path) }
        return try input.get()
    }

    /// Standard input, copied in blocks to a scratch file on first use.
    nonisolated(unsafe) private static var copied: URL?

    private static var input: Result<URL, any Error> {
        if copied != nil {
            return .failure(ValidationError("standard input ('-') can be read only once"))
        }
        do {
            let folder = try ScratchFolders.make(prefix: "docutil-stdin")
            let file = folder.appendingPathComponent("input")
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw ModelFileError(.io, path: file.path, "cannot create a scratch file for standard input")
            }
            let handle = try FileHandle(forWritingTo: file)
            while let block = try FileHandle.standardInput.read(upToCount: 1 << 20), !block.isEmpty {
                try handle.write(contentsOf: block)
            }
            try handle.close()
            copied = file
            return .success(file)
        } catch {
            return .failure(error)
        }
    }

    /// The name a message uses for a document argument.
    static func displayName(_ path: String) -> String { path == dash ? "<stdin>" : path }

    /// Refuses `-` as an output where the format cannot stream.
    static func refuseDash(_ path: String, _ what: String) throws {
        if path == dash { throw ValidationError("\(what) cannot be written to standard output ('-'); give a file") }
    }
}
