import Foundation

/// Everything an atomic store holds.
public struct AtomicStoreContents: Sendable {
    /// The store's UUID.
    public var identifier: String
    /// The metadata.
    public var metadata: [String: PropertyList]
    /// Every object, in no particular order (a store that writes a file chooses its own order).
    public var snapshots: [ObjectSnapshot]

    /// Contents read from an atomic store.
    /// - Parameters:
    ///   - identifier: The store's UUID.
    ///   - metadata: Its metadata.
    ///   - snapshots: Every object's values.
    public init(identifier: String, metadata: [String: PropertyList] = [:], snapshots: [ObjectSnapshot] = []) {
        self.identifier = identifier
        self.metadata = metadata
        self.snapshots = snapshots
    }
}
