import Foundation
import ObjectGraph
import SQLiteStore

/// What an import made.
public struct ImportSummary: Sendable {
    /// Objects inserted, by entity name.
    public var inserted: [String: Int]
    /// Records read from the sources (top-level objects, rows).
    public var records: Int
    /// Whether objects were saved batch by batch (a large import into a new SQLite document).
    public var batched: Bool
}
