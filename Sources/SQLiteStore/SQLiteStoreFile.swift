public import Foundation
public import ModelFiles
public import ObjectGraph

/// Reads what a Core Data SQLite store says about itself — its metadata and the model it was written with — without
/// modifying it or copying it (it is opened read-only in place; see `ReadOnlyOpening` for the one exception).
public struct SQLiteStoreFile: Sendable {
    /// The store's path.
    public var path: String
    /// `Z_METADATA.Z_PLIST`, decoded (store type, UUID, version hashes, …).
    public var metadata: [String: PropertyList]
    /// `Z_METADATA.Z_UUID`.
    public var uuid: String?
    /// The raw `Z_MODELCACHE` blob, when the store has one (Core Data writes it since about iOS 5).
    public var modelCache: Data?
    /// Row counts by entity name (rows whose `Z_ENT` is exactly that entity).
    public var entityCounts: [String: Int]
    /// The persistent-history transactions and changes the store holds (`nil` when it does not track history:
    /// no `ATRANSACTION` and `ACHANGE` tables).
    public var history: (transactions: Int, changes: Int)?

    /// Whether the file at `url` is a regular file that starts with the SQLite header (a FIFO or device is never
    /// opened, so this never blocks).
    /// - Parameter url: the file.
    /// - Returns: `true` for a SQLite database.
    public static func isSQLite(_ url: URL) -> Bool {
        FileKind.head(url, count: 16) == Data("SQLite format 3\0".utf8)
    }

    /// Reads the store at `url`.
    /// - Parameters:
    ///   - url: the store file.
    ///   - counting: whether to count the objects of each entity (one `COUNT` per table; SQLite answers it
    ///     from the smallest index or the table's leaf pages, never from large values stored on overflow pages).
    /// - Throws: ``SQLiteStoreError``: `notAStore` when the file is not SQLite or lacks Core Data's tables.
    public init(url: URL, counting: Bool = true) throws(SQLiteStoreError) {
        let path = url.path
        do {
            try FileKind.requireRegularFile(path)
        } catch {
            throw SQLiteStoreError(error.code == .notFound ? .notFound : .io, path: path, error.message)
        }
        let (database, scratch) = try ReadOnlyOpening.open(path)
        defer {
            database.close()
            if let scratch { ScratchFolders.remove(scratch) }
        }
        do throws(SQLiteStoreError) {
            guard try database.hasTable("Z_METADATA"), try database.hasTable("Z_PRIMARYKEY") else {
                throw SQLiteStoreError(
                    .notAStore, path: path,
                    "a SQLite database, but not a Core Data store (no Z_METADATA or Z_PRIMARYKEY table)")
            }
            let rows = try database.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA LIMIT 1")
            guard let row = rows.first else { throw SQLiteStoreError(.malformed, path: path, "Z_METADATA is empty") }
            if case .text(let u) = row[0] { uuid = u } else { uuid = nil }
            switch row.count > 1 ? row[1] : .null {
            case .blob(let plist) where !plist.isEmpty:
                do {
                    guard let dictionary = try PropertyList.read(plist).dictionary else {
                        throw SQLiteStoreError(.malformed, path: path, "Z_METADATA.Z_PLIST is not a dictionary")
                    }
                    metadata = dictionary
                } catch let error as SQLiteStoreError {
                    throw error
                } catch let error as ModelFileError {
                    throw SQLiteStoreError(.malformed, path: path, "Z_METADATA.Z_PLIST: \(error.description)")
                } catch {
                    throw SQLiteStoreError(.malformed, path: path, "Z_METADATA.Z_PLIST: \(error)")
                }
            case .null, .blob:
                metadata = [:]
            default:
                throw SQLiteStoreError(.malformed, path: path, "Z_METADATA.Z_PLIST is not a property list")
            }
            modelCache = nil
            if try database.hasTable("Z_MODELCACHE") {
                switch try database.query("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1").first?.first {
                case .blob(let blob)?: modelCache = blob
                case .null?, nil: break
                default: throw SQLiteStoreError(.malformed, path: path, "Z_MODELCACHE.Z_CONTENT is not a blob")
                }
            }
            entityCounts = counting ? try Self.countRows(database) : [:]
            if try database.hasTable("ATRANSACTION"), try database.hasTable("ACHANGE") {
                let transactions = try database.query("SELECT COUNT(*) FROM ATRANSACTION").first?.first
                let changes = try database.query("SELECT COUNT(*) FROM ACHANGE").first?.first
                if case .integer(let t)? = transactions, case .integer(let c)? = changes {
                    history = (Int(t), Int(c))
                }
            }
        } catch {
            throw SQLiteStoreError(error.code, path: path, error.message, resultCode: error.resultCode)
        }
        self.path = path
    }

    /// Counts rows per entity: each root entity's table `Z<ROOT>` grouped by `Z_ENT`.
    private static func countRows(_ database: SQLiteDatabase) throws(SQLiteStoreError) -> [String: Int] {
        var names: [Int64: String] = [:]
        var parents: [Int64: Int64] = [:]
        for row in try database.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
            guard case .integer(let ent) = row[0], case .text(let name) = row[1] else { continue }
            // Core Data registers its own bookkeeping entities (persistent history) at 16000 and above.
            guard ent < 16000 else { continue }
            names[ent] = name
            if case .integer(let parent) = row[2], parent != 0 { parents[ent] = parent }
        }
        var counts = names.values.reduce(into: [String: Int]()) { $0[$1] = 0 }
        // Roots: entities without a parent, and those whose parent is unknown (their rows live in their own table).
        let roots = Set(names.keys.filter { parents[$0].map { names[$0] == nil } ?? true })
        for root in roots {
            guard let name = names[root] else { continue }
            let table = "Z" + name.uppercased()
            guard try database.hasTable(table) else { continue }
            let quoted = SQLiteDatabase.quote(table)
            if !parents.values.contains(root) {
                // A hierarchy of one entity: SQLite counts from the smallest index, without reading rows.
                if case .integer(let count)? = try database.query("SELECT COUNT(*) FROM \(quoted)").first?.first {
                    counts[name] = Int(clamping: count)
                }
                continue
            }
            for row in try database.query("SELECT Z_ENT, COUNT(*) FROM \(quoted) GROUP BY Z_ENT") {
                if case .integer(let ent) = row[0], case .integer(let count) = row[1], let entity = names[ent] {
                    counts[entity] = Int(clamping: count)
                }
            }
        }
        return counts
    }

    /// The model stored in `Z_MODELCACHE`.
    /// - Returns: the model, with the version hashes the cache records.
    /// - Throws: `ModelFileError` when the store has no model cache or it cannot be decoded.
    public func storedModel() throws(ModelFileError) -> LoadedModel {
        guard let modelCache else {
            throw ModelFileError(
                .unsupported, path: path,
                "the store carries no model (no Z_MODELCACHE table: written before iOS 5 / macOS 10.7); give the model with --model"
            )
        }
        return try ModelLoader.loadModelCache(modelCache, source: path)
    }

    /// `NSStoreModelVersionHashes` from the metadata: entity name → 32-byte hash.
    public var recordedVersionHashes: [String: Data] {
        metadata["NSStoreModelVersionHashes"]?.dictionary?.compactMapValues(\.data) ?? [:]
    }
}
