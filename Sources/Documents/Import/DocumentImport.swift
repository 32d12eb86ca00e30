public import Foundation
public import ObjectGraph
import SQLiteStore

/// Imports legacy files into documents, all or nothing: a new document is written only when every source was read
/// and every object passed the model's rules; an existing document gets the objects in one save, or is left
/// byte-identical.
public enum DocumentImport {
    /// Objects saved per batch when a large import goes straight into a new SQLite document.
    public static let batchSize = 20_000

    /// Reads every source into `target` (each with the importer of its format: ``ImportOptions/format``, else its
    /// extension, else its first bytes), then links and checks what was read.
    /// - Parameters:
    ///   - sources: the files, in any order.
    ///   - target: where objects go.
    /// - Throws: ``DocumentError``: `badData` listing every problem, `noInput` for a missing source.
    public static func read(_ sources: [URL], into target: ImportTarget) throws(DocumentError) {
        var formats: [ImportFormat] = []
        for source in sources { formats.append(try ImportFormat.of(source, explicit: target.options.format)) }
        target.checkMappedFiles(sources)
        for (source, format) in zip(sources, formats) {
            guard let importer = format.documentType.importer else {
                throw DocumentError(.unsupported, "\(source.path): no importer for \(format.rawValue)")
            }
            try importer.importObjects(from: source, into: target)
        }
        target.checkMappedParts(formats)
        try target.finish()
    }

    /// Imports `sources` into a new document at `url`.
    ///
    /// Into a SQLite document whose model has no required relationships, objects are written to a temporary file
    /// beside `url` batch by batch (memory stays bounded however large the input), which is renamed into place at
    /// the end; table rows of entities without behaviour of their own are written without making objects, each
    /// batch on another thread while the next is read. Otherwise the document is built in memory and saved as
    /// `url` once. Either way `url` appears only when the import succeeded.
    /// - Parameters:
    ///   - sources: the files to import, in any order (links between them are made at the end).
    ///   - url: the new document.
    ///   - type: its document type (a store type).
    ///   - model: the model of the new document.
    ///   - options: the entity, mapping and format of the sources, and a progress handler.
    ///   - force: replace a regular file at `url`.
    ///   - program: the name the lock file records.
    /// - Returns: how many objects of each entity were imported.
    /// - Throws: ``DocumentError``: `cannotCreate` when `url` exists (without `force`) or is not a regular file,
    ///   `badData` listing every problem with the input, `conflict` when another process has `url` open, `io`.
    @discardableResult
    public static func importNew(
        _ sources: [URL], to url: URL, ofType type: DocumentType, model: ManagedObjectModel, options: ImportOptions,
        force: Bool = false, program: String = "docutil"
    ) throws(DocumentError) -> ImportSummary {
        DocumentStack.registerStoreTypes()
        guard type.isWritable, let storeType = type.storeType else {
            throw DocumentError(.cannotCreate, "documents of type \(type.name) can be imported but not saved")
        }
        try DocumentStack.checkOutput(url, force: force)
        if storeType == SQLiteStore.typeName && !hasRequiredRelationships(model) {
            return try importBatched(
                sources, to: url, type: type, storeType: storeType, model: model, options: options, program: program)
        }
        let document = try PersistentDocument(creatingAt: nil, ofType: type, model: model, program: program)
        document.managedObjectContext.undoManager = nil
        let target = ImportTarget(context: document.managedObjectContext, options: options)
        // Built in memory: the type saved to says whether uniqueness constraints are enforced.
        target.checksUniqueness = storeType == SQLiteStore.typeName
        try read(sources, into: target)
        let summary = summarize(document.managedObjectContext.insertedObjects, target: target, batched: false)
        try document.saveAs(to: url, ofType: type, force: force)
        try document.close()
        return summary
    }

    /// Imports `sources` into the existing document at `url`, in one save.
    /// - Parameters:
    ///   - sources: the files to import.
    ///   - url: the document.
    ///   - model: the model to open it with (`nil`: the one it carries).
    ///   - options: the entity, mapping and format of the sources, and a progress handler.
    ///   - program: the name the lock file records.
    /// - Returns: how many objects of each entity were imported.
    /// - Throws: ``DocumentError`` as ``PersistentDocument/init(contentsOf:ofType:model:readOnly:program:importOptions:migration:)`` and
    ///   ``PersistentDocument/save(force:)``, and `badData` listing every problem with the input; the document is
    ///   then as it was.
    @discardableResult
    public static func importInto(
        _ sources: [URL], document url: URL, model: ManagedObjectModel? = nil, options: ImportOptions,
        program: String = "docutil"
    ) throws(DocumentError) -> ImportSummary {
        let document = try PersistentDocument(contentsOf: url, model: model, program: program)
        // Closing only releases the lock (and, after a failed import, drops what was read): nothing is written, so a
        // failure there cannot change the document or what the user is told.
        defer { _ = try? document.close(discardingChanges: true) }
        guard !document.isReadOnly else {
            throw DocumentError(.cannotCreate, "\(url.path) cannot be written; nothing was imported")
        }
        if document.foundAutosave != nil {
            throw DocumentError(
                .refused,
                "\(url.path) has unsaved changes autosaved by an earlier session; open it to recover or discard them first"
            )
        }
        document.managedObjectContext.undoManager = nil
        let target = ImportTarget(context: document.managedObjectContext, options: options)
        try read(sources, into: target)
        let summary = summarize(document.managedObjectContext.insertedObjects, target: target, batched: false)
        try document.save()
        return summary
    }

    /// Whether a relationship of the model has a count rule a batch cannot check: one that must be filled, or a
    /// bounded to-many with an inverse (it grows as objects read later name their destination by key). Then the
    /// import is built whole in memory and checked once every source is read and every link made.
    static func hasRequiredRelationships(_ model: ManagedObjectModel) -> Bool {
        model.entities.contains { entity in
            entity.relationships.contains {
                !$0.isTransient
                    && (!$0.isOptional || $0.minCount > 0 || ($0.isToMany && $0.maxCount > 0 && $0.inverseName != nil))
            }
        }
    }

    static func summarize(_ objects: [ManagedObject], target: ImportTarget, batched: Bool) -> ImportSummary {
        var counts: [String: Int] = [:]
        for object in objects { counts[object.entity.name, default: 0] += 1 }
        return ImportSummary(inserted: counts, records: target.recordCount, batched: batched)
    }

    private static func importBatched(
        _ sources: [URL], to url: URL, type: DocumentType, storeType: String, model: ManagedObjectModel,
        options: ImportOptions, program: String
    ) throws(DocumentError) -> ImportSummary {
        let destination = SafeReplacement.destination(for: url)
        let lock = try DocumentLock.acquire(for: destination, program: program)
        defer { lock.release() }
        SafeReplacement.sweepStaleTemporaries(beside: destination)
        let temporary = SafeReplacement.temporaryURL(beside: destination)
        var store: (any PersistentStore)?
        var target: ImportTarget?
        do throws(DocumentError) {
            let coordinator = PersistentStoreCoordinator(model: model)
            do {
                // The temporary file is thrown away if the import fails: no journal on disk, no waiting for it.
                var options = type.storeOptions
                options[SQLiteStore.bulkLoadOption] = "YES"
                store = try coordinator.addPersistentStore(type: storeType, url: temporary, options: options)
            } catch {
                throw DocumentError(error)
            }
            let context = ManagedObjectContext(coordinator: coordinator)
            context.undoManager = nil
            let reading = ImportTarget(context: context, options: options, batchSize: batchSize)
            target = reading
            try read(sources, into: reading)
            // The store is new and the import all or nothing: what was read is what it holds.
            let counts = reading.insertedByEntity
            do {
                try (store as? any FlushingStore)?.flushAndClose()
                store = nil
                try SafeReplacement.replace(destination, with: temporary)
            } catch {
                throw DocumentError(error)
            }
            return ImportSummary(inserted: counts, records: reading.recordCount, batched: true)
        } catch {
            // A batch may still be being written: the store is closed after it.
            target?.abandonWriting()
            // The temporary store is thrown away whatever its close says; the import's own error is what counts.
            _ = try? (store as? any FlushingStore)?.flushAndClose()
            SafeReplacement.removeTemporary(temporary)
            throw error
        }
    }
}
