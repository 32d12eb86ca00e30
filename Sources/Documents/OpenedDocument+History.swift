public import ObjectGraph
import SQLiteStore

extension OpenedDocument {
    /// The persistent-history transactions of the document, oldest first, with their changes (Apple's
    /// `NSPersistentHistoryTrackingKey`); `nil` when the document does not track history (only SQLite stores can).
    /// - Returns: the transactions, or `nil` without history tables.
    /// - Throws: ``DocumentError`` `badData` when the history tables can't be read (a change of an unknown
    ///   transaction or entity is named, never skipped).
    public func persistentHistory() throws(DocumentError) -> [HistoryTransaction]? {
        guard let sqlite = store as? SQLiteStore, sqlite.tracksHistory else { return nil }
        do {
            return try sqlite.history()
        } catch {
            throw DocumentError(error)
        }
    }
}
