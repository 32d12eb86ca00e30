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
            var command = try parsedSubcommand(arguments ?? Array(CommandLine.arguments.dropFirst()))
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

    /// The command a command line names, parsed by its subcommand's parser alone when it names one and that parser
    /// takes the rest as it is: the root's parser reflects every level of the command (each subcommand's options
    /// several times over) before it parses, which cost a short command more than its work (a `query` of 2,000
    /// objects spent 15.6 M instructions of 221 M in it). Anything the subcommand's parser does not take as a plain
    /// command line (help, version, completion scripts, a usage error) goes to the root's parser, which gives what it
    /// always gave: its messages name `docutil`, and its help lists the subcommands.
    static func parsedSubcommand(_ arguments: [String]) throws -> any ParsableCommand {
        if let name = arguments.first,
            let subcommand = configuration.subcommands.first(where: { $0.configuration.commandName == name })
        {
            // (A request for help parses as the parser's own help command, not the subcommand: that goes to the root's
            // parser too.)
            switch Result(catching: { try subcommand.parseAsRoot(Array(arguments.dropFirst())) }) {
            case .success(let command) where type(of: command) == subcommand: return command
            case .success, .failure: break
            }
        }
        return try parseAsRoot(arguments)
    }
}
