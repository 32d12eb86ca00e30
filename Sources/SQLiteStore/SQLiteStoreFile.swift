public import Foundation
public import ModelFiles
import ObjectGraph

/// Reads what a Core Data SQLite store says about itself — its metadata and the model it was written with — without
/// modifying it.
///
/// The store (with its `-wal` file, if any) is copied to a private temporary directory and read there, so neither the
/// file nor its directory changes, even for a WAL-mode store that SQLite would otherwise give side files.
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

    /// Whether the file at `url` starts with the SQLite header.
    public static func isSQLite(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }

    /// Reads the store at `url`.
    /// - Throws: ``SQLiteStoreError``: `notAStore` when the file is not SQLite or lacks Core Data's tables.
    public init(url: URL) throws(SQLiteStoreError) {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SQLiteStoreError(.notFound, path: path, "no such file")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("docutil-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let copy = scratch.appendingPathComponent("store.sqlite")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: url, to: copy)
            let wal = URL(fileURLWithPath: path + "-wal")
            if FileManager.default.fileExists(atPath: wal.path) {
                try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: copy.path + "-wal"))
            }
        } catch {
            throw SQLiteStoreError(.io, path: path, "cannot copy the store to read it: \(error.localizedDescription)")
        }
        let database = try SQLiteDatabase(path: copy.path, readOnly: false)
        do throws(SQLiteStoreError) {
            guard try database.hasTable("Z_METADATA"), try database.hasTable("Z_PRIMARYKEY") else {
                throw SQLiteStoreError(
                    .notAStore, path: path,
                    "a SQLite database, but not a Core Data store (no Z_METADATA or Z_PRIMARYKEY table)")
            }
            let rows = try database.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA")
            guard let row = rows.first else { throw SQLiteStoreError(.malformed, path: path, "Z_METADATA is empty") }
            if case .text(let u) = row[0] { uuid = u } else { uuid = nil }
            if case .blob(let plist) = row[1], !plist.isEmpty {
                do {
                    metadata = try PropertyList.read(plist).dictionary ?? [:]
                } catch {
                    throw SQLiteStoreError(.malformed, path: path, "Z_METADATA.Z_PLIST: \(error.description)")
                }
            } else {
                metadata = [:]
            }
            modelCache = nil
            if try database.hasTable("Z_MODELCACHE"),
                case .blob(let blob)? = try database.query("SELECT Z_CONTENT FROM Z_MODELCACHE").first?.first
            {
                modelCache = blob
            }
            entityCounts = try Self.countRows(database)
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
        let roots = Set(names.keys.filter { parents[$0] == nil })
        for root in roots {
            guard let name = names[root] else { continue }
            let table = "Z" + name.uppercased()
            guard try database.hasTable(table) else { continue }
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            for row in try database.query("SELECT Z_ENT, COUNT(*) FROM \(quoted) GROUP BY Z_ENT") {
                if case .integer(let ent) = row[0], case .integer(let count) = row[1], let entity = names[ent] {
                    counts[entity] = Int(count)
                }
            }
        }
        return counts
    }

    /// The model stored in `Z_MODELCACHE`.
    /// - Throws: ``ModelFileError`` when the store has no model cache or it cannot be decoded.
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
