import BinaryStore
public import Foundation
import ModelFiles
public import ObjectGraph
import SQLiteStore
import XMLStore

/// Opens documents of every store type: finds the type from the content (then the extension), chooses the model
/// (given, embedded, or inferred) and adds the store.
public enum DocumentStack {
    /// Registers the file store types (XML, Binary) with the coordinator's registry. Safe to call repeatedly.
    public static func registerStoreTypes() {
        XMLStore.register()
        BinaryStore.register()
        SQLiteStore.register()
    }

    /// The store type of a file: by its first bytes, then by its extension; `nil` when neither tells.
    /// - Parameter url: the file.
    /// - Returns: `"SQLite"`, `"XML"`, `"Binary"`, or `nil`.
    public static func detectType(_ url: URL) -> String? {
        registerStoreTypes()
        if SQLiteStoreFile.isSQLite(url) { return "SQLite" }
        if let type = StoreType.detect(at: url) { return type.name }
        if url.pathExtension.lowercased() == "sqlite" { return "SQLite" }
        return nil
    }

    /// The store type named by `--to` or by an output file's extension.
    /// - Parameters:
    ///   - name: a store type name or extension (`sqlite`, `xml`, `binary`), or `nil`.
    ///   - url: the output file.
    /// - Returns: the store type, or `nil` when neither names one.
    public static func type(forName name: String?, url: URL) -> String? {
        switch (name ?? url.pathExtension).lowercased() {
        case "xml", "storedata": return XMLStore.typeName
        case "binary", "dubstore", "bin": return BinaryStore.typeName
        case "sqlite", "sqlite3", "db": return "SQLite"
        default: return nil
        }
    }

    /// Opens a document.
    ///
    /// With a model given (`modelURL`) that is not the one the document was written with (its version hashes
    /// differ), the model it was written with is looked for among the versions of the model given (every version of
    /// an `.xcdatamodeld` or `.momd`) and in the document (embedded, or its `Z_MODELCACHE`). A document opened to
    /// write is then migrated to the model given, in place, before it is read (``DocumentMigrationOptions``); one
    /// opened read-only is read with the model it was written with, and a warning says so. When that model is not
    /// found, the document is read with the model given and a warning says the version hashes differ.
    /// - Parameters:
    ///   - document: the document's file.
    ///   - modelURL: a model to use instead of the one the document carries.
    ///   - readOnly: open without ever writing (inspection and conversion).
    ///   - lenient: keep stored values that do not fit their attributes as they are (SQLite stores), reported in
    ///     ``OpenedDocument/valueWarnings``, instead of failing the read; for showing a damaged document, never for
    ///     writing one.
    ///   - migration: what to do with a document written with another version of the model; `nil` migrates when
    ///     the document is opened to write, and never when it is opened read-only.
    /// - Returns: the open document; its ``OpenedDocument/warnings`` say which model was used and what was migrated.
    /// - Throws: ``DocumentError``: `noInput` for a missing document or model, `badData` for one that can't be read
    ///   (or a migration that can't be inferred: every reason listed), `refused` for a migration asked of a
    ///   read-only open, `conflict` when another process has the document open for writing (to migrate it).
    public static func open(
        _ document: URL, model modelURL: URL? = nil, readOnly: Bool = true, lenient: Bool = false,
        migration: DocumentMigrationOptions? = nil
    ) throws(DocumentError) -> OpenedDocument {
        try open(
            document, model: modelURL, readOnly: readOnly, lenient: lenient, storeOptions: [:], migration: migration)
    }

    /// ``open(_:model:readOnly:lenient:migration:)`` with store options of its own (`collectProblems` for checking);
    /// `exactModel` reads with the model given even when the document was written with another (checking it against
    /// that model).
    static func open(
        _ document: URL, model modelURL: URL?, readOnly: Bool, lenient: Bool, storeOptions: [String: String],
        migration: DocumentMigrationOptions? = nil, exactModel: Bool = false
    ) throws(DocumentError) -> OpenedDocument {
        registerStoreTypes()
        // A document package is read through the store inside it.
        let url = try DocumentPackage.storeFile(of: document).url
        try requireDocumentFile(url)
        guard let type = detectType(url) else {
            throw DocumentError(.badData, "\(url.path): not a document of any known type (XML, binary or SQLite store)")
        }
        let options = migration ?? DocumentMigrationOptions(migrates: !readOnly)
        if readOnly && options.migrates {
            throw DocumentError(.refused, "\(document.path): a document opened read-only is never migrated")
        }
        let chosen: (model: ManagedObjectModel, source: String, warnings: [String])
        if let modelURL, !exactModel {
            let given = try givenModel(modelURL, for: url, type: type, extraVersions: options.versions)
            switch given.written {
            case .other(let written, let description, let warnings) where options.migrates:
                let report = try DocumentMigration.migrateInPlace(
                    document, storeURL: url, type: type, source: written, sourceDescription: description,
                    destination: given.current.model, options: options, program: "docutil")
                chosen = (
                    given.current.model, "given",
                    given.current.warnings.map { "the model \(modelURL.path): \($0)" } + warnings
                        + report.summaryWarnings
                )
            default:
                chosen = readWith(given, modelURL: modelURL)
            }
        } else {
            chosen = try chooseModel(for: url, type: type, given: modelURL, resolvingVersions: false)
        }
        let coordinator = PersistentStoreCoordinator(model: chosen.model)
        let store: any PersistentStore
        var storeOptions = storeOptions
        if readOnly { storeOptions["readOnly"] = "YES" }
        if lenient { storeOptions["lenientValues"] = "YES" }
        do {
            store = try coordinator.addPersistentStore(type: type, url: url, options: storeOptions)
        } catch {
            throw DocumentError(error)
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager = nil
        return OpenedDocument(
            url: url, storeType: type, coordinator: coordinator, store: store, context: context,
            modelSource: chosen.source, warnings: chosen.warnings)
    }

    /// A model given for a document: its current version, and the model the document was written with.
    static func givenModel(_ modelURL: URL, for url: URL, type: String, extraVersions: [LoadedModel] = [])
        throws(DocumentError) -> (current: LoadedModel, written: WrittenModel)
    {
        let current: LoadedModel
        let versions: [LoadedModel]
        do {
            current = try ModelLoader.load(from: modelURL)
            versions = try ModelLoader.loadVersions(from: modelURL)
        } catch {
            throw DocumentError(error)
        }
        let recorded = try WrittenModel.recordedHashes(of: url, type: type)
        let written = try WrittenModel.find(
            for: url, type: type, recorded: recorded, current: current.model,
            currentRecorded: current.recordedVersionHashes, versions: versions + extraVersions,
            modelName: modelURL.lastPathComponent)
        return (current, written)
    }

    /// The model to read a document with when a model is given and nothing is migrated: the model given when the
    /// document was written with it, else the one it was written with (saying so), else the one given (saying the
    /// version hashes differ).
    static func readWith(_ given: (current: LoadedModel, written: WrittenModel), modelURL: URL) -> (
        model: ManagedObjectModel, source: String, warnings: [String]
    ) {
        let modelWarnings = given.current.warnings.map { "the model \(modelURL.path): \($0)" }
        switch given.written {
        case .current:
            return (given.current.model, "given", modelWarnings)
        case .other(let model, let description, let warnings):
            return (
                model, "written",
                modelWarnings + warnings + [
                    "it was written with \(description), not with the model given: read with the model it was written with ('docutil migrate' moves it to the model given)"
                ]
            )
        case .unknown:
            return (
                given.current.model, "given",
                modelWarnings + [
                    "the model's version hashes differ from the document's, and the model it was written with is not known (it carries none, and no version of \(modelURL.lastPathComponent) has its hashes): read with the model given, where its values fit"
                ]
            )
        }
    }

    /// The model to read a document with: the one given (`--model`), else the one the document carries (embedded,
    /// Z_MODELCACHE), else one inferred from an Apple XML store; with where it came from (`given`, `embedded`,
    /// `Z_MODELCACHE`, `inferred`, or `written` for the version of the model given that the document was written
    /// with) and warnings worth telling the user.
    ///
    /// A model given that the document was not written with is not used when the one it was written with is found
    /// (among the versions of the model given, or in the document): the document is read with that one, and a
    /// warning says so (as ``open(_:model:readOnly:lenient:migration:)`` does for a read-only open).
    /// - Parameters:
    ///   - url: the document's store file.
    ///   - type: its store type.
    ///   - modelURL: the model given, if any.
    /// - Returns: the model, where it came from, and warnings.
    /// - Throws: ``DocumentError`` `noInput` for a missing model, `badData` when no model can be read or inferred.
    public static func chooseModel(for url: URL, type: String, given modelURL: URL?) throws(DocumentError) -> (
        model: ManagedObjectModel, source: String, warnings: [String]
    ) {
        try chooseModel(for: url, type: type, given: modelURL, resolvingVersions: true)
    }

    static func chooseModel(for url: URL, type: String, given modelURL: URL?, resolvingVersions: Bool)
        throws(DocumentError) -> (model: ManagedObjectModel, source: String, warnings: [String])
    {
        registerStoreTypes()
        if let modelURL {
            if resolvingVersions {
                return readWith(try givenModel(modelURL, for: url, type: type), modelURL: modelURL)
            }
            let loaded: LoadedModel
            do {
                loaded = try ModelLoader.load(from: modelURL)
            } catch {
                throw DocumentError(error)
            }
            var warnings = loaded.warnings.map { "the model \(modelURL.path): \($0)" }
            let recorded = try WrittenModel.recordedHashes(of: url, type: type)
            let computed = loaded.model.entityVersionHashes
            if !recorded.isEmpty, recorded != computed, recorded != loaded.recordedVersionHashes {
                let differing = recorded.keys.filter { computed[$0] != recorded[$0] }.sorted()
                warnings.append(
                    "the model's version hashes differ from the document's (\(differing.isEmpty ? "different entities" : differing.joined(separator: ", "))); reading with the model given"
                )
            }
            return (loaded.model, "given", warnings)
        }
        if let carried = try carriedModel(for: url, type: type) { return carried }
        do {
            let model = try XMLStoreFile(url: url).inferredModel()
            return (
                model, "inferred",
                ["the document carries no model; one was inferred from its contents (use --model to give one)"]
            )
        } catch {
            throw DocumentError(error)
        }
    }

    /// The model a document carries — embedded in its metadata, its `Z_MODELCACHE`, a binary store's — with where it
    /// came from and warnings; `nil` for an XML store without one.
    /// - Parameter allowingNone: give `nil` for a SQLite store without a model cache too (instead of the error
    ///   that says to give a model).
    static func carriedModel(for url: URL, type: String, allowingNone: Bool = false) throws(DocumentError) -> (
        model: ManagedObjectModel, source: String, warnings: [String]
    )? {
        registerStoreTypes()
        do {
            if type == XMLStore.typeName {
                // The header alone says whether the document carries its model.
                let header = try XMLStoreFile.header(url: url)
                do {
                    return try XMLStoreFile.embeddedModel(in: header.metadata).map { ($0, "embedded", []) }
                } catch {
                    throw error.inFile("\(url.path) (the model in its metadata)")
                }
            } else if type == SQLiteStore.typeName {
                let file = try SQLiteStoreFile(url: url, counting: false)
                if case .string(let contents)? = file.metadata[SQLiteStore.modelMetadataKey] {
                    return (try embedded(contents, in: url), "embedded", [])
                }
                // A store written before model caches (iOS 5 / macOS 10.7) carries none.
                guard file.modelCache != nil || !allowingNone else { return nil }
                let loaded = try file.storedModel()
                return (loaded.model, "Z_MODELCACHE", loaded.warnings.map { "its model (Z_MODELCACHE): \($0)" })
            } else {
                let file = try BinaryStoreFile(url: url)
                do {
                    return (try file.model(), "embedded", [])
                } catch {
                    throw error.inFile("\(url.path) (the model it carries)")
                }
            }
        } catch let error as StoreError {
            throw DocumentError(error)
        } catch let error as ModelFileError {
            throw DocumentError(error)
        } catch let error as SQLiteStoreError {
            throw DocumentError(error)
        } catch let error as DocumentError {
            throw error
        } catch {
            throw DocumentError(.io, "\(url.path): \(error)")
        }
    }

    /// Refuses anything but a regular file (or a document package) as a document to read: a missing file, a folder,
    /// a device or a FIFO is `noInput` (never waited on).
    /// - Parameter document: the path given as a document.
    /// - Throws: ``DocumentError`` `noInput` naming the file.
    public static func requireReadable(_ document: URL) throws(DocumentError) {
        try requireDocumentFile(try DocumentPackage.storeFile(of: document).url)
    }

    /// Refuses anything but a regular file as a document to read: a missing file, a folder, a device or a FIFO is
    /// `noInput` (never waited on).
    static func requireDocumentFile(_ url: URL) throws(DocumentError) {
        let kind: FileKind
        do {
            kind = try FileKind(path: url.path)
        } catch {
            throw DocumentError(.io, error.description)
        }
        switch kind {
        case .regularFile: break
        case .missing:
            // A document started at this path whose session ended before its first save may have autosaved it.
            let sidecar = AutosaveJournal.sidecarURL(for: SafeReplacement.destination(for: url))
            let autosaved: Bool
            do {
                autosaved = try FileKind(path: sidecar.path) == .regularFile
            } catch {
                // (Only the hint depends on it: the document is missing either way.)
                autosaved = false
            }
            if autosaved {
                throw DocumentError(
                    .noInput,
                    "\(url.path): no such file, but an autosaved new document is beside it (\(sidecar.path)): create the document at this path again to recover it"
                )
            }
            throw DocumentError(.noInput, "\(url.path): no such file")
        default:
            throw DocumentError(.noInput, "\(url.path): is \(kind.article), not a document file; it is not read")
        }
    }

    /// Refuses an output path that is not a regular file (a directory, device, FIFO or socket is left as it is), or
    /// that exists without `force`. A symbolic link is judged by what it points to.
    static func checkOutput(_ url: URL, force: Bool) throws(DocumentError) {
        let kind: FileKind
        do {
            kind = try FileKind(path: SafeReplacement.destination(for: url).path)
        } catch {
            throw DocumentError(.cannotCreate, error.description)
        }
        switch kind {
        case .missing: break
        case .regularFile:
            if !force { throw DocumentError(.cannotCreate, "\(url.path) exists; use --force to replace it") }
        default:
            throw DocumentError(
                .cannotCreate,
                "\(url.path) is \(kind.article); only a regular file is ever replaced, so it was left as it is")
        }
    }

    /// The model text a document carries, read, with errors naming the document.
    static func embedded(_ contents: String, in url: URL) throws(ModelFileError) -> ManagedObjectModel {
        do {
            return try ModelLoader.readContents(Data(contents.utf8))
        } catch {
            throw error.inFile("\(url.path) (the model in its metadata)")
        }
    }

    /// Writes every object of an open document to a new file of another type, carrying the model.
    ///
    /// The output is written to a temporary file beside it and renamed into place only when complete (a SQLite
    /// output is checkpointed and closed first, so it is one whole file), so it never exists half-written. Only a
    /// regular file is ever replaced, and only with `force`: a directory, a device, a FIFO or a socket at the output
    /// path is refused and left as it is. A symbolic link is followed: the file it points to is replaced.
    /// - Parameters:
    ///   - document: the open document.
    ///   - output: the file to write.
    ///   - type: the output's store type (`"SQLite"`, `"XML"`, `"Binary"`).
    ///   - force: replace `output` if it exists.
    ///   - progress: hears how many objects were read of how many.
    /// - Throws: `cannotCreate` when `output` exists and `force` is off, or is not a regular file.
    public static func convert(
        _ document: OpenedDocument, to output: URL, type: String, force: Bool, progress: ((Int, Int) -> Void)? = nil
    ) throws(DocumentError) {
        registerStoreTypes()
        let target = output.resolvingSymlinksInPath()
        try checkOutput(output, force: force)
        if target.standardizedFileURL == document.url.resolvingSymlinksInPath().standardizedFileURL {
            throw DocumentError(.cannotCreate, "\(output.path) is the input; converting in place is not allowed")
        }
        guard StoreType.named(type) != nil else {
            throw DocumentError(.unsupported, "cannot write \(type) documents yet")
        }
        do {
            try document.coordinator.exportCopy(of: document.store, to: target, type: type, progress: progress)
        } catch {
            throw DocumentError(error.code == .io ? .cannotCreate : DocumentError(error).code, error.description)
        }
    }
}
