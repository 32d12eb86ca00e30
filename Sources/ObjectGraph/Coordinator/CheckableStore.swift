import Foundation

/// A store that can check its own file for what its reading does not notice or refuses to read (the SQLite store
/// runs SQL over its tables; the XML store reports what it skipped when opened with the option `collectProblems`).
public protocol CheckableStore: PersistentStore {
    /// Checks the file, reading in bounded memory.
    /// - Parameter limit: the most problems worth collecting of each kind (the rest are counted, not listed).
    /// - Throws: ``StoreError`` when the file cannot be read at all.
    func checkStructure(limit: Int) throws(StoreError) -> StoreCheckResult
}
