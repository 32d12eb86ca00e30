import Foundation
import TestSupport

/// Runs the built `docutil` executable as a real process.
enum Docutil {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable next to the test bundle in the build folder.
    static let executable = Fixtures.builtExecutable("docutil")

    static func run(_ arguments: [String], currentDirectory: URL = Fixtures.projectRoot) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes fully before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
