public import Foundation
public import ObjectGraph
import SQLiteStore

/// What a SQLite document holds, read from its bookkeeping tables without opening a store or reading its model:
/// what `docutil info` shows of a SQLite document, in a time that does not grow with the rows.
public struct SQLiteDocumentSummary: Sendable {
    /// The store's UUID.
    public var uuid: String?
    /// The metadata (without the model docutil embeds in it).
    public var metadata: [String: PropertyList]
    /// Rows by entity name (rows whose `Z_ENT` is exactly that entity).
    public var entityCounts: [String: Int]
    /// Where a model would come from: `embedded` (docutil's), `Z_MODELCACHE` (Apple's), or `nil` (none).
    public var modelSource: String?
    /// Persistent-history transactions and changes, when the store tracks history.
    public var history: (transactions: Int, changes: Int)?

    /// The summary of a SQLite document, or `nil` when the file is not a SQLite database.
    /// - Parameter url: the store file.
    /// - Returns: the summary, or `nil`.
    /// - Throws: ``DocumentError``: `noInput` for a missing file, `badData` for a database that is not a Core Data
    ///   store, `io` when it can't be read.
    public static func read(_ url: URL) throws(DocumentError) -> SQLiteDocumentSummary? {
        guard SQLiteStoreFile.isSQLite(url) else { return nil }
        let file: SQLiteStoreFile
        do {
            file = try SQLiteStoreFile(url: url)
        } catch {
            throw DocumentError(error)
        }
        var metadata = file.metadata
        // As DocumentStack chooses: the model docutil embeds in stores it writes, else Apple's model cache.
        let modelSource: String? =
            metadata.removeValue(forKey: StoreMetadata.modelKey) != nil
            ? "embedded" : (file.modelCache == nil ? nil : "Z_MODELCACHE")
        return SQLiteDocumentSummary(
            uuid: file.uuid, metadata: metadata, entityCounts: file.entityCounts, modelSource: modelSource,
            history: file.history)
    }
}

extension DocumentError {
    /// A SQLite file's error as a document error: `noInput`, `io` or `badData`.
    init(_ error: SQLiteStoreError) {
        switch error.code {
        case .notFound: self.init(.noInput, error.description)
        case .io: self.init(.io, error.description)
        case .notAStore, .malformed: self.init(.badData, error.description)
        case .unsupported: self.init(.unsupported, error.description)
        }
    }

    /// The exit status for an error from below the document layer that is not a ``DocumentError`` (a SQLite file
    /// that can't be read), or `nil` when the error is none of those.
    /// - Parameter error: any error.
    /// - Returns: the exit status, or `nil`.
    public static func exitStatus(for error: any Error) -> Int32? {
        guard let sqlite = error as? SQLiteStoreError else { return nil }
        return DocumentError(sqlite).code.rawValue
    }
}
