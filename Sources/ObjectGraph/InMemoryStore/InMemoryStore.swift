import Foundation

/// A store that keeps its objects in memory only: nothing is written anywhere, and its contents end with the
/// coordinator. Useful for tests, caches and scratch documents. An atomic store; the coordinator holds the objects.
///
/// `@unchecked Sendable`: its only mutable state (`metadata`) is changed under the coordinator's lock.
public final class InMemoryStore: AtomicStore, @unchecked Sendable {
    /// The registered type name.
    public static let typeName = "InMemory"

    /// How the store was opened: its type, file and options.
    public let description: StoreDescription
    /// The store's UUID, which appears in the URIs of its objects.
    public let identifier: String
    /// The store's metadata: type, UUID, model version hashes and any keys an app adds; written with the next save.
    public var metadata: [String: PropertyList] = [:]

    /// Creates an empty in-memory store (the `storeIdentifier` option fixes its UUID).
    /// - Parameter description: the store's options.
    public init(description: StoreDescription) {
        self.description = description
        self.identifier = description.options["storeIdentifier"] ?? UUID().uuidString
    }

    /// Reads every object of the store (atomic stores are read whole).
    /// - Parameter model: The model the objects are read with.
    /// - Returns: The store's identifier, metadata and object snapshots.
    /// - Throws: ``StoreError`` naming the file and the place when the file cannot be read or a value does not fit the model.
    public func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents {
        AtomicStoreContents(
            identifier: identifier,
            metadata: ["NSStoreType": .string(Self.typeName), "NSStoreUUID": .string(identifier)])
    }

    /// Encodes the whole store and prepares to put it in place; nothing on disk changes until the transaction commits.
    /// - Parameters:
    ///   - contents: every object, the metadata and the identifier.
    ///   - model: the model the objects belong to.
    /// - Returns: The transaction that replaces the file on commit.
    /// - Throws: ``StoreError`` when a value cannot be written (it is never written as something else).
    public func prepareWrite(
        _ contents: AtomicStoreContents, model: ManagedObjectModel
    ) throws(StoreError) -> any StoreTransaction {
        CompletedTransaction()
    }
}
