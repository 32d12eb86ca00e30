import ArgumentParser
import CSupport
import Documents
import Foundation
import ModelFiles
import ObjectGraph

extension SessionFormat: ExpressibleByArgument {}

/// `docutil open DOC`: an editing session on one document, from `-c` commands, a script or standard input.
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Edit a document: list, show, insert, set, delete, undo, redo, save, save as, revert…",
        discussion: """
            Commands come from -c (in order), else --script, else standard input: with a terminal the session is \
            interactive (a prompt, history); otherwise each line runs as it arrives. Blank lines and # comments are \
            ignored. REF is Entity/p12 (a saved object), Entity/t3 (inserted in this session, as insert prints it) \
            or an object URI; VALUE is a literal (42, 4.5, 'text', YES, NO, nil, CAST(...)), a string being read as \
            the attribute's type where it parses (ISO 8601 dates, UUIDs, URLs); a to-one takes REF or nil, a to-many \
            {REF, REF}. Each command that changes the document is one undo step named after it; a command that \
            fails changes nothing.

            Commands:
            \(EditingSession.help.map { "  \($0.0): \($0.1)" }.joined(separator: "\n"))

            With --format json every command that prints writes one JSON object on one line: status is \
            {"path", "storeType", "edited", "inserted", "updated", "deleted", "undo", "redo"}; insert is \
            {"ref", "uri"}; list and show are {"objects": [...]} in dump's object form.

            The first failing command ends a script with its status (unless --keep-going), the message naming its \
            line: 64 usage, 65 bad value or a save refused by validation (every failed rule listed), 66 no such \
            document, 69 a save or copy the store type cannot hold, 73 cannot create, 74 I/O error, 75 the \
            document changed on disk or is open elsewhere. At the \
            end of the input, unsaved changes are discarded with a warning: nothing is written that the script did \
            not save. SIGTERM, SIGHUP and SIGINT (outside a terminal) autosave unsaved changes to the sidecar \
            (.NAME.docutil-autosave) before the session ends; the next open reports it ('recover', \
            'discard-autosave').

            With --model, a document written with another version of the model (found by its version hashes among \
            the versions of --model, or carried by the document) is migrated in place to --model's current version \
            before the first command, as Core Data's automatic lightweight migration does (an Xcode mapping model \
            with --mapping-model; nothing is written when the migration fails). --no-migrate and --read-only read \
            it with the version it was written with instead, and say so.
            """)

    @Argument(help: "The document (XML, binary or SQLite store; '-' reads it from standard input).")
    var document: String

    @Option(help: "A model to read the document with, or to create it with (needed with --create).")
    var model: String?

    @Flag(
        name: .customLong("no-migrate"),
        help: ArgumentHelp(
            "Do not migrate a document written with another version of --model: read it with that version.",
            discussion:
                "By default such a document is migrated in place to --model's current version before the session starts (see docutil migrate)."
        ))
    var noMigrate = false

    @Option(
        name: .customLong("mapping-model"),
        help: "An Xcode mapping model (.xcmappingmodel) to migrate with, instead of inferring the mapping.")
    var mappingModel: String?

    @Flag(help: "Start a new document at DOC (written by its first save).")
    var create = false

    @Option(help: "The type of a new document: xml, binary or sqlite (default: from DOC's extension).")
    var type: String?

    @Flag(help: "Make the new document a package folder (UIManagedDocument's layout: StoreContent/persistentStore).")
    var package = false

    @Flag(name: .customLong("read-only"), help: "Open without the lock and without saving in place.")
    var readOnly = false

    @Option(help: "Autosave unsaved changes to the sidecar every SECONDS.")
    var autosave: Double?

    @Option(help: "Output format: text or json (one JSON object per line).")
    var format: SessionFormat = .text

    @Option(name: .customShort("c"), help: "A command to run (repeatable, in order).")
    var commands: [String] = []

    @Option(help: "A file of commands, one per line.")
    var script: String?

    @Flag(name: .customLong("keep-going"), help: "Go on after a failing command (the status is the first failure's).")
    var keepGoing = false

    @OptionGroup(title: "Legacy files (CSV, TSV, JSON, property lists…: an untitled document, saved with save-as)")
    var importing: ImportSourceOptions

    func validate() throws {
        if create && readOnly { throw ValidationError("--create and --read-only do not go together") }
        if create && model == nil { throw ValidationError("--create needs --model, the model of the new document") }
        if !create && type != nil {
            throw ValidationError("--type is for --create (an existing document has its type)")
        }
        if !create && package { throw ValidationError("--package is for --create") }
        if let autosave, !(autosave > 0) || !autosave.isFinite {
            throw ValidationError("--autosave takes a number of seconds above 0")
        }
        if !commands.isEmpty && script != nil { throw ValidationError("give -c commands or --script, not both") }
        if document == StandardStreams.dash && (create || !readOnly || (commands.isEmpty && script == nil)) {
            throw ValidationError(
                "a document on standard input ('-') can only be opened --read-only, with -c or --script giving the commands"
            )
        }
        if (noMigrate || mappingModel != nil) && model == nil {
            throw ValidationError("--no-migrate and --mapping-model go with --model (the model to migrate to)")
        }
        if noMigrate && mappingModel != nil { throw ValidationError("--no-migrate and --mapping-model contradict") }
        if create && (noMigrate || mappingModel != nil) {
            throw ValidationError("--no-migrate and --mapping-model are for opening an existing document")
        }
        if create && (importing.from != nil || importing.entity != nil || importing.mapping != nil) {
            throw ValidationError("--from, --entity and --mapping are for opening a legacy file, not --create")
        }
    }

    func run() throws {
        let scriptLines: [String]?
        if let script {
            do {
                let data = try FileKind.readRegularFile(URL(fileURLWithPath: script))
                scriptLines = String(decoding: data, as: UTF8.self).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
            } catch {
                printError(error.description)
                throw ExitCode(ExitStatus.code(for: error))
            }
        } else {
            scriptLines = nil
        }
        let interactive = commands.isEmpty && scriptLines == nil && isatty(0) != 0
        docutil_session_catch_signals(1)
        let opened = try openDocument()
        if let autosave { opened.autosaveInterval = autosave }
        // Output that cannot be written (a full disk) does not stop the editing: it is said once, and the session
        // ends with the I/O status.
        let outputFailure = OutputFailure()
        let session = EditingSession(
            document: opened, format: format,
            write: { line in
                do throws(DocumentError) {
                    try OutputFile.standardOutput.write(line + "\n")
                } catch {
                    if outputFailure.error == nil { printError(error.message) }
                    outputFailure.error = error
                }
            },
            warn: { printError($0) })
        var source: any LineSource
        let tick = min(autosave ?? 0.5, 0.5)
        if !commands.isEmpty {
            source = ListSource(commands)
        } else if let scriptLines {
            source = ListSource(scriptLines)
        } else if interactive {
            printError("editing \(document) (\(opened.storeType)); type help for the commands, quit to end")
            source = TerminalSource(prompt: "docutil> ", tick: tick)
        } else {
            source = StreamSource(descriptor: 0, tick: tick)
        }
        var status: Int32 = 0
        var autosaveFailed = false
        func idle() {
            let signal = docutil_session_take_signal()
            if signal != 0 && !(interactive && signal == SIGINT) { terminate(opened, by: signal) }
            do {
                try opened.autosaveIfDue()
                autosaveFailed = false
            } catch {
                if !autosaveFailed { printError("warning: \(error.message)") }
                autosaveFailed = true
            }
        }
        while let line = source.next(idle: idle) {
            do {
                try session.run(line.text)
            } catch {
                let where_ = interactive ? "" : "line \(line.number): "
                printError(
                    "\(where_)\(Diagnostics.quote(line.text.trimmingCharacters(in: .whitespaces), limit: 120)): \(error.message)"
                )
                if status == 0 { status = error.status }
                if !interactive && !keepGoing { break }
            }
            if session.quitRequested { break }
        }
        finish(opened)
        if status == 0, outputFailure.error != nil { status = ExitStatus.ioError }
        if status != 0 && (!interactive || outputFailure.error != nil) { throw ExitCode(status) }
    }

    private func openDocument() throws -> PersistentDocument {
        do {
            let url = try StandardStreams.documentURL(document)
            var given: ManagedObjectModel?
            var versions: [LoadedModel] = []
            if let model {
                let modelURL = URL(fileURLWithPath: model)
                let loaded = try ModelLoader.load(from: modelURL)
                for warning in loaded.warnings { printError("warning: the model \(model): \(warning)") }
                given = loaded.model
                if !create { versions = try ModelLoader.loadVersions(from: modelURL) }
            }
            if create {
                guard
                    let documentType = DocumentTypeRegistry.type(forName: type ?? (package ? "sqlite" : nil), url: url),
                    documentType.isWritable,
                    let given
                else {
                    throw ValidationError(
                        "give the type of the new document with --type (xml, binary or sqlite) or DOC's extension")
                }
                let created = try PersistentDocument(
                    creatingAt: url, ofType: documentType, model: given, asPackage: package, program: "docutil open")
                reportAutosave(created)
                return created
            }
            let opened = try PersistentDocument(
                contentsOf: url, ofType: importing.from?.format?.documentType.name, model: given, readOnly: readOnly,
                program: "docutil open", importOptions: try importing.importOptions(),
                migration: DocumentMigrationOptions(
                    migrates: !noMigrate, versions: versions,
                    mappingModel: mappingModel.map { URL(fileURLWithPath: $0) }))
            ImportSourceOptions.endProgress()
            if let source = opened.importedFrom {
                printError(
                    "\(source.path): imported into an untitled document; 'save-as FILE' writes it (the source is never changed)"
                )
            }
            if let source = opened.migratedFrom {
                printError("\(document): migrated in place from \(source) to the model given")
            }
            for warning in opened.warnings { printError("warning: \(document): \(warning)") }
            reportAutosave(opened)
            return opened
        } catch let error as ValidationError {
            throw error
        } catch {
            printError(String(describing: error))
            throw ExitCode(ExitStatus.code(for: error))
        }
    }

    /// Tells of an autosaved version an earlier session left beside the document.
    private func reportAutosave(_ opened: PersistentDocument) {
        guard let found = opened.foundAutosave else { return }
        printError(
            "warning: \(document): an autosaved version from \(DateText.iso8601Seconds(found.written)) (process \(found.pid)) is there, with \(found.inserted) inserted, \(found.updated) updated and \(found.deleted) deleted object(s): 'recover' lays it over the document, 'discard-autosave' removes it"
        )
    }

    /// At the end of the input: unsaved changes are discarded with a warning, never saved.
    private func finish(_ opened: PersistentDocument) {
        if opened.isEdited {
            printError("warning: \(document): unsaved changes discarded (nothing was saved since the last save)")
        }
        do {
            try opened.close(discardingChanges: true)
        } catch {
            printError("warning: \(error.message)")
        }
    }

    /// A termination signal: unsaved changes are autosaved to the sidecar (for `recover`), then the process ends
    /// of the signal.
    private func terminate(_ opened: PersistentDocument, by signal: Int32) -> Never {
        if opened.isEdited {
            do {
                try opened.autosave()
                printError("\(document): unsaved changes autosaved to \(opened.autosaveURL.path)")
            } catch {
                printError("\(document): unsaved changes could not be autosaved: \(error.message)")
            }
        }
        docutil_die_of_signal(signal)
        Foundation.exit(128 + signal)
    }
}

extension Error {
    /// The message of a library error, without a type name.
    var message: String {
        switch self {
        case let error as SessionError: error.message
        case let error as DocumentError: error.message
        default: String(describing: self)
        }
    }

    /// The exit status for a session error.
    var status: Int32 {
        switch self {
        case let error as SessionError: error.status
        default: ExitStatus.code(for: self)
        }
    }
}

/// The first output error of an editing session (set by its output closure, read when it ends).
private final class OutputFailure {
    var error: DocumentError? = nil
}
