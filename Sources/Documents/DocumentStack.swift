import BinaryStore
public import Foundation
public import ModelFiles
public import ObjectGraph
import SQLiteStore
import XMLStore

/// Why a document could not be opened or written, with the exit status `docutil` uses for it.
public struct DocumentError: Error, Sendable, CustomStringConvertible {
    public enum Code: Int32, Sendable {
        case badData = 65
        case noInput = 66
        case unsupported = 69
        case cannotCreate = 73
        case io = 74
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
    public static func open(_ url: URL, model modelURL: URL? = nil, readOnly: Bool = true) throws(DocumentError)
        -> OpenedDocument
    {
        registerStoreTypes()
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw DocumentError(.noInput, "\(url.path): no such file")
        }
        guard let type = detectType(url) else {
            throw DocumentError(.badData, "\(url.path): not a document of any known type (XML, binary or SQLite store)")
        }
        var warnings: [String] = []
        var source = "embedded"
        var model: ManagedObjectModel
        do {
            if let modelURL {
                model = try ModelLoader.load(from: modelURL).model
                source = "given"
            } else if type == XMLStore.typeName {
                let file = try XMLStoreFile(url: url)
                if let embedded = try file.embeddedModel() {
                    model = embedded
                } else {
                    model = try file.inferredModel()
                    source = "inferred"
                    warnings.append(
                        "the document carries no model; one was inferred from its contents (use --model to give one)")
                }
            } else if type == SQLiteStore.typeName {
                let file = try SQLiteStoreFile(url: url)
                if case .string(let contents)? = file.metadata[SQLiteStore.modelMetadataKey] {
                    model = try ModelLoader.readContents(Data(contents.utf8))
                } else {
                    model = try file.storedModel().model
                    source = "Z_MODELCACHE"
                }
            } else {
                model = try BinaryStoreFile(url: url).model()
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
        let coordinator = PersistentStoreCoordinator(model: model)
        let store: any PersistentStore
        do {
            store = try coordinator.addPersistentStore(
                type: type, url: url, options: readOnly ? ["readOnly": "YES"] : [:])
        } catch {
            throw DocumentError(error)
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager = nil
        return OpenedDocument(
            url: url, storeType: type, coordinator: coordinator, store: store, context: context, modelSource: source,
            warnings: warnings)
    }

    /// Writes every object of an open document to a new file of another type, carrying the model.
    /// - Throws: `cannotCreate` when `output` exists and `force` is off.
    public static func convert(_ document: OpenedDocument, to output: URL, type: String, force: Bool)
        throws(DocumentError)
    {
        registerStoreTypes()
        if FileManager.default.fileExists(atPath: output.path) && !force {
            throw DocumentError(.cannotCreate, "\(output.path) exists; use --force to replace it")
        }
        if output.standardizedFileURL == document.url.standardizedFileURL {
            throw DocumentError(.cannotCreate, "\(output.path) is the input; converting in place is not allowed")
        }
        guard StoreType.named(type) != nil else {
            throw DocumentError(.unsupported, "cannot write \(type) documents yet")
        }
        if force && type == SQLiteStore.typeName {
            // A SQLite target is written in place: start from an empty file.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: output.path + suffix) }
        }
        do {
            try document.coordinator.migratePersistentStore(document.store, to: output, type: type)
        } catch {
            throw DocumentError(error.code == .io ? .cannotCreate : DocumentError(error).code, error.description)
        }
    }
}
