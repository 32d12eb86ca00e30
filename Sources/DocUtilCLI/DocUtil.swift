public import ArgumentParser
import Foundation
import ModelFiles
import SQLiteStore

/// The `docutil` command: opens, converts and inspects Core Data documents and models.
public struct DocUtil: ParsableCommand {
    /// The command's name, abstract, exit statuses and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "docutil",
        abstract: "Open, convert and inspect Core Data documents and models on Linux.",
        discussion: """
            Exit status: 0 ok, 1 problems found, 64 usage error, 65 bad data, 66 no input, \
            69 unsupported, 73 can't create output, 74 I/O error, 75 changed on disk or open elsewhere.
            """,
        version: "0.1.0",
        subcommands: [
            Info.self, Schema.self, Dump.self, Query.self, Convert.self, PredicateCommand.self, Open.self, Import.self,
            Check.self, Diff.self, Migrate.self,
        ]
    )

    /// Creates the command (the argument parser fills in its options).
    public init() {}

    /// Runs the command line: interrupted runs (SIGINT, SIGTERM, SIGHUP, SIGQUIT) first remove the scratch folders
    /// a read-only open may have made. A command opens each file either to read or to write, so a WAL store read is
    /// read with its `-shm` index mapped read-only: reading never writes any of its files.
    public static func run() {
        ScratchFolders.installSignalHandlers()
        SQLiteStore.readsMapWALIndexReadOnly = true
        main(nil)
    }

    /// Parses and runs a command line (`nil`: the process's arguments). Help and version go to standard output with
    /// status 0; every error goes to standard error in the one form of every diagnostic, `docutil: message`, then
    /// the usage lines, with its documented status (64 for a usage error).
    public static func main(_ arguments: [String]?) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            exit(withError: nil)
        } catch {
            let status = exitCode(for: error)
            let message = fullMessage(for: error)
            if status == .success {
                if !message.isEmpty {
                    do {
                        try OutputFile.standardOutput.write(message + "\n")
                    } catch {
                        printError(error.message)
                        Foundation.exit(ExitStatus.ioError)
                    }
                }
                exit(withError: nil)
            }
            if !message.isEmpty {
                var text = message
                if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
                printError(text)
            }
            Foundation.exit(status.rawValue)
        }
    }
}
