import CSQLite
public import Foundation
import ModelFiles
public import ObjectGraph

/// Core Data's SQLite store (`NSSQLiteStoreType`) on libsqlite3, with Apple's schema: stores from iOS and macOS
/// apps open here, and ours are laid out the way Apple lays them out. An incremental store: fetches run as SQL
/// (the rest in memory on the narrowed rows), objects arrive as faults, to-many relationships fault separately,
/// and each save is one transaction with `Z_OPT` optimistic locking.
///
/// A store opened read-only is opened with SQLite's read-only modes, so nothing is ever created or changed next to
/// the original (see `ReadOnlyOpening`).
///
/// `@unchecked Sendable`: the connection and caches are only used under the coordinator's lock.
public final class SQLiteStore: IncrementalStore, FlushingStore, WholeStoreCopying, @unchecked Sendable {
    /// The store type name, as Core Data spells it.
    public static let typeName = "SQLite"
    /// The option (value `"YES"`) for a new file that is filled once and thrown away if filling fails (an import
    /// into a temporary file): until the store is closed, SQLite keeps its rollback journal in memory and does not
    /// wait for the disk at each commit; closing restores the journal mode and flushes the file to disk.
    public static let bulkLoadOption = "bulkLoad"
    /// The option (`"YES"` or `"NO"`) for a store opened read-only: whether a WAL store's `-shm` index is mapped
    /// read-only, so that reading never writes to it, and a `-wal` without its `-shm` is read in place with its index
    /// in memory instead of from a private copy (by default, ``readsMapWALIndexReadOnly``). While such a store
    /// is open, a store opened in the same process to write the same file cannot write (SQLite gives a process one
    /// index per file, read-only when its first connection mapped it so): `docutil`'s commands each open a file
    /// either to read or to write; an app that opens a file both ways at once leaves this off.
    public static let walIndexReadOnlyOption = "walIndexReadOnly"

    /// The process's default for ``walIndexReadOnlyOption``, also for ``SQLiteStoreFile`` (off; `docutil` turns it
    /// on).
    public static var readsMapWALIndexReadOnly: Bool {
        get { ReadOnlyOpening.indexReadOnlyByDefault.load(ordering: .relaxed) }
        set { ReadOnlyOpening.indexReadOnlyByDefault.store(newValue, ordering: .relaxed) }
    }
    /// Our metadata key for the embedded model (Xcode `contents` XML).
    public static let modelMetadataKey = StoreMetadata.modelKey

    /// How the store was opened: its type, file and options.
    public let description: StoreDescription
    /// The store's UUID, which appears in the URIs of its objects.
    public let identifier: String
    /// The store's metadata: type, UUID, model version hashes and any keys an app adds; written with the next save.
    public var metadata: [String: PropertyList] = [:]
    let database: SQLiteDatabase
    let workingDirectory: URL?
    /// The folder of externally stored binary data: the `externalDataDirectory` option, else the one beside the file
    /// (worked out when first needed: its URL arithmetic was a tenth of opening a store, and most stores have none).
    var externalDataDirectory: URL? {
        if let known = externalDataDirectoryFound { return known }
        let found =
            description.options["externalDataDirectory"].map { URL(fileURLWithPath: $0) }
            ?? description.url.map(Self.externalDataDirectory(for:))
        externalDataDirectoryFound = found
        return found
    }
    private var externalDataDirectoryFound: URL?? = nil
    // Read for every row (set when the store loads or migrates, never while a read is going): no access records.
    @exclusivity(unchecked) var schema: SQLiteSchema!
    @exclusivity(unchecked) var model: ManagedObjectModel!
    /// The statements that write each to-many relationship, by entity and relationship name.
    @exclusivity(unchecked) var toManySQLCache: [String: ToManySQL] = [:]
    /// The statement each key-ordered read of whole rows uses (see ``keyOrdered(_:byKey:)``), by the first text.
    var keyOrderedReads: [String: String] = [:]
    /// The last `UPDATE` made (see ``LastUpdate``): a save's updates of one entity usually write the same columns,
    /// so its text and prepared statement are made once, not per row.
    @exclusivity(unchecked) var lastUpdateSQL: LastUpdate?
    /// The last `DELETE` made (see ``LastDelete``).
    @exclusivity(unchecked) var lastDeleteSQL: LastDelete?
    /// What batched reads of links into each table have learnt since the database last changed (see
    /// ``LinkReads``).
    var linkReads: [String: LinkReads] = [:]
    /// Whether the store is a new file being bulk loaded (see ``bulkLoadOption``).
    @exclusivity(unchecked) var isBulkLoading = false
    /// The INSERT statement of each entity (made once per entity).
    var insertSQL: [String: String] = [:]
    /// Where each column of an entity's rows comes from, worked out once per entity (``columnPlan(for:)``).
    var columnPlans: [String: [ColumnSource]] = [:]
    /// Where each property of an entity is in its column plan (made once per entity, for updates).
    var planIndexes: [String: PlanIndex] = [:]
    /// Entities of the model that have no `Z_PRIMARYKEY` row yet (added to the model after the store was made),
    /// with the number and parent number given them: the row is added by the first save that inserts one, as Core
    /// Data does.
    var pendingPrimaryKeyRows: [String: (number: Int64, superNumber: Int64)] = [:]
    /// Rows the store's own triggers (Apple's derived attributes) changed during the save being prepared.
    let triggerEffects = TriggerEffects()
    /// The persistent-history tables, when the store tracks history.
    @exclusivity(unchecked) var historyTables: HistoryTables?
    /// Derived attributes the store's triggers keep (`Entity.attribute`): saves never write them. (Read for every
    /// row a save writes, so unchecked for exclusivity, as the other per-row state above.)
    @exclusivity(unchecked) var triggerMaintained: Set<String> = []
    private var isNew: Bool
    /// The file's tables, triggers and columns as the store found them when it opened, for `load(model:)` (which then
    /// lets them go): read once, not a statement per table.
    private var openingCatalog: SQLiteCatalog?
    /// Why the stored metadata could not be read: reading goes on (with no metadata), but a save refuses rather
    /// than replace the app's metadata keys with ours.
    public private(set) var metadataProblem: String?
    /// Whether stored values that do not fit their attributes are kept raw (and reported) instead of failing.
    let lenientValues: Bool
    /// Values kept raw by a lenient read: where and why (at most 1,000 are listed).
    @exclusivity(unchecked) public internal(set) var valueWarnings: [String] = []
    /// The same values as ``valueWarnings``, as problems of kind `StoreProblem.Kind.value` (for checking).
    @exclusivity(unchecked) public internal(set) var valueProblems: [StoreProblem] = []

    /// Registers the `"SQLite"` store type.
    public static func register() {
        StoreType.register(
            StoreType(
                name: typeName, fileExtensions: ["sqlite", "sqlite3", "db"],
                make: { description throws(StoreError) in try SQLiteStore(description: description) },
                readMetadata: { url throws(StoreError) in
                    do throws(SQLiteStoreError) {
                        return try SQLiteStoreFile(url: url, counting: false).metadata
                    } catch {
                        throw StoreError(error.code == .notFound ? .notFound : .corrupt, path: url.path, error.message)
                    }
                },
                recognizes: { url in SQLiteStoreFile.isSQLite(url) }))
    }

    /// Opens (or, when writable and missing, creates) the store file. Nothing is read beyond the metadata until
    /// the coordinator loads the store.
    ///
    /// A read-only store is opened with SQLite's read-only URI mode, so the file and its folder are left exactly as
    /// they are (see `ReadOnlyOpening` for the one case that needs a private copy). The option `lenientValues` =
    /// `YES` keeps stored values that do not fit their attributes raw (reported in ``valueWarnings``) instead of
    /// failing the read.
    ///
    /// Other options: `journalMode` (`WAL`, the default for a new store as in Core Data, or `DELETE`, `TRUNCATE`,
    /// `PERSIST`) is set when the store is created — and on an existing store opened to write, where it differs —
    /// and `externalDataDirectory`, the folder of externally stored binary data when it is not the usual
    /// `.<name>_SUPPORT/_EXTERNAL_DATA` beside the file (a copy being written under a temporary name).
    /// - Parameter description: the file and options (`readOnly`, `lenientValues`, `journalMode`,
    ///   `externalDataDirectory`, `persistentHistoryTracking`).
    /// - Throws: `StoreError` when the file is not a SQLite database, is read-only and missing, or cannot be opened.
    public init(description: StoreDescription) throws(StoreError) {
        guard let url = description.url else { throw StoreError(.unsupported, "a SQLite store needs a file URL") }
        self.description = description
        lenientValues = description.options["lenientValues"] == "YES"
        let kind: FileKind
        do {
            kind = try FileKind(path: url.path)
        } catch {
            throw StoreError(.io, path: url.path, error.message)
        }
        let exists = kind != .missing
        if exists && kind != .regularFile {
            throw StoreError(
                .unsupported, path: url.path, "is \(kind.article), not a SQLite store file; it is not read")
        }
        if let mode = description.options["journalMode"], !Self.journalModes.contains(mode.uppercased()) {
            throw StoreError(
                .unsupported, path: url.path,
                "journal mode '\(mode)' is not one of \(Self.journalModes.sorted().joined(separator: ", "))")
        }
        if description.isReadOnly {
            guard exists else { throw StoreError(.notFound, path: url.path, "no such file") }
            do {
                (database, workingDirectory) = try ReadOnlyOpening.open(
                    url.path, indexReadOnly: description.options[Self.walIndexReadOnlyOption].map { $0 == "YES" })
            } catch {
                throw StoreError(
                    error.code == .notFound ? .notFound : error.code == .io ? .io : .corrupt, path: url.path,
                    error.message)
            }
        } else {
            workingDirectory = nil
            do {
                database = try SQLiteDatabase(path: url.path, readOnly: false, create: !exists)
            } catch {
                throw StoreError(.io, path: url.path, error.description)
            }
        }
        isNew = !exists
        if exists, !description.isReadOnly, let mode = description.options["journalMode"]?.uppercased() {
            do {
                if case .text(let current)? = try database.query("PRAGMA journal_mode").first?.first,
                    current.uppercased() != mode
                {
                    _ = try database.query("PRAGMA journal_mode = \(mode)")
                }
            } catch {
                throw StoreError(.io, path: url.path, "cannot set the journal mode: \(error.message)")
            }
        }
        if exists {
            do {
                // What the file holds, read once: `load(model:)` checks the tables and columns against the model.
                let catalog = try database.catalog()
                openingCatalog = catalog
                guard catalog.hasTable("Z_METADATA"), catalog.hasTable("Z_PRIMARYKEY") else {
                    throw StoreError(
                        .corrupt, path: url.path,
                        "a SQLite database, but not a Core Data store (no Z_METADATA or Z_PRIMARYKEY)")
                }
                let rows = try database.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA LIMIT 1")
                guard let row = rows.first, case .text(let uuid) = row[0], !uuid.isEmpty else {
                    throw StoreError(.corrupt, path: url.path, "Z_METADATA has no store UUID")
                }
                identifier = uuid
                switch row.count > 1 ? row[1] : .null {
                case .blob(let plist) where !plist.isEmpty:
                    do throws(ModelFileError) {
                        guard let dictionary = try PropertyList.read(plist).dictionary else {
                            throw ModelFileError(.malformed, "the metadata is not a dictionary")
                        }
                        metadata = dictionary
                    } catch {
                        metadataProblem = "Z_METADATA.Z_PLIST cannot be read (\(error.message))"
                    }
                case .null, .blob:
                    break
                default:
                    metadataProblem = "Z_METADATA.Z_PLIST is not a property list"
                }
            } catch let error as StoreError {
                throw error
            } catch let error as SQLiteStoreError {
                throw StoreError(error.code == .notAStore ? .corrupt : .io, path: url.path, error.message)
            } catch {
                throw StoreError(.io, path: url.path, "\(error)")
            }
        } else {
            identifier = description.options["storeIdentifier"] ?? UUID().uuidString
        }
        SQLiteFunctions.register(on: database.handle, triggerEffects: triggerEffects)
    }

    deinit {
        database.close()
        if let workingDirectory { ScratchFolders.remove(workingDirectory) }
    }

    /// The journal modes a store may be given (`journalMode` option).
    static let journalModes: Set<String> = ["WAL", "DELETE", "TRUNCATE", "PERSIST"]

    /// Where a store at `url` keeps externally stored binary data: `.<name>_SUPPORT/_EXTERNAL_DATA` beside it.
    /// - Parameter url: the store file.
    /// - Returns: the folder.
    public static func externalDataDirectory(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")
    }

    /// A number that changes when another connection (another process) commits a change to the file, and only then:
    /// SQLite's `data_version`. Checkpoints and this store's own saves leave it alone, so a document compares two
    /// readings to tell whether someone else changed it.
    /// - Returns: the counter's current value.
    /// - Throws: `StoreError` when the database cannot be asked.
    public func externalChangeCounter() throws(StoreError) -> Int64 {
        try reporting { () throws -> Int64 in
            guard case .integer(let version)? = try database.query("PRAGMA data_version").first?.first else {
                throw StoreError(.io, path: description.url?.path, "cannot read the data version")
            }
            return version
        }
    }

    /// Runs `body`, turning any failure into a `StoreError` naming the file.
    func reporting<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteStoreError {
            throw storeError(error)
        } catch {
            throw StoreError(.io, path: description.url?.path, "\(error)")
        }
    }

    /// Folds the write-ahead log into the file and closes it, reporting a failure (``checkpointAndClose()``).
    /// - Throws: `StoreError` when the checkpoint fails; the log then still holds the last changes.
    public func flushAndClose() throws(StoreError) {
        try checkpointAndClose()
    }

    /// Copies the whole database with `VACUUM INTO` — one consistent, complete file whatever the write-ahead log
    /// holds, with every table, index and metadata key — in the same journal mode, and copies the externally stored
    /// data files to the folder a store at `destination` reads them from (files already there are kept: they are
    /// named by their contents' UUIDs).
    /// - Parameters:
    ///   - temporary: the file to write the copy to.
    ///   - destination: where the copy will be renamed to (its external-data folder is filled).
    /// - Returns: external-data file names → the files copied, for the caller to remove if the copy is abandoned.
    /// - Throws: `StoreError` when the copy cannot be written.
    public func copyWhole(to temporary: URL, destination: URL) throws(StoreError) -> [String: String] {
        let mode = try reporting { () throws -> String in
            guard case .text(let current)? = try database.query("PRAGMA journal_mode").first?.first else {
                throw StoreError(.io, path: description.url?.path, "cannot read the journal mode")
            }
            try database.run("VACUUM INTO ?", [.text(temporary.path)])
            return current.uppercased()
        }
        let target = Self.externalDataDirectory(for: destination)
        if let source = externalDataDirectory, source.standardizedFileURL != target.standardizedFileURL,
            FileManager.default.fileExists(atPath: source.path)
        {
            try Self.copyExternalData(from: source, to: target)
        }
        var options = ["externalDataDirectory": target.path]
        if Self.journalModes.contains(mode) { options["journalMode"] = mode }
        return options
    }

    /// Copies every externally stored data file from one folder to another (made if missing), leaving files already
    /// there alone; each file is written under a temporary name and renamed, so a file is never half there.
    static func copyExternalData(from source: URL, to target: URL) throws(StoreError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: source.path)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .io, path: target.path, "cannot copy the externally stored data: \(error.localizedDescription)")
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let to = target.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: to.path) { continue }
            let data: Data
            do {
                data = try FileKind.readRegularFile(source.appendingPathComponent(name))
            } catch {
                throw StoreError(.io, path: source.appendingPathComponent(name).path, error.message)
            }
            let transaction = try AtomicFileWriter.prepare(data, for: to)
            try transaction.commit()
        }
    }

    /// Checkpoints the write-ahead log into the main file (so the file is complete on its own), finalizes every
    /// statement and closes the connection; the store can no longer be used. A read-only store's private copy, if
    /// it needed one, is removed.
    public func close() {
        if !description.isReadOnly { try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        database.close()
        if let workingDirectory { ScratchFolders.remove(workingDirectory) }
    }

    /// Like ``close()``, reporting a checkpoint that fails (a full disk, say): the log then still holds the last
    /// changes, and the file must not be moved or copied without it.
    /// - Throws: `StoreError` when the checkpoint fails.
    public func checkpointAndClose() throws(StoreError) {
        defer { close() }
        guard !description.isReadOnly else { return }
        if isBulkLoading {
            isBulkLoading = false
            try finishBulkLoad()
            return
        }
        try reporting {
            let rows = try database.query("PRAGMA wal_checkpoint(TRUNCATE)")
            // (busy, log frames, checkpointed frames): busy must be 0.
            if case .integer(let busy)? = rows.first?.first, busy != 0 {
                throw StoreError(
                    .io, path: description.url?.path, "the write-ahead log could not be checkpointed (busy)")
            }
        }
    }

    /// Ends a bulk load: the journal mode the store was made with is set again (written into the file for WAL) and
    /// the file is flushed to disk.
    private func finishBulkLoad() throws(StoreError) {
        let mode = description.options["journalMode"]?.uppercased() ?? "WAL"
        try reporting {
            try database.execute("PRAGMA synchronous = FULL")
            _ = try database.query("PRAGMA journal_mode = \(Self.journalModes.contains(mode) ? mode : "WAL")")
            _ = try database.query("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        guard let path = description.url?.path else { return }
        let file = open(path, O_RDWR | O_CLOEXEC)
        guard file >= 0, fsync(file) == 0 else {
            let reason = String(cString: strerror(errno))
            if file >= 0 { Foundation.close(file) }
            throw StoreError(.io, path: path, "cannot flush the file to disk: \(reason)")
        }
        Foundation.close(file)
    }

    func storeError(_ error: SQLiteStoreError) -> StoreError {
        StoreError(error.storeErrorCode, path: description.url?.path, error.message)
    }

    // MARK: - Opening

    /// Opens the database, checks the schema against the model, and reads the metadata.
    /// - Parameter model: The model the objects are read with.
    /// - Throws: `StoreError` when the file is not a Core Data SQLite store or its schema does not match the model.
    public func load(model: ManagedObjectModel) throws(StoreError) {
        self.model = model
        try reporting {
            let catalog = openingCatalog
            openingCatalog = nil
            if isNew {
                schema = try SQLiteSchema.of(model, numbers: nil)
                insertSQL = [:]
                columnPlans = [:]
                planIndexes = [:]
                toManySQLCache = [:]
                lastUpdateSQL = nil
                lastDeleteSQL = nil
                try createSchema()
                triggerMaintained = Set(schema.countTriggers.map { "\($0.entity).\($0.attribute)" })
                isNew = false
                if description.options[Self.bulkLoadOption]?.uppercased() == "YES" {
                    isBulkLoading = true
                    _ = try database.query("PRAGMA journal_mode = MEMORY")
                    try database.execute("PRAGMA synchronous = OFF")
                }
            } else {
                var catalog = try catalog ?? database.catalog()
                var numbers: [String: Int64] = [:]
                var rowNames: [String: Int64] = [:]
                for row in try database.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
                    if case .integer(let ent) = row[0], case .text(let name) = row[1] {
                        numbers[name] = ent
                        rowNames[name] = ent
                    }
                }
                var seen: [Int64: String] = [:]
                for (name, number) in numbers where model.entity(named: name) != nil {
                    if let other = seen.updateValue(name, forKey: number) {
                        throw StoreError(
                            .corrupt, path: description.url?.path,
                            "Z_PRIMARYKEY gives entities \(other) and \(name) the same number \(number)")
                    }
                }
                pendingPrimaryKeyRows = [:]
                numbers = try numbersForMissingEntities(numbers, rowNames: rowNames, claimed: seen)
                schema = try SQLiteSchema.of(model, numbers: numbers)
                insertSQL = [:]
                columnPlans = [:]
                planIndexes = [:]
                toManySQLCache = [:]
                lastUpdateSQL = nil
                lastDeleteSQL = nil
                try schema.reconcile(with: &catalog)
                for table in Set(schema.tables.keys) where !catalog.hasTable(table) {
                    throw StoreError(.incompatibleModel, path: description.url?.path, "the store has no table \(table)")
                }
                try checkColumns(&catalog)
                historyTables = try findHistoryTables(catalog)
                // Any of Apple's derived-attribute triggers (`Z_DA_<table>_<Entity>_<attribute>_…`), counting or
                // not: the value is the triggers' to keep.
                let derivedTriggers = catalog.triggers.filter { $0.hasPrefix("Z_DA_") }
                triggerMaintained = []
                for entity in model.entities {
                    for attribute in entity.attributes
                    where attribute.isDerived
                        && derivedTriggers.contains(where: { $0.contains("_\(entity.name)_\(attribute.name)_") })
                    {
                        triggerMaintained.insert("\(entity.name).\(attribute.name)")
                    }
                }
            }
        }
    }

    /// Numbers for the model's entities that `Z_PRIMARYKEY` does not name. An entity whose renaming identifier is
    /// the name of a row no entity of the model claims is that row's entity, renamed by a migration (Core Data keeps
    /// the row's old name). Any other is new: it gets the next free number (in the model's order), and its row is
    /// added when an object of it is first saved.
    private func numbersForMissingEntities(
        _ found: [String: Int64], rowNames: [String: Int64], claimed: [Int64: String]
    ) throws(StoreError) -> [String: Int64] {
        var numbers = found
        var claimed = claimed
        let order = SQLiteSchema.preOrder(model)
        // Apple numbers its own bookkeeping entities (persistent history) from 16001: model entities stay below.
        var next = (rowNames.values.filter { $0 < 16_000 }.max() ?? 0) + 1
        var added: [String] = []
        for name in order where numbers[name] == nil {
            if let old = model.entity(named: name)?.renamingIdentifier, model.entity(named: old) == nil,
                let number = rowNames[old], claimed[number] == nil
            {
                numbers[name] = number
                claimed[number] = name
                continue
            }
            numbers[name] = next
            claimed[next] = name
            added.append(name)
            next += 1
        }
        for name in added {
            let parent = model.entity(named: name)?.parentName
            pendingPrimaryKeyRows[name] = (numbers[name] ?? 0, parent.flatMap { numbers[$0] } ?? 0)
        }
        return numbers
    }

    /// Adds the `Z_PRIMARYKEY` rows of `entityName` and its ancestors that the store lacks, inside the caller's
    /// transaction.
    func addPendingPrimaryKeyRows(for entityName: String) throws(SQLiteStoreError) {
        var name: String? = entityName
        while let current = name {
            if let row = pendingPrimaryKeyRows[current] {
                try database.run(
                    "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                    [.integer(row.number), .text(current), .integer(row.superNumber)])
            }
            name = model.entity(named: current)?.parentName
        }
    }

    private func createSchema() throws(SQLiteStoreError) {
        try database.execute("PRAGMA auto_vacuum = 2")
        let mode = description.options["journalMode"]?.uppercased() ?? "WAL"
        _ = try database.query("PRAGMA journal_mode = \(Self.journalModes.contains(mode) ? mode : "WAL")")
        try database.execute("BEGIN IMMEDIATE")
        do {
            try database.execute(
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
            try database.execute(
                "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            for statement in schema.createStatements { try database.execute(statement) }
            for entity in schema.entities.values.sorted(by: { $0.number < $1.number }) {
                try database.run(
                    "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                    [.integer(entity.number), .text(entity.name), .integer(entity.superNumber)])
            }
            if description.options["persistentHistoryTracking"] == "YES" {
                try HistoryTables.create(in: database)
                historyTables = HistoryTables.standard
            }
            try writeMetadata()
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Checks that every table has the columns the model needs, so that a store that does not match is refused
    /// when it is opened (exit 65), rather than reading nil for what it lacks.
    private func checkColumns(_ catalog: inout SQLiteCatalog) throws(StoreError) {
        try reporting {
            for (name, table) in schema.tables {
                let existing = try catalog.columns(of: name)
                for required in ["Z_PK", "Z_ENT"] where !existing.contains(required) {
                    throw StoreError(.corrupt, path: description.url?.path, "table \(name) has no \(required) column")
                }
                _ = table
            }
            for entity in model.entities {
                let table = schema.rawTable(of: entity.name)
                let existing = try catalog.columns(of: table)
                for (attribute, column) in schema.attributeColumns[entity.name] ?? [:] {
                    let needed = column.members.isEmpty ? [column.column] : column.members.map(\.column)
                    for name in needed where !existing.contains(name) {
                        throw StoreError(
                            .incompatibleModel, path: description.url?.path,
                            "the store has no column \(name) for \(entity.name).\(attribute) (table \(table)): the model does not match the store"
                        )
                    }
                }
                for (relationship, column) in schema.toOneColumns[entity.name] ?? [:]
                where !existing.contains(column.column) {
                    throw StoreError(
                        .incompatibleModel, path: description.url?.path,
                        "the store has no column \(column.column) for \(entity.name).\(relationship) (table \(table)): the model does not match the store"
                    )
                }
            }
        }
    }

    func writeMetadata() throws(SQLiteStoreError) {
        if let metadataProblem {
            throw SQLiteStoreError(
                .malformed, path: description.url?.path ?? "",
                "\(metadataProblem); not saving, so that the app's metadata is not replaced")
        }
        var stored = StoreMetadata.standard(for: model, type: Self.typeName, uuid: identifier, previous: metadata)
        stored["_NSAutoVacuumLevel"] = .string("2")
        do {
            stored[Self.modelMetadataKey] = .string(try XcodeModelWriter.contents(of: model))
        } catch {
            throw SQLiteStoreError(
                .unsupported, path: description.url?.path ?? "",
                "the model cannot be written into the store's metadata: \(error.message); not saving")
        }
        metadata = stored
        let plist = BinaryPropertyListWriter.data(.dictionary(stored))
        try database.run(
            "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            [.text(identifier), .blob(plist)])
    }
}
