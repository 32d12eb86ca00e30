import Foundation

/// A store that keeps its objects in memory only: nothing is written anywhere, and its contents end with the
/// coordinator. Useful for tests, caches and scratch documents. An atomic store; the coordinator holds the objects.
///
/// `@unchecked Sendable`: its only mutable state (`metadata`) is changed under the coordinator's lock.
public final class InMemoryStore: AtomicStore, @unchecked Sendable {
    /// The registered type name.
    public static let typeName = "InMemory"

    public let description: StoreDescription
    public let identifier: String
    public var metadata: [String: PropertyList] = [:]

    /// Creates an empty in-memory store (the `storeIdentifier` option fixes its UUID).
    public init(description: StoreDescription) {
        self.description = description
        self.identifier = description.options["storeIdentifier"] ?? UUID().uuidString
    }

    public func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents {
        AtomicStoreContents(
            identifier: identifier,
            metadata: ["NSStoreType": .string(Self.typeName), "NSStoreUUID": .string(identifier)])
    }

    public func prepareWrite(
        _ contents: AtomicStoreContents, model: ManagedObjectModel
    ) throws(StoreError) -> any StoreTransaction {
        CompletedTransaction()
    }
}
