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

    /// Runs `docutil` to completion. A run that takes longer than `timeout` seconds is killed and reported as a
    /// hang (status -1), so a regression cannot stop the suite. `output`, when given, takes the child's standard
    /// output instead of a pipe (the result's `stdout` is then empty).
    static func run(
        _ arguments: [String], currentDirectory: URL = Fixtures.projectRoot, environment: [String: String] = [:],
        input: Data? = nil, output: FileHandle? = nil, timeout: TimeInterval = 120
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = output ?? out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            // Written from another thread, so that a child that writes before it reads cannot deadlock with us.
            let writer = stdin.fileHandleForWriting
            BrokenPipe.ignore()
            DispatchQueue.global().async {
                BrokenPipe.write(input, to: writer)
                // The child may already have exited; either way nothing more will be written.
                try? writer.close()
            }
        }
        // Read both pipes fully before waiting, so a large output cannot block the child.
        try out.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let hung =
            process.terminationReason == .uncaughtSignal && watchdog.isCancelled == false
            && process.terminationStatus == SIGTERM
        return Result(
            status: hung ? -1 : process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
