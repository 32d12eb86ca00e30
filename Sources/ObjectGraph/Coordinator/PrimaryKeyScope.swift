import Foundation

/// How an atomic store numbers its objects.
public enum PrimaryKeyScope: Sendable, Hashable {
    /// Keys count up separately for each inheritance hierarchy (like SQLite's `Z_PK` per table).
    case perRootEntity
    /// One counter for the whole store, starting after the given number (Apple's XML store: ids `z102`, `z103`…
    /// after 101).
    case store(startingAfter: Int64)
}
