import BinaryStore
public import Foundation
import ModelFiles
public import ObjectGraph
import SQLiteStore
import XMLStore

/// Why a document could not be opened or written, with the exit status `docutil` uses for it.
public struct DocumentError: Error, Sendable, CustomStringConvertible {
    public enum Code: Int32, Sendable {
        /// The operation is refused as asked (closing a document with unsaved changes without discarding them).
        case refused = 64
        case badData = 65
        case noInput = 66
        case unsupported = 69
        case cannotCreate = 73
        case io = 74
        /// The document changed on disk since it was read, or another process has it open for writing.
        case conflict = 75
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    init(_ error: StoreError) {
        switch error.code {
        case .notFound: self.init(.noInput, error.description)
        case .corrupt, .incompatibleModel, .conflict: self.init(.badData, error.description)
        case .unsupported: self.init(.unsupported, error.description)
        case .io, .readOnly: self.init(.io, error.description)
        }
    }

    init(_ error: ModelFileError) {
        switch error.code {
        case .notFound: self.init(.noInput, error.description)
        case .unsupported: self.init(.unsupported, error.description)
        case .io: self.init(.io, error.description)
        default: self.init(.badData, error.description)
        }
    }
}

/// An open document: its store in a coordinator, a context, and where its model came from.
public struct OpenedDocument {
    public let url: URL
    public let storeType: String
    public let coordinator: PersistentStoreCoordinator
    public let store: any PersistentStore
    public let context: ManagedObjectContext
    /// `given` (--model), `embedded` (the document carries it), `inferred` (worked out from an Apple XML store) or
    /// `Z_MODELCACHE`.
    public let modelSource: String
    /// Things worth telling the user (an inferred model, version hashes that differ from the given model…).
    public let warnings: [String]

    public var model: ManagedObjectModel { coordinator.model }

    /// For a document opened to read leniently: the stored values kept as they are because they do not fit their
    /// attributes (where, and why), so far.
    public var valueWarnings: [String] {
        (store as? SQLiteStore)?.valueWarnings ?? []
    }
}

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
    public static func detectType(_ url: URL) -> String? {
        registerStoreTypes()
        if SQLiteStoreFile.isSQLite(url) { return "SQLite" }
        if let type = StoreType.detect(at: url) { return type.name }
        if url.pathExtension.lowercased() == "sqlite" { return "SQLite" }
        return nil
    }

    /// The store type named by `--to` or by an output file's extension.
    public static func type(forName name: String?, url: URL) -> String? {
        switch (name ?? url.pathExtension).lowercased() {
        case "xml", "storedata": return XMLStore.typeName
        case "binary", "dubstore", "bin": return BinaryStore.typeName
        case "sqlite", "sqlite3", "db": return "SQLite"
        default: return nil
        }
    }

    /// Opens a document.
    /// - Parameters:
    ///   - modelURL: a model to use instead of the one the document carries.
    ///   - readOnly: open without ever writing (inspection and conversion).
    ///   - lenient: keep stored values that do not fit their attributes as they are (SQLite stores), reported in
    ///     ``OpenedDocument/valueWarnings``, instead of failing the read; for showing a damaged document, never for
    ///     writing one.
    public static func open(
        _ document: URL, model modelURL: URL? = nil, readOnly: Bool = true, lenient: Bool = false
    ) throws(DocumentError) -> OpenedDocument {
        try open(document, model: modelURL, readOnly: readOnly, lenient: lenient, storeOptions: [:])
    }

    /// ``open(_:model:readOnly:lenient:)`` with store options of its own (`collectProblems` for checking).
    static func open(
        _ document: URL, model modelURL: URL?, readOnly: Bool, lenient: Bool, storeOptions: [String: String]
    ) throws(DocumentError) -> OpenedDocument {
        registerStoreTypes()
        // A document package is read through the store inside it.
        let url = try DocumentPackage.storeFile(of: document).url
        try requireDocumentFile(url)
        guard let type = detectType(url) else {
            throw DocumentError(.badData, "\(url.path): not a document of any known type (XML, binary or SQLite store)")
        }
        let (model, source, warnings) = try chooseModel(for: url, type: type, given: modelURL)
        let coordinator = PersistentStoreCoordinator(model: model)
        let store: any PersistentStore
        var options = storeOptions
        if readOnly { options["readOnly"] = "YES" }
        if lenient { options["lenientValues"] = "YES" }
        do {
            store = try coordinator.addPersistentStore(type: type, url: url, options: options)
        } catch {
            throw DocumentError(error)
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager = nil
        return OpenedDocument(
            url: url, storeType: type, coordinator: coordinator, store: store, context: context, modelSource: source,
            warnings: warnings)
    }

    /// The model to read a document with: the one given (`--model`), else the one the document carries (embedded,
    /// Z_MODELCACHE), else one inferred from an Apple XML store; with where it came from (`given`, `embedded`,
    /// `Z_MODELCACHE`, `inferred`) and warnings worth telling the user.
    public static func chooseModel(for url: URL, type: String, given modelURL: URL?) throws(DocumentError) -> (
        model: ManagedObjectModel, source: String, warnings: [String]
    ) {
        registerStoreTypes()
        var warnings: [String] = []
        var source = "embedded"
        var model: ManagedObjectModel
        do {
            if let modelURL {
                let loaded = try ModelLoader.load(from: modelURL)
                model = loaded.model
                warnings += loaded.warnings.map { "the model \(modelURL.path): \($0)" }
                source = "given"
            } else if type == XMLStore.typeName {
                // The header alone says whether the document carries its model; only a file without one is read
                // whole here, to infer one.
                let header = try XMLStoreFile.header(url: url)
                let carried: ManagedObjectModel?
                do {
                    carried = try XMLStoreFile.embeddedModel(in: header.metadata)
                } catch {
                    throw error.inFile("\(url.path) (the model in its metadata)")
                }
                if let carried {
                    model = carried
                } else {
                    model = try XMLStoreFile(url: url).inferredModel()
                    source = "inferred"
                    warnings.append(
                        "the document carries no model; one was inferred from its contents (use --model to give one)")
                }
            } else if type == SQLiteStore.typeName {
                let file = try SQLiteStoreFile(url: url)
                if case .string(let contents)? = file.metadata[SQLiteStore.modelMetadataKey] {
                    model = try embedded(contents, in: url)
                } else {
                    let loaded = try file.storedModel()
                    model = loaded.model
                    warnings += loaded.warnings.map { "its model (Z_MODELCACHE): \($0)" }
                    source = "Z_MODELCACHE"
                }
            } else {
                let file = try BinaryStoreFile(url: url)
                do {
                    model = try file.model()
                } catch {
                    throw error.inFile("\(url.path) (the model it carries)")
                }
            }
        } catch let error as StoreError {
            throw DocumentError(error)
        } catch let error as ModelFileError {
            throw DocumentError(error)
        } catch let error as SQLiteStoreError {
            throw DocumentError(
                error.code == .notFound ? .noInput : (error.code == .io ? .io : .badData), error.description)
        } catch {
            throw DocumentError(.io, "\(url.path): \(error)")
        }
        if source == "given" {
            let metadata = (try? PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)) ?? [:]
            if case .dictionary(let recorded)? = metadata["NSStoreModelVersionHashes"] {
                let computed = model.entityVersionHashes
                let differing = recorded.filter { name, value in
                    if case .data(let hash) = value { return computed[name] != hash }
                    return false
                }.keys.sorted()
                if !differing.isEmpty || Set(recorded.keys) != Set(computed.keys) {
                    warnings.append(
                        "the model's version hashes differ from the document's (\(differing.isEmpty ? "different entities" : differing.joined(separator: ", "))); reading anyway"
                    )
                }
            }
        }
        return (model, source, warnings)
    }

    /// Refuses anything but a regular file (or a document package) as a document to read: a missing file, a folder,
    /// a device or a FIFO is `noInput` (never waited on).
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
        case .missing: throw DocumentError(.noInput, "\(url.path): no such file")
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
    /// - Throws: `cannotCreate` when `output` exists and `force` is off, or is not a regular file.
    /// - Parameter progress: hears how many objects were read of how many.
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
            try document.coordinator.writeCopy(of: document.store, to: target, type: type, progress: progress)
        } catch {
            throw DocumentError(error.code == .io ? .cannotCreate : DocumentError(error).code, error.description)
        }
    }
}
