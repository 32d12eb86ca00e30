public import Foundation
import ModelFiles
public import ObjectGraph
import SQLiteStore

/// A document backed by one persistent store: a file (or none, while untitled), its type, a model, a coordinator
/// with the store, and a context with its undo manager. It tracks whether it differs from its file, saves in place,
/// as another file (and type), or as a copy, reverts, autosaves to a sidecar and recovers from it, refuses to
/// overwrite a file someone else changed, and lets one process at a time open it for writing — the contract of
/// AppKit's `NSPersistentDocument`, brought to Linux.
///
/// **Edited.** ``isEdited`` is true exactly when saving would change the file: the context's unsaved changes
/// (constant time, content-based — an object inserted then deleted, or a value changed and changed back, is no
/// change), or contents the file does not have yet (an import, a recovered autosave, a new document). Undo history
/// survives saves: undoing after a save makes the document edited again, and saving writes the undone state.
/// ``savePointToken`` marks the save in the undo history (`UndoManager.stateToken`).
///
/// **Subclass hooks**, in `NSPersistentDocument`'s spirit: ``managedObjectModel(for:ofType:)`` (the model, a class
/// method because the stack is built from it), ``persistentStoreType(for:)``,
/// ``configurePersistentStoreCoordinator(for:ofType:storeType:options:)`` and, for types that are only imported,
/// ``read(from:ofType:into:)``.
///
/// A document and its context belong to one isolation domain, like the context.
open class PersistentDocument {
    /// The document's file (or package folder); `nil` while untitled (new, or imported from a file it will not be
    /// saved over).
    public private(set) var fileURL: URL?
    /// Whether the document is a package folder in `UIManagedDocument`'s layout (``DocumentPackage``).
    public private(set) var isPackage: Bool
    /// The document's type.
    public private(set) var fileType: DocumentType
    /// The coordinator, with the document's one store.
    public let coordinator: PersistentStoreCoordinator
    /// The context the document's objects live in.
    public let managedObjectContext: ManagedObjectContext
    /// Whether the document was opened to read only: saving in place is refused (save as and save a copy work).
    public let isReadOnly: Bool
    /// Where the model came from (`given`, `embedded`, `Z_MODELCACHE`, `inferred`, `new`).
    public private(set) var modelSource: String
    /// Things worth telling the user about the open (an inferred model, differing version hashes…).
    public private(set) var warnings: [String] = []
    /// The model the document was migrated from as it was opened (`version 2 of …`, `the document's own model
    /// (Z_MODELCACHE)`), or `nil` when it was not migrated.
    public private(set) var migratedFrom: String?
    /// The file the document was imported from, for a type that is only imported.
    public private(set) var importedFrom: URL?
    /// How a file of a type that is only imported is read (the entity, a mapping).
    public let importOptions: ImportOptions
    /// An autosaved version left by an earlier session, found when the document was opened (recover or discard it).
    public private(set) var foundAutosave: AutosaveInfo?
    /// Seconds between autosaves, or `nil` for no autosave (the default).
    public var autosaveInterval: TimeInterval?
    /// When this session last autosaved.
    public private(set) var lastAutosave: Date?
    /// NSDocument's change count, by kind: changes done, undone and redone since the last save or revert.
    public private(set) var changeCount = (done: 0, undone: 0, redone: 0)
    /// The point in the undo history the document was last saved at (`UndoManager.stateToken`).
    public private(set) var savePointToken: UInt64 = 0

    /// The program named in the lock file (`docutil open`, or an app's name).
    let program: String
    var lock: DocumentLock?
    var fingerprint: FileFingerprint?
    var dataVersion: Int64?
    /// Whether the document has contents its file lacks that the context does not show as changes.
    var contentsNotInFile = false
    /// Whether there is no file yet (a new document: its first save writes it).
    var isNew: Bool
    /// Whether this session wrote (or recovered, and so took over) the autosave sidecar.
    var ownsSidecar = false
    /// Whether the sidecar came from an earlier session (recovered): it then stays until the document is saved or
    /// the autosave discarded — closing without saving, or reverting, never removes what a crash left.
    var inheritedSidecar = false
    var autosavedGeneration: UInt64?
    var lastAutosaveAttempt = Date.distantPast
    var untitledSidecar: URL?

    // MARK: - Opening

    /// Opens an existing document.
    ///
    /// - Parameters:
    ///   - url: the document's file (or package folder).
    ///   - typeName: the document type's name; `nil` to find it from the file's first bytes, then its extension.
    ///   - model: the model to read it with; `nil` for ``managedObjectModel(for:ofType:)`` (the one it carries).
    ///   - readOnly: open without the lock and without ever writing the file.
    ///   - program: the name the lock file records.
    ///   - importOptions: for a file of a type that is only imported (CSV, JSON…): the entity, a mapping.
    ///   - migration: what to do when `model` is not the model the document was written with (its version hashes
    ///     differ): by default the document is migrated to `model` in place, under its lock, before it is read
    ///     (``migratedFrom`` then says from what). A document opened read-only, one whose file is not writable, one
    ///     with an autosaved version waiting, or any document when ``DocumentMigrationOptions/migrates`` is off, is
    ///     read with the model it was written with instead, and ``warnings`` say so.
    /// - Throws: ``DocumentError``: `noInput` for a missing file, `conflict` when another process has it open for
    ///   writing, `badData`/`unsupported`/`io` when it cannot be read (for an import: every problem listed; for a
    ///   migration that can't be inferred: every reason).
    public required init(
        contentsOf url: URL, ofType typeName: String? = nil, model: ManagedObjectModel? = nil, readOnly: Bool = false,
        program: String = "docutil", importOptions: ImportOptions = ImportOptions(),
        migration: DocumentMigrationOptions = DocumentMigrationOptions()
    ) throws(DocumentError) {
        self.importOptions = importOptions
        DocumentStack.registerStoreTypes()
        let (storeURL, package) = try DocumentPackage.storeFile(of: url)
        try DocumentStack.requireDocumentFile(storeURL)
        let type: DocumentType
        if let typeName {
            guard let named = DocumentTypeRegistry.type(named: typeName) else {
                throw DocumentError(.unsupported, "unknown document type '\(typeName)'")
            }
            type = named
        } else {
            guard let found = DocumentTypeRegistry.type(of: storeURL) else {
                throw DocumentError(
                    .badData, "\(url.path): not a document of any known type (XML, binary or SQLite store)")
            }
            type = found
        }
        // A file the user may not write is opened read-only, with a warning, rather than replaced by a save (a
        // rename-based save would succeed in a writable folder and quietly drop the file's protection).
        let writable = access(storeURL.path, W_OK) == 0
        var chosen: (model: ManagedObjectModel, source: String, warnings: [String])
        if let model {
            chosen = (model, "given", [])
        } else {
            chosen = try Self.managedObjectModel(for: storeURL, ofType: type)
        }
        // A model that is not the document's own (given, or an app's from the hook) may not be the one it was
        // written with: then it is migrated (below, under the lock) or read with the one it was written with.
        var pendingMigration: (source: ManagedObjectModel, description: String, warnings: [String])?
        if let storeType = type.storeType, !["embedded", "Z_MODELCACHE", "inferred"].contains(chosen.source) {
            switch try Self.writtenModel(of: storeURL, type: storeType, model: chosen.model, migration: migration) {
            case .current:
                break
            case .unknown:
                chosen.warnings.append(
                    "the model's version hashes differ from the document's, and the model it was written with is not known (it carries none, and no version given has its hashes): read with the model given, where its values fit"
                )
            case .other(let source, let description, let warnings):
                let hasAutosave =
                    try AutosaveJournal.info(
                        at: AutosaveJournal.sidecarURL(for: SafeReplacement.destination(for: url))) != nil
                let why: String? =
                    if !migration.migrates {
                        "migration is off"
                    } else if readOnly || !type.isWritable || !writable {
                        "a document opened read-only is not migrated"
                    } else if hasAutosave {
                        "not migrated while an autosaved version is there: recover or discard it, save, and open again to migrate"
                    } else {
                        nil
                    }
                if let why {
                    chosen = (
                        source, "written",
                        chosen.warnings + warnings + [
                            "it was written with \(description), not with the model given: read with the model it was written with (\(why))"
                        ]
                    )
                } else {
                    pendingMigration = (source, description, warnings)
                }
            }
        }
        coordinator = PersistentStoreCoordinator(model: chosen.model)
        managedObjectContext = ManagedObjectContext(coordinator: coordinator)
        fileType = type
        modelSource = chosen.source
        warnings = chosen.warnings
        if !readOnly && !writable {
            warnings.append("the file is not writable: opened read-only (save it as another file to keep changes)")
        }
        isReadOnly = readOnly || !type.isWritable || !writable
        isNew = false
        isPackage = package
        self.program = program
        fileURL = url
        observeUndo()
        guard let storeType = persistentStoreType(for: type) else {
            // A type that is only imported: the document starts untitled, its contents read by the subclass.
            fileURL = nil
            importedFrom = url
            try addInMemoryStore()
            // Reading is not an edit the user can undo: the imported contents are where the document starts.
            let undoManager = managedObjectContext.undoManager
            managedObjectContext.undoManager = nil
            defer { managedObjectContext.undoManager = undoManager }
            try read(from: url, ofType: type, into: managedObjectContext)
            managedObjectContext.processPendingChanges()
            contentsNotInFile = true
            return
        }
        if !isReadOnly {
            lock = try DocumentLock.acquire(for: SafeReplacement.destination(for: url), program: program)
            SafeReplacement.sweepStaleTemporaries(beside: SafeReplacement.destination(for: url))
            if package { SafeReplacement.sweepStaleTemporaries(beside: storeURL) }
        }
        var options = type.storeOptions
        if isReadOnly { options["readOnly"] = "YES" }
        // The journal mode is chosen when a file is created; an existing document keeps its own.
        options["journalMode"] = nil
        do {
            if let pending = pendingMigration {
                let report = try DocumentMigration.migrateInPlace(
                    url, storeURL: storeURL, type: storeType, source: pending.source,
                    sourceDescription: pending.description, destination: chosen.model, options: migration,
                    program: program, locked: true)
                warnings += pending.warnings + report.warnings
                migratedFrom = pending.description
            }
            try configurePersistentStoreCoordinator(
                for: storeURL, ofType: type, storeType: storeType, options: options)
            try rememberFile()
            foundAutosave = try AutosaveJournal.info(at: sidecarURL())
        } catch {
            lock?.release()
            lock = nil
            throw error
        }
    }

    /// Starts a new document of `type`: untitled when `url` is `nil`, else to be saved at `url` (which must not
    /// exist) by its first save — as a package folder (``DocumentPackage``) when `asPackage`. Nothing is written
    /// until then.
    /// - Parameters:
    ///   - url: where the first save writes it; `nil` for an untitled document.
    ///   - type: the document type (a type with a store).
    ///   - model: the model of the new document.
    ///   - asPackage: write a package folder rather than a single file.
    ///   - program: the name the lock file records.
    /// - Throws: ``DocumentError`` `cannotCreate` when `url` exists or the type cannot be saved, `conflict` when
    ///   another process holds `url`'s lock.
    public required init(
        creatingAt url: URL?, ofType type: DocumentType, model: ManagedObjectModel, asPackage: Bool = false,
        program: String = "docutil"
    ) throws(DocumentError) {
        importOptions = ImportOptions()
        DocumentStack.registerStoreTypes()
        guard type.isWritable else {
            throw DocumentError(.cannotCreate, "documents of type \(type.name) can be imported but not saved")
        }
        if let url {
            let kind: FileKind
            do {
                kind = try FileKind(path: url.path)
            } catch {
                throw DocumentError(.cannotCreate, error.description)
            }
            guard kind == .missing else {
                throw DocumentError(.cannotCreate, "\(url.path) exists; open it, or choose another name")
            }
        }
        coordinator = PersistentStoreCoordinator(model: model)
        managedObjectContext = ManagedObjectContext(coordinator: coordinator)
        fileType = type
        fileURL = url
        modelSource = "new"
        isReadOnly = false
        isNew = true
        isPackage = asPackage
        self.program = program
        observeUndo()
        if let url { lock = try DocumentLock.acquire(for: SafeReplacement.destination(for: url), program: program) }
        do {
            try addInMemoryStore()
            // A session that started a document here and ended without saving it (killed) may have autosaved it.
            if url != nil { foundAutosave = try AutosaveJournal.info(at: sidecarURL()) }
        } catch {
            lock?.release()
            lock = nil
            throw error
        }
    }

    deinit {
        if ownsSidecar, !inheritedSidecar, !isEdited { unlink(sidecarURL().path) }
        lock?.release()
    }

    /// The model a document at `url` was written with, compared with `model`.
    static func writtenModel(
        of url: URL, type: String, model: ManagedObjectModel, migration: DocumentMigrationOptions
    ) throws(DocumentError) -> WrittenModel {
        let recorded = try WrittenModel.recordedHashes(of: url, type: type)
        let current = migration.versions.first { $0.model.entityVersionHashes == model.entityVersionHashes }
        // The versions' bundle (`Model.xcdatamodeld`), to name them by.
        let bundle = migration.versions.first.map { URL(fileURLWithPath: $0.path).deletingLastPathComponent() }
        let modelName =
            bundle.map { ["xcdatamodeld", "momd"].contains($0.pathExtension) } == true
            ? bundle?.lastPathComponent ?? "the model given" : "the model given"
        return try WrittenModel.find(
            for: url, type: type, recorded: recorded, current: model, currentRecorded: current?.recordedVersionHashes,
            versions: migration.versions, modelName: modelName)
    }

    // MARK: - Hooks

    /// The model for a document at `url` (called when none is given): by default the model it carries (embedded in
    /// its metadata, or its Z_MODELCACHE), or one inferred from an Apple XML store. Returns where it came from and
    /// warnings. Override to give an app's model (with a source of your own, such as `app`): a document written with
    /// another version of it is then migrated, or read with that version, as for a model given to
    /// ``init(contentsOf:ofType:model:readOnly:program:importOptions:migration:)``.
    /// - Parameters:
    ///   - url: the document's store file.
    ///   - type: its document type.
    /// - Returns: the model, where it came from (`embedded`, `Z_MODELCACHE`, `inferred`, or your own word), and
    ///   warnings worth showing.
    /// - Throws: ``DocumentError`` `badData` when the document carries no model that can be read.
    open class func managedObjectModel(for url: URL, ofType type: DocumentType) throws(DocumentError) -> (
        model: ManagedObjectModel, source: String, warnings: [String]
    ) {
        guard let storeType = type.storeType else {
            throw DocumentError(
                .unsupported,
                "documents of type \(type.name) carry no model: a subclass must give one (managedObjectModel(for:ofType:))"
            )
        }
        return try DocumentStack.chooseModel(for: url, type: storeType, given: nil)
    }

    /// The store type for documents of a type (`nil`: the type is only imported). By default the type's own.
    /// - Parameter type: the document type.
    /// - Returns: a store type name (`"SQLite"`, `"XML"`, `"Binary"`, or one an app registered).
    open func persistentStoreType(for type: DocumentType) -> String? {
        type.storeType
    }

    /// Adds the document's store to the coordinator. Override to add options or more stores (call `super`).
    /// - Parameters:
    ///   - url: the store file.
    ///   - type: the document type.
    ///   - storeType: the store type to add.
    ///   - options: store options (`readOnly` and the type's own).
    /// - Throws: ``DocumentError`` when the store cannot be added (the file is missing, unreadable or of another
    ///   model).
    open func configurePersistentStoreCoordinator(
        for url: URL, ofType type: DocumentType, storeType: String, options: [String: String]
    ) throws(DocumentError) {
        do {
            try coordinator.addPersistentStore(type: storeType, url: url, options: options)
        } catch {
            throw DocumentError(error)
        }
    }

    /// Reads a file of a type that is only imported (a legacy format) into the context: the import hook. The
    /// document is then untitled and edited; its first save is a save as, to a writable type. The default runs the
    /// type's ``DocumentType/importer`` with ``importOptions``, and refuses a type without one.
    /// - Parameters:
    ///   - url: the legacy file.
    ///   - type: its document type (one with an importer).
    ///   - context: the document's context, to insert into.
    /// - Throws: ``DocumentError`` `badData` listing every problem with the input, `unsupported` for a type without an
    ///   importer.
    open func read(from url: URL, ofType type: DocumentType, into context: ManagedObjectContext) throws(DocumentError) {
        guard let importer = type.importer else {
            throw DocumentError(.unsupported, "\(url.path): no importer reads documents of type \(type.name)")
        }
        let target = ImportTarget(context: context, options: importOptions)
        try importer.importObjects(from: url, into: target)
        try target.finish()
    }

    // MARK: - State

    /// The document's store.
    public var persistentStore: (any PersistentStore)? { coordinator.persistentStores.first }

    /// The file holding the store: the document itself, or the store inside its package.
    public var storeFileURL: URL? {
        fileURL.map { isPackage ? DocumentPackage.storeURL(in: $0) : $0 }
    }

    /// The undo manager (the context's).
    public var undoManager: UndoManager? { managedObjectContext.undoManager }

    /// Whether the document differs from its file: exactly when a save would change it.
    public var isEdited: Bool { contentsNotInFile || managedObjectContext.hasChanges }

    /// Whether there is no file yet (new and never saved, or imported).
    public var isUntitled: Bool { fileURL == nil }

    /// Whether changes were made since the last autosave (or since opening, with none yet).
    public var hasUnautosavedChanges: Bool {
        managedObjectContext.changeGeneration != autosavedGeneration && isEdited
    }

    /// The store type name of the document.
    public var storeType: String {
        // (A new document's objects wait in memory until its first save writes the file of its type.)
        if isNew, let type = fileType.storeType { return type }
        return persistentStore?.description.type ?? fileType.storeType ?? "InMemory"
    }

    /// Who holds the document's lock when it is not this document: for reports. `nil` when no one does.
    /// - Parameter url: the document.
    /// - Returns: the process, program and host holding the lock, or `nil`.
    public static func lockHolder(of url: URL) -> LockHolder? {
        DocumentLock.holder(of: SafeReplacement.destination(for: url))
    }

    /// The autosaved version beside a document, if one exists.
    /// - Parameter url: the document.
    /// - Returns: when, where and by whom it was autosaved, and how many objects it changes; `nil` when there is none.
    /// - Throws: ``DocumentError`` `badData` when the sidecar is there but cannot be read.
    public static func autosave(of url: URL) throws(DocumentError) -> AutosaveInfo? {
        try AutosaveJournal.info(at: AutosaveJournal.sidecarURL(for: SafeReplacement.destination(for: url)))
    }

    func observeUndo() {
        managedObjectContext.undoManager?.onChange = { [weak self] change in
            guard let self else { return }
            switch change {
            case .done: changeCount.done += 1
            case .undone: changeCount.undone += 1
            case .redone: changeCount.redone += 1
            case .cleared: break
            }
        }
        savePointToken = managedObjectContext.undoManager?.stateToken ?? 0
    }

    // MARK: - Saving

    /// Saves the document in place: the context's changes go to its store (validated first: a refusal lists every
    /// failed rule and writes nothing). A new document's first save writes its file.
    ///
    /// - Parameter force: save even though the file changed on disk since it was read (the file's changes are
    ///   overwritten where they meet the document's).
    /// - Throws: ``DocumentError``: `badData` for validation, `conflict` when the file changed on disk (or went away)
    ///   since it was read or saved, `cannotCreate` when the document is untitled or read-only, `io` when writing
    ///   fails — then the file is as it was, and the document still edited.
    public func save(force: Bool = false) throws(DocumentError) {
        guard let url = fileURL else {
            throw DocumentError(.cannotCreate, "the document is untitled; save it as a file (save as)")
        }
        guard !isReadOnly else {
            throw DocumentError(.cannotCreate, "\(url.path) is open read-only; save it as another file (save as)")
        }
        if isNew {
            try writeNewFile(to: url, type: fileType, force: force)
            return
        }
        try checkUnchangedOnDisk(force: force)
        let context = managedObjectContext
        let policy = context.mergePolicy
        if force { context.mergePolicy = .overwrite }
        defer { context.mergePolicy = policy }
        do {
            try context.save()
        } catch {
            throw Self.documentError(error, saving: url)
        }
        try rememberFile()
        didSave()
    }

    /// Saves the document as another file, of another type if asked: the current state (unsaved changes included)
    /// is written there, validated first, and the document then lives there; the old file is left as it was.
    /// Undo history is kept.
    ///
    /// - Parameters:
    ///   - url: the new file.
    ///   - type: the new type (`nil`: the same type, or the one `url`'s extension names).
    ///   - force: replace a regular file at `url` (never a directory or a device).
    ///   - asPackage: write a package folder (``DocumentPackage``) or a single file; `nil`: as the document is now.
    /// - Throws: ``DocumentError``: `cannotCreate` when `url` exists (without `force`; a package never replaces
    ///   anything), is not a regular file, or the type cannot be saved; `conflict` when another process has `url`
    ///   open; `badData` for validation; `io`.
    public func saveAs(
        to url: URL, ofType type: DocumentType? = nil, force: Bool = false, asPackage: Bool? = nil
    ) throws(DocumentError) {
        let package = asPackage ?? isPackage
        let (type, storeType) = try target(url, ofType: type)
        if !isNew && isOwnFile(url) {
            guard type.name == fileType.name else {
                throw DocumentError(
                    .cannotCreate, "\(url.path) is the document's own file; save it as another file to change its type")
            }
            return try save(force: force)
        }
        if !package { try DocumentStack.checkOutput(url, force: force) }
        let destination = SafeReplacement.destination(for: url)
        let newLock = try DocumentLock.acquire(for: destination, program: program)
        do {
            try writeElsewhere(to: url, type: type, storeType: storeType, asPackage: package)
        } catch {
            newLock.release()
            throw error
        }
        let oldSidecar = ownsSidecar ? sidecarURL() : nil
        lock?.release()
        lock = newLock
        fileURL = url
        fileType = type
        isNew = false
        isPackage = package
        importedFrom = nil
        if let oldSidecar { unlink(oldSidecar.path) }
        ownsSidecar = false
        inheritedSidecar = false
        foundAutosave = nil
        try rememberFile()
        didSave()
    }

    /// Writes the current state (unsaved changes included, validated first) to another file and type; the document
    /// stays where it was and stays edited.
    /// - Parameters:
    ///   - url: the file to write.
    ///   - type: its type (`nil`: the document's own, or the one `url`'s extension names).
    ///   - force: replace a regular file at `url`.
    ///   - asPackage: write a package folder or a single file; `nil`: as the document is.
    /// - Throws: as ``saveAs(to:ofType:force:asPackage:)``.
    public func saveCopy(
        to url: URL, ofType type: DocumentType? = nil, force: Bool = false, asPackage: Bool? = nil
    ) throws(DocumentError) {
        let package = asPackage ?? isPackage
        let (type, storeType) = try target(url, ofType: type)
        if isOwnFile(url) {
            throw DocumentError(.cannotCreate, "\(url.path) is the document's own file; a copy goes elsewhere")
        }
        if !package { try DocumentStack.checkOutput(url, force: force) }
        if let holder = Self.lockHolder(of: url) {
            throw DocumentError(.conflict, "\(url.path) is open for writing by \(holder); not replaced")
        }
        let (store, changes) = try validatedChanges(saving: url)
        if package {
            try DocumentPackage.write(to: url, copying: isPackage && !isNew ? fileURL : nil) {
                (storeURL) throws(DocumentError) in
                try writeCopy(of: store, changes, to: storeURL, type: type, storeType: storeType, inPackage: true)
            }
        } else {
            try writeCopy(of: store, changes, to: url, type: type, storeType: storeType, inPackage: false)
        }
    }

    /// Writes a copy of the store with `changes` laid over it.
    @discardableResult
    func writeCopy(
        of store: any PersistentStore, _ changes: UnsavedChanges, to url: URL, type: DocumentType, storeType: String,
        inPackage: Bool
    ) throws(DocumentError) -> [ManagedObjectID: ManagedObjectID] {
        do {
            return try coordinator.writeCopy(
                of: store, applying: changes, to: url, type: storeType,
                options: Self.storeOptions(type, storeType: storeType, inPackage: inPackage))
        } catch {
            throw Self.documentError(ContextError.store(error), saving: url)
        }
    }

    /// The options a new store file of `type` gets: inside a package, a SQLite store uses write-ahead logging (the
    /// package keeps its side files together); a single-file document uses a rollback journal.
    static func storeOptions(_ type: DocumentType, storeType: String, inPackage: Bool) -> [String: String] {
        var options = type.storeOptions
        if inPackage && storeType == SQLiteStore.typeName { options["journalMode"] = "WAL" }
        return options
    }

    /// Discards every unsaved change and reads the file again (picking up changes made to it elsewhere); undo is
    /// cleared. The document's objects are all let go: fetch again.
    /// - Throws: ``DocumentError`` when there is no file to read (untitled, or new and never saved), or it cannot be
    ///   read — the document then has no store until it is reverted again.
    public func revert() throws(DocumentError) {
        guard let url = fileURL, !isNew, let storeType = persistentStoreType(for: fileType) else {
            throw DocumentError(.noInput, "the document has no file to revert to")
        }
        let sidecar = ownsSidecar && !inheritedSidecar ? sidecarURL() : nil
        for store in coordinator.persistentStores {
            coordinator.removePersistentStore(store)
            store.close()
        }
        managedObjectContext.reset()
        contentsNotInFile = false
        var options = fileType.storeOptions
        options["journalMode"] = nil
        if isReadOnly { options["readOnly"] = "YES" }
        try configurePersistentStoreCoordinator(
            for: isPackage ? DocumentPackage.storeURL(in: url) : url, ofType: fileType, storeType: storeType,
            options: options)
        try rememberFile()
        if let sidecar { unlink(sidecar.path) }
        if inheritedSidecar { foundAutosave = try AutosaveJournal.info(at: sidecarURL()) }
        ownsSidecar = false
        inheritedSidecar = false
        changeCount = (0, 0, 0)
        savePointToken = managedObjectContext.undoManager?.stateToken ?? 0
        autosavedGeneration = nil
    }

    /// Closes the document: refuses while it is edited unless `discardingChanges`; removes this session's autosave
    /// sidecar, lets go of the store (a SQLite file's log folded back in) and of the lock.
    /// - Parameter discardingChanges: close even with unsaved changes, which are lost.
    /// - Throws: ``DocumentError`` `refused` when edited and not discarding.
    public func close(discardingChanges: Bool = false) throws(DocumentError) {
        if isEdited && !discardingChanges {
            throw DocumentError(.refused, "the document has unsaved changes; save them, or discard them to close")
        }
        if ownsSidecar, !inheritedSidecar { unlink(sidecarURL().path) }
        ownsSidecar = false
        for store in coordinator.persistentStores {
            coordinator.removePersistentStore(store)
            store.close()
        }
        managedObjectContext.reset()
        contentsNotInFile = false
        lock?.release()
        lock = nil
    }

    // MARK: - Autosave

    /// Writes the unsaved changes to the sidecar (``autosaveURL``) — never to the document — without validating
    /// them: a half-edited graph that a save would refuse still autosaves. Nothing is written when nothing changed
    /// since the last autosave; a document with no unsaved changes left removes its sidecar.
    /// - Throws: ``DocumentError`` `conflict` while an autosave of an earlier session is there (recover or discard
    ///   it first, so that it is not lost), `io` when the sidecar cannot be written (the last good one stays).
    public func autosave() throws(DocumentError) {
        lastAutosaveAttempt = Date()
        let sidecar = sidecarURL()
        if let foundAutosave, !ownsSidecar {
            throw DocumentError(
                .conflict,
                "an autosaved version from an earlier session (\(foundAutosave.url.path)) is still there: recover or discard it first"
            )
        }
        let context = managedObjectContext
        guard context.changeGeneration != autosavedGeneration || !ownsSidecar else { return }
        let changes: UnsavedChanges
        do {
            changes = try context.unsavedChanges()
        } catch {
            throw Self.documentError(error, saving: sidecar)
        }
        if changes.isEmpty && !contentsNotInFile {
            if ownsSidecar { unlink(sidecar.path) }
            ownsSidecar = false
            autosavedGeneration = context.changeGeneration
            return
        }
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        let header = AutosaveJournal.Header(
            storeIdentifier: persistentStore?.identifier ?? "", modelDigest: coordinator.model.versionHashesDigest,
            document: fileURL?.path ?? "", written: Date(), pid: getpid(),
            host: String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
            file: fingerprint.map { ($0.size, $0.modified) })
        let data = AutosaveJournal.encode(changes, header: header)
        do {
            try FileManager.default.createDirectory(
                at: sidecar.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw DocumentError(.io, "\(sidecar.path): cannot make its folder: \(error.localizedDescription)")
        }
        do {
            try AtomicFileWriter.prepare(data, for: sidecar, permissions: 0o600).commit()
        } catch {
            throw DocumentError(.io, "cannot autosave: \(error.description)")
        }
        ownsSidecar = true
        autosavedGeneration = context.changeGeneration
        lastAutosave = header.written
    }

    /// Autosaves when ``autosaveInterval`` is set, the document has changes not yet autosaved, and the interval has
    /// passed since the last attempt. Call it from the app's run loop (the command-line session calls it while
    /// waiting for input). Returns whether it wrote.
    /// - Parameter now: the current time (given by tests).
    /// - Returns: whether an autosave was written.
    /// - Throws: as ``autosave()``.
    @discardableResult
    public func autosaveIfDue(now: Date = Date()) throws(DocumentError) -> Bool {
        guard let autosaveInterval, hasUnautosavedChanges || (ownsSidecar && !isEdited),
            now.timeIntervalSince(lastAutosaveAttempt) >= autosaveInterval
        else { return false }
        try autosave()
        return true
    }

    /// Where this document autosaves: `.<name>.docutil-autosave` beside its file, or a file in the user's state
    /// folder (`$XDG_STATE_HOME/docutil/autosave`) while untitled.
    public var autosaveURL: URL { sidecarURL() }

    func sidecarURL() -> URL {
        if let fileURL { return AutosaveJournal.sidecarURL(for: SafeReplacement.destination(for: fileURL)) }
        if let untitledSidecar { return untitledSidecar }
        let url = AutosaveJournal.untitledFolder().appendingPathComponent(
            "untitled-\(getpid())-\(UUID().uuidString.prefix(8))\(AutosaveJournal.suffix)")
        untitledSidecar = url
        return url
    }

    /// What recovering an autosave did.
    public struct Recovery: Sendable {
        /// How many objects were inserted, changed and deleted.
        public var inserted = 0
        /// How many objects it changed.
        public var updated = 0
        /// How many objects it deleted.
        public var deleted = 0
        /// Where the autosave and the file disagree (an object changed or gone on disk since the autosave).
        public var warnings: [String] = []
    }

    /// Lays the autosaved changes found beside the document over it, as unsaved changes (not undoable): the document
    /// is then edited, and the sidecar becomes this session's (a save, revert or clean close removes it). The file
    /// itself is not touched.
    /// - Returns: how many objects were inserted, updated and deleted, and warnings for changes that could not apply.
    /// - Throws: ``DocumentError`` `noInput` when there is no autosave, `badData` when it belongs to another store or
    ///   model, or cannot be read.
    @discardableResult
    public func recoverAutosave() throws(DocumentError) -> Recovery {
        let sidecar = sidecarURL()
        let data: Data
        do {
            data = try FileKind.readRegularFile(sidecar)
        } catch {
            throw error.code == .notFound
                ? DocumentError(.noInput, "there is no autosaved version of this document")
                : DocumentError(error)
        }
        let (changes, header) = try AutosaveJournal.decode(data, path: sidecar.path)
        // A new document has no store of its own yet: an autosave beside its path is a new document's of an earlier
        // session (every object inserted), laid over it as it is.
        if !isNew, let identifier = persistentStore?.identifier, header.storeIdentifier != identifier {
            throw DocumentError(
                .badData,
                "\(sidecar.path): the autosave belongs to store \(header.storeIdentifier), not this document's (\(identifier))"
            )
        }
        guard header.modelDigest == coordinator.model.versionHashesDigest else {
            throw DocumentError(.badData, "\(sidecar.path): the autosave was written with another model")
        }
        // Whether an object's version tells if it changed on disk since the autosave: a store that keeps versions;
        // otherwise (an XML file reads back every object at version 1) only whether the file did.
        let keepsVersions =
            persistentStore is any IncrementalStore || (persistentStore as? any AtomicStore)?.keepsVersions == true
        var fileUnchanged = false
        if let file = header.file, let url = storeFileURL,
            let now = try FileFingerprint.of(SafeReplacement.destination(for: url))
        {
            fileUnchanged =
                now.size == file.size && now.modified.tv_sec == file.modified.tv_sec
                && now.modified.tv_nsec == file.modified.tv_nsec
        }
        let recovery = try RecoveryApplier(
            context: managedObjectContext, sidecar: sidecar.path,
            changedOnDisk: keepsVersions ? .byVersion : fileUnchanged ? .unchanged : .fileChanged
        ).apply(changes)
        contentsNotInFile = true
        ownsSidecar = true
        inheritedSidecar = true
        foundAutosave = nil
        autosavedGeneration = managedObjectContext.changeGeneration
        return recovery
    }

    /// Removes the autosave beside the document (an earlier session's, or this one's).
    /// - Throws: ``DocumentError`` `io` when the sidecar cannot be removed.
    public func discardAutosave() throws(DocumentError) {
        let sidecar = sidecarURL()
        if unlink(sidecar.path) != 0 && errno != ENOENT {
            throw DocumentError(.io, "\(sidecar.path): cannot remove it: \(String(cString: strerror(errno)))")
        }
        foundAutosave = nil
        ownsSidecar = false
        inheritedSidecar = false
        autosavedGeneration = nil
    }

    // MARK: - Helpers

    /// Checks every rule a save checks.
    func validate() throws(DocumentError) {
        do {
            try managedObjectContext.validateForSave()
        } catch {
            throw Self.documentError(error, saving: fileURL)
        }
    }

    /// The type a save as or copy writes (`nil`: the one `url`'s extension names, else the document's) and its store
    /// type; a type that is only imported is refused.
    func target(_ url: URL, ofType type: DocumentType?) throws(DocumentError) -> (DocumentType, String) {
        let type = type ?? DocumentTypeRegistry.type(forExtensionOf: url) ?? fileType
        guard type.isWritable, let storeType = persistentStoreType(for: type) else {
            throw DocumentError(.cannotCreate, "documents of type \(type.name) can be imported but not saved")
        }
        return (type, storeType)
    }

    /// Whether `url` is the document's own file (links followed).
    func isOwnFile(_ url: URL) -> Bool {
        guard let current = fileURL else { return false }
        return SafeReplacement.destination(for: url).standardizedFileURL
            == SafeReplacement.destination(for: current).standardizedFileURL
    }

    /// The store and the unsaved changes, after checking every rule a save checks.
    func validatedChanges(saving url: URL) throws(DocumentError) -> (any PersistentStore, UnsavedChanges) {
        try validate()
        let changes: UnsavedChanges
        do {
            changes = try managedObjectContext.unsavedChanges()
        } catch {
            throw Self.documentError(error, saving: url)
        }
        guard let store = persistentStore else { throw DocumentError(.io, "the document has no store") }
        return (store, changes)
    }

    /// Writes the document's current state to `url` as a new store and moves the document there.
    func writeElsewhere(to url: URL, type: DocumentType, storeType: String, asPackage: Bool) throws(DocumentError) {
        let context = managedObjectContext
        let (store, changes) = try validatedChanges(saving: url)
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        let options = Self.storeOptions(type, storeType: storeType, inPackage: asPackage)
        do {
            if asPackage {
                try DocumentPackage.write(to: url, copying: isPackage && !isNew ? fileURL : nil) {
                    (storeURL) throws(DocumentError) in
                    mapping = try writeCopy(
                        of: store, changes, to: storeURL, type: type, storeType: storeType, inPackage: true)
                }
                try coordinator.swapPersistentStore(
                    store, forStoreAt: DocumentPackage.storeURL(in: url), type: storeType, options: options)
            } else {
                (_, mapping) = try coordinator.replacePersistentStore(
                    store, withCopyAt: url, type: storeType, options: options, applying: changes)
            }
        } catch let error as DocumentError {
            throw error
        } catch let error as StoreError {
            throw Self.documentError(ContextError.store(error), saving: url)
        } catch {
            throw DocumentError(.io, "\(url.path): \(error)")
        }
        context.adoptSavedChanges(mapping: mapping)
    }

    /// A new document's first save: its file must still not exist (unless forced).
    func writeNewFile(to url: URL, type: DocumentType, force: Bool) throws(DocumentError) {
        guard let storeType = persistentStoreType(for: type) else {
            throw DocumentError(.cannotCreate, "documents of type \(type.name) can be imported but not saved")
        }
        if !isPackage { try DocumentStack.checkOutput(url, force: force) }
        try writeElsewhere(to: url, type: type, storeType: storeType, asPackage: isPackage)
        isNew = false
        try rememberFile()
        didSave()
    }

    /// After a save: the document matches its file.
    func didSave() {
        if ownsSidecar { unlink(sidecarURL().path) }
        ownsSidecar = false
        inheritedSidecar = false
        contentsNotInFile = false
        changeCount = (0, 0, 0)
        savePointToken = managedObjectContext.undoManager?.stateToken ?? 0
        autosavedGeneration = managedObjectContext.changeGeneration
    }

    func addInMemoryStore() throws(DocumentError) {
        do {
            try coordinator.addPersistentStore(type: "InMemory")
        } catch {
            throw DocumentError(error)
        }
    }

    /// Records the file as it is now (after opening or saving): our own writes never look like someone else's.
    func rememberFile() throws(DocumentError) {
        guard let url = storeFileURL, !isNew else { return }
        fingerprint = try FileFingerprint.of(SafeReplacement.destination(for: url))
        if let sqlite = persistentStore as? SQLiteStore {
            do {
                dataVersion = try sqlite.externalChangeCounter()
            } catch {
                throw DocumentError(error)
            }
        } else {
            dataVersion = nil
        }
    }

    /// Refuses a save over a file that changed, was replaced or went away since it was read or saved.
    func checkUnchangedOnDisk(force: Bool) throws(DocumentError) {
        guard let url = storeFileURL, let fingerprint else { return }
        let destination = SafeReplacement.destination(for: url)
        let now = try FileFingerprint.of(destination)
        let isSQLite = persistentStore is SQLiteStore
        guard let now else {
            if force && !isSQLite { return }
            throw DocumentError(
                .conflict,
                "\(url.path) was deleted or moved since it was opened; save it as a file\(isSQLite ? "" : " (or save --force to write it here again)")"
            )
        }
        if let sqlite = persistentStore as? SQLiteStore {
            guard now.sameFile(as: fingerprint) else {
                // The open connection writes to the old file, which is no longer at this path.
                throw DocumentError(
                    .conflict, "\(url.path) was replaced by another file since it was opened; revert, or save as")
            }
            let version: Int64
            do {
                version = try sqlite.externalChangeCounter()
            } catch {
                throw DocumentError(error)
            }
            if version != dataVersion && !force {
                throw DocumentError(
                    .conflict,
                    "\(url.path) was changed by another program since it was opened; revert to read it again, or save --force to write over its changes"
                )
            }
            return
        }
        if now != fingerprint && !force {
            throw DocumentError(
                .conflict,
                "\(url.path) changed on disk since it was opened (now \(now)); revert to read it again, or save --force to write over it"
            )
        }
    }

    /// A library error as a document error: validation lists every failed rule.
    static func documentError(_ error: ContextError, saving url: URL?) -> DocumentError {
        switch error {
        case .validation(let failures):
            let lines = failures.map { "  - \($0)" }.joined(separator: "\n")
            return DocumentError(.badData, "the save was refused: \(failures.count) rule(s) failed:\n\(lines)")
        case .conflicts(let conflicts):
            return DocumentError(
                .conflict,
                "\(conflicts.count) object(s) changed in the file since they were read (\(conflicts.prefix(3).map { "\($0.objectID)" }.joined(separator: ", "))); revert, or save --force"
            )
        case .store(let store):
            let document = DocumentError(store)
            return DocumentError(document.code == .io && url != nil ? .io : document.code, store.description)
        default:
            return DocumentError(.badData, String(describing: error))
        }
    }
}
