import Foundation

/// What every store offers the coordinator.
///
/// Stores are used only under the coordinator's lock, one call at a time; implementations that keep mutable state
/// declare `@unchecked Sendable` on that basis.
public protocol PersistentStore: AnyObject, Sendable {
    /// How the store was opened.
    var description: StoreDescription { get }
    /// The store's UUID, which appears in object ID URIs.
    var identifier: String { get }
    /// The store's metadata.
    var metadata: [String: PropertyList] { get set }
    /// Lets go of the store's file: flushes what the store keeps beside it (a SQLite store checkpoints its
    /// write-ahead log into the main file) and closes it. The store is not used afterwards.
    func close()
}

extension PersistentStore {
    /// Atomic stores hold no open file between saves: nothing to do.
    public func close() {}

    /// Like ``close()``, reporting a failure to flush (a full disk, say), after which the file is not complete on its
    /// own and must not be moved or copied. Stores with nothing to flush just close.
    /// - Throws: ``StoreError`` when flushing fails.
    public func finishAndClose() throws(StoreError) {
        if let flushing = self as? any FlushingStore {
            try flushing.flushAndClose()
        } else {
            close()
        }
    }
}
