public import Foundation

/// A store that can copy its whole file by itself, consistently and keeping what the coordinator does not model
/// (SQLite: `VACUUM INTO`, which keeps every table, index and metadata key, in one checkpointed file). The
/// coordinator uses it for save as and save a copy between stores of the same type.
public protocol WholeStoreCopying: PersistentStore {
    /// Writes a complete copy of the stored state to `temporary` (a new file), and puts anything the store keeps
    /// beside its file (externally stored binary data) where a store at `destination` looks for it.
    /// - Returns: the options to open the copy at `temporary` with, so that it behaves as it will at `destination`.
    func copyWhole(to temporary: URL, destination: URL) throws(StoreError) -> [String: String]
}
