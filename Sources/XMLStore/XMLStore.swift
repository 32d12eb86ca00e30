import Foundation
import ModelFiles
public import ObjectGraph

/// Apple's Core Data XML store (`NSXMLStoreType`): the externally parsable document format. Files written on a Mac
/// open here and ours follow Apple's layout. An atomic store: the whole file is read when the store is added and
/// written whole (to a temporary file, then renamed) at every save.
///
/// The model the file was written with is kept in the metadata under ``modelMetadataKey`` (Apple's Core Data
/// ignores unknown keys), so our documents open without a separate model file.
///
/// `@unchecked Sendable`: its mutable state (`metadata`, the next object number) is only touched under the
/// coordinator's lock.
public final class XMLStore: StreamingAtomicStore, CheckableStore, @unchecked Sendable {
    /// The registered type name.
    public static let typeName = "XML"
    /// Our metadata key for the embedded model (Xcode `contents` XML).
    public static let modelMetadataKey = StoreMetadata.modelKey

    /// How the store was opened: its type, file and options.
    public let description: StoreDescription
    /// The store's UUID, which appears in the URIs of its objects.
    public let identifier: String
    /// The store's metadata: type, UUID, model version hashes and any keys an app adds; written with the next save.
    public var metadata: [String: PropertyList] = [:]
    /// Keys are numbered across the whole store, after 101, as Apple's XML store does.
    public var primaryKeyScope: PrimaryKeyScope { .store(startingAfter: 101) }
    private var nextObjectID: Int64 = 101
    /// What reading left out, when the store was opened with the option `collectProblems` = `YES` (for checking).
    private var loadProblems: [StoreProblem] = []

    /// Registers the `"XML"` store type with the coordinator's registry.
    public static func register() {
        StoreType.register(
            StoreType(
                name: typeName, fileExtensions: ["xml", "storedata"],
                make: { description throws(StoreError) in try XMLStore(description: description) },
                readMetadata: { url throws(StoreError) in try XMLStoreFile.header(url: url).metadata },
                recognizes: { url in XMLStoreFile.looksLikeXMLStore(url) }))
    }

    /// Creates the store for a file (which need not exist yet).
    /// - Parameter description: the file and options (`readOnly`, `collectProblems`).
    /// - Throws: `StoreError` when the description has no file.
    public init(description: StoreDescription) throws(StoreError) {
        guard let url = description.url else { throw StoreError(.unsupported, "an XML store needs a file URL") }
        self.description = description
        if let given = description.options["storeIdentifier"] {
            identifier = given
        } else if FileManager.default.fileExists(atPath: url.path), let uuid = XMLStoreFile.peekUUID(url) {
            identifier = uuid
        } else {
            identifier = description.options["storeIdentifier"] ?? UUID().uuidString
        }
    }

    /// Reads every object of the store (atomic stores are read whole).
    /// - Parameter model: The model the objects are read with.
    /// - Returns: The store's identifier, metadata and object snapshots.
    /// - Throws: `StoreError` naming the file and the place when the file cannot be read or a value does not fit the model.
    public func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents {
        guard let url = description.url else { throw StoreError(.unsupported, "an XML store needs a file URL") }
        guard FileManager.default.fileExists(atPath: url.path) else {
            metadata = try Self.metadata(for: model, uuid: identifier, previous: [:])
            return AtomicStoreContents(identifier: identifier, metadata: metadata)
        }
        // Read as it goes, each object's values decoded as it is read: neither the file's bytes nor the store's raw
        // text are held whole beside the objects.
        var decoding: XMLStoreDecoder? = XMLStoreDecoder(model: model, path: url.path)
        if description.options["collectProblems"] == "YES" { decoding?.collected = [] }
        var raw = try XMLStoreReader(path: url.path).read(
            file: url, decodingWith: &decoding, storeIdentifier: identifier)
        guard var decoder = decoding else { throw StoreError(.io, path: url.path, "the store's decoder was lost") }
        // Every object's ID names the store by its UUID: without one, no ID could be written as a URI and read back
        // (the SQLite store refuses a store without one; an empty <UUID> is refused where it is read).
        guard !identifier.isEmpty else { throw StoreError(.corrupt, path: url.path, "the store has no UUID") }
        let snapshots = try decoder.snapshots(&raw, storeIdentifier: identifier)
        loadProblems = decoder.collected ?? []
        // Keys references to objects no longer there name are counted when keys are next given out (by the
        // coordinator) and when the file is written (`prepareWrite`), not on every read.
        nextObjectID = max(raw.nextObjectID, snapshots.map(\.objectID.primaryKey).max() ?? 0, 101)
        let stored = raw.metadata
        metadata = stored
        return AtomicStoreContents(identifier: identifier, metadata: stored, snapshots: snapshots)
    }

    /// What reading left out when the store was opened with `collectProblems` = `YES`: objects of entities the model
    /// lacks, ids used twice, properties that could not be read. (References to objects not in the file are kept, for
    /// `SnapshotCheck` to report with the rest of the graph.)
    /// - Parameter limit: the most problems of each kind to list.
    /// - Returns: the problems and their counts.
    /// - Throws: `StoreError` when the store was not loaded.
    public func checkStructure(limit: Int) throws(StoreError) -> StoreCheckResult {
        StoreCheckResult(problems: loadProblems, coveredKinds: [.unknownEntity, .primaryKey, .value])
    }

    /// Encodes the whole store and prepares to put it in place; nothing on disk changes until the transaction commits.
    /// - Parameters:
    ///   - contents: every object, the metadata and the identifier to write.
    ///   - model: the model the objects belong to.
    /// - Returns: The transaction that replaces the file on commit.
    /// - Throws: `StoreError` when a value cannot be written (it is never written as something else).
    public func prepareWrite(
        _ contents: AtomicStoreContents, model: ManagedObjectModel
    ) throws(StoreError) -> any StoreTransaction {
        guard let url = description.url else { throw StoreError(.unsupported, "an XML store needs a file URL") }
        // Above every key in use, references to objects no longer there included: a new object must never take the
        // key such a reference names (it would be read back as a link to it).
        var highest: Int64 = 0
        for snapshot in contents.snapshots {
            highest = max(highest, snapshot.objectID.primaryKey)
            snapshot.forEachDestination { _, destination in highest = max(highest, destination.primaryKey) }
        }
        let next = max(nextObjectID, highest)
        let newMetadata = try Self.metadata(for: model, uuid: identifier, previous: metadata)
        var writer = XMLStoreWriter(model: model)
        let transaction = try AtomicFileWriter.prepare(for: url) { (sink) throws(StoreError) in
            try writer.write(
                snapshots: contents.snapshots, uuid: identifier, nextObjectID: next, metadata: newMetadata, to: sink)
        }
        return Commit(transaction: transaction) { [self] in
            metadata = newMetadata
            nextObjectID = next
        }
    }

    /// Writes a whole store from objects given a batch at a time in id order (a copy of a large store), and prepares
    /// to put it in place; nothing on disk changes until the transaction commits.
    /// - Parameters:
    ///   - stream: the identifier, metadata and highest key, and the objects batch by batch.
    ///   - model: the model the objects belong to.
    /// - Returns: The transaction that replaces the file on commit.
    /// - Throws: `StoreError` when a value cannot be written, the objects are not in id order or the stream fails.
    public func prepareWrite(_ stream: AtomicStoreStream, model: ManagedObjectModel) throws(StoreError)
        -> any StoreTransaction
    {
        guard let url = description.url else { throw StoreError(.unsupported, "an XML store needs a file URL") }
        let next = max(nextObjectID, stream.highestKey)
        var written = stream
        written.metadata = try Self.metadata(for: model, uuid: identifier, previous: metadata)
        written.identifier = identifier
        var writer = XMLStoreWriter(model: model)
        let transaction = try AtomicFileWriter.prepare(for: url) { (sink) throws(StoreError) in
            try writer.write(written, nextObjectID: next, to: sink)
        }
        let newMetadata = written.metadata
        return Commit(transaction: transaction) { [self] in
            metadata = newMetadata
            nextObjectID = next
        }
    }

    struct Commit: StoreTransaction {
        let transaction: AtomicFileWriter.Transaction
        let done: () -> Void
        func commit() throws(StoreError) {
            try transaction.commit()
            done()
        }
        func rollback() { transaction.rollback() }
    }

    /// The metadata a store written with `model` carries: Apple's keys plus the model.
    static func metadata(
        for model: ManagedObjectModel, uuid: String, previous: [String: PropertyList]
    ) throws(StoreError) -> [String: PropertyList] {
        var metadata = StoreMetadata.standard(for: model, type: typeName, uuid: uuid, previous: previous)
        do {
            metadata[modelMetadataKey] = .string(try XcodeModelWriter.contents(of: model))
        } catch {
            throw StoreError(.unsupported, "the model cannot be written into the document: \(error.message)")
        }
        return metadata
    }
}
