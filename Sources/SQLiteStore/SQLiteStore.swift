import CSQLite
public import Foundation
import ModelFiles
public import ObjectGraph

/// Core Data's SQLite store (`NSSQLiteStoreType`) on libsqlite3, with Apple's schema: stores from iOS and macOS
/// apps open here, and ours are laid out the way Apple lays them out. An incremental store: fetches run as SQL
/// (the rest in memory on the narrowed rows), objects arrive as faults, to-many relationships fault separately,
/// and each save is one transaction with `Z_OPT` optimistic locking.
///
/// A store opened read-only is read from a private copy (with its `-wal` file), so nothing is ever created or
/// changed next to the original.
///
/// `@unchecked Sendable`: the connection and caches are only used under the coordinator's lock.
public final class SQLiteStore: IncrementalStore, @unchecked Sendable {
    public static let typeName = "SQLite"
    /// Our metadata key for the embedded model (Xcode `contents` XML).
    public static let modelMetadataKey = StoreMetadata.modelKey

    public let description: StoreDescription
    public let identifier: String
    public var metadata: [String: MetadataValue] = [:]
    let database: SQLiteDatabase
    let workingDirectory: URL?
    let externalDataDirectory: URL?
    var schema: SQLiteSchema!
    var model: ManagedObjectModel!
    private var isNew: Bool

    /// Registers the `"SQLite"` store type.
    public static func register() {
        StoreType.register(
            StoreType(
                name: typeName, fileExtensions: ["sqlite", "sqlite3", "db"],
                make: { description throws(StoreError) in try SQLiteStore(description: description) },
                readMetadata: { url throws(StoreError) in
                    do throws(SQLiteStoreError) {
                        return try SQLiteStoreFile(url: url).metadata.compactMapValues(\.metadataValue)
                    } catch {
                        throw StoreError(error.code == .notFound ? .notFound : .corrupt, path: url.path, error.message)
                    }
                },
                recognizes: { url in SQLiteStoreFile.isSQLite(url) }))
    }

    public init(description: StoreDescription) throws(StoreError) {
        guard let url = description.url else { throw StoreError(.unsupported, "a SQLite store needs a file URL") }
        self.description = description
        let exists = FileManager.default.fileExists(atPath: url.path)
        var path = url.path
        var working: URL?
        if description.isReadOnly {
            guard exists else { throw StoreError(.notFound, path: url.path, "no such file") }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "docutil-\(UUID().uuidString)")
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let copy = directory.appendingPathComponent("store.sqlite")
                try FileManager.default.copyItem(at: url, to: copy)
                if FileManager.default.fileExists(atPath: url.path + "-wal") {
                    try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: copy.path + "-wal")
                }
                path = copy.path
                working = directory
            } catch {
                throw StoreError(.io, path: url.path, "cannot copy the store to read it: \(error.localizedDescription)")
            }
        }
        workingDirectory = working
        let name = url.deletingPathExtension().lastPathComponent
        externalDataDirectory = url.deletingLastPathComponent().appendingPathComponent(
            ".\(name)_SUPPORT/_EXTERNAL_DATA")
        do {
            database = try SQLiteDatabase(path: path, readOnly: false, create: !exists)
        } catch {
            throw StoreError(.io, path: url.path, error.description)
        }
        isNew = !exists
        if exists {
            do {
                guard try database.hasTable("Z_METADATA"), try database.hasTable("Z_PRIMARYKEY") else {
                    throw StoreError(
                        .corrupt, path: url.path,
                        "a SQLite database, but not a Core Data store (no Z_METADATA or Z_PRIMARYKEY)")
                }
                let rows = try database.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA LIMIT 1")
                guard let row = rows.first, case .text(let uuid) = row[0] else {
                    throw StoreError(.corrupt, path: url.path, "Z_METADATA has no store UUID")
                }
                identifier = uuid
                if case .blob(let plist) = row[1], let dictionary = try? PropertyList.read(plist).dictionary {
                    metadata = dictionary.compactMapValues(\.metadataValue)
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
        SQLiteFunctions.register(on: database.handle)
    }

    deinit {
        if let workingDirectory { try? FileManager.default.removeItem(at: workingDirectory) }
    }

    func storeError(_ error: SQLiteStoreError) -> StoreError {
        StoreError(error.code == .notAStore ? .corrupt : .io, path: description.url?.path, error.message)
    }

    // MARK: - Opening

    public func load(model: ManagedObjectModel) throws(StoreError) {
        self.model = model
        do {
            if isNew {
                schema = SQLiteSchema(model: model)
                try createSchema()
                isNew = false
            } else {
                var numbers: [String: Int64] = [:]
                for row in try database.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
                    if case .integer(let ent) = row[0], case .text(let name) = row[1] { numbers[name] = ent }
                }
                let missing = model.entities.map(\.name).filter { numbers[$0] == nil }
                if !missing.isEmpty {
                    throw StoreError(
                        .incompatibleModel, path: description.url?.path,
                        "the store has no entities \(missing.joined(separator: ", ")) of the model (Z_PRIMARYKEY)")
                }
                schema = SQLiteSchema(model: model, numbers: numbers)
                try schema.reconcile(with: database)
                for table in Set(schema.tables.keys) where !(try database.hasTable(table)) {
                    throw StoreError(.incompatibleModel, path: description.url?.path, "the store has no table \(table)")
                }
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteStoreError {
            throw storeError(error)
        } catch {
            throw StoreError(.io, path: description.url?.path, "\(error)")
        }
    }

    private func createSchema() throws(SQLiteStoreError) {
        try database.execute("PRAGMA auto_vacuum = 2")
        _ = try database.query("PRAGMA journal_mode = WAL")
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
            try writeMetadata()
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    func writeMetadata() throws(SQLiteStoreError) {
        var stored = StoreMetadata.standard(for: model, type: Self.typeName, uuid: identifier, previous: metadata)
        stored["_NSAutoVacuumLevel"] = .string("2")
        stored[Self.modelMetadataKey] = .string(XcodeModelWriter.contents(of: model))
        metadata = stored
        let plist = BinaryPropertyListWriter.data(PropertyList(.dictionary(stored)))
        try database.run(
            "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            [.text(identifier), .blob(plist)])
    }
}
