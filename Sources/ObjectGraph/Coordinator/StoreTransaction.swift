import Foundation

/// A commit-or-abandon handle for one store's part of a save, so that a save across several stores is all or
/// nothing: every store prepares (writes a temporary file), then every store commits (renames it into place).
public protocol StoreTransaction {
    /// Makes the prepared changes permanent.
    func commit() throws(StoreError)
    /// Abandons the prepared changes.
    func rollback()
    /// Objects the store itself changed while writing the save, beyond what it was asked to write (a SQLite store's
    /// triggers maintaining Apple's derived attributes): contexts read them again after the save.
    var objectsChangedByStore: [ManagedObjectID] { get }
}

extension StoreTransaction {
    /// No object changes but those the save asked for.
    public var objectsChangedByStore: [ManagedObjectID] { [] }
}
