import Foundation

/// A store that keeps part of its file elsewhere until it is closed (SQLite's write-ahead log) and can say when
/// folding it back fails.
public protocol FlushingStore: PersistentStore {
    /// Folds everything into the main file and closes it; throws when that fails (the store is closed anyway).
    func flushAndClose() throws(StoreError)
}
