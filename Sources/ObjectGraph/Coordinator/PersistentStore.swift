public import Foundation

/// Where and how a store is opened: what `addPersistentStore` passes to a store type's factory.
public struct StoreDescription: Sendable, Hashable {
    /// The store type name (`"XML"`, `"Binary"`, `"SQLite"`, `"InMemory"` or one registered by an app).
    public var type: String
    /// The file, for stores that have one.
    public var url: URL?
    /// The configuration whose entities the store holds; `nil` for all.
    public var configurationName: String?
    /// Options (e.g. `"readOnly": "YES"`).
    public var options: [String: String]

    public init(type: String, url: URL? = nil, configurationName: String? = nil, options: [String: String] = [:]) {
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
    }

    /// Whether the store is opened read-only.
    public var isReadOnly: Bool { options["readOnly"] == "YES" }
}

/// A failure of a store or of the coordinator.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The file does not exist.
        case notFound
        /// The file is not a store of this type, or is damaged.
        case corrupt
        /// The store type is not registered, or cannot do what was asked.
        case unsupported
        /// Reading or writing failed.
        case io
        /// The store is read-only.
        case readOnly
        /// The store's model does not match.
        case incompatibleModel
        /// An object changed in the store since it was fetched (optimistic locking).
        case conflict
    }

    public var code: Code
    /// The file involved, if any.
    public var path: String?
    /// What went wrong.
    public var message: String
    /// For ``Code/conflict``: the objects whose stored version differs from the one they were read at.
    public var conflicts: [SaveConflict]
    /// When a fetch failed because its predicate or sort could not be evaluated: why (the context reports it as
    /// ``ContextError/predicate(_:)``).
    public var predicateError: ObjectPredicateError?

    public init(_ code: Code, path: String? = nil, _ message: String, conflicts: [SaveConflict] = []) {
        self.code = code
        self.path = path
        self.message = message
        self.conflicts = conflicts
        self.predicateError = nil
    }

    public var description: String { path.map { "\($0): \(message)" } ?? message }
}

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
    public func finishAndClose() throws(StoreError) {
        if let flushing = self as? any FlushingStore {
            try flushing.flushAndClose()
        } else {
            close()
        }
    }
}

/// A store that keeps part of its file elsewhere until it is closed (SQLite's write-ahead log) and can say when
/// folding it back fails.
public protocol FlushingStore: PersistentStore {
    /// Folds everything into the main file and closes it; throws when that fails (the store is closed anyway).
    func flushAndClose() throws(StoreError)
}

/// A store that can copy its whole file by itself, consistently and keeping what the coordinator does not model
/// (SQLite: `VACUUM INTO`, which keeps every table, index and metadata key, in one checkpointed file). The
/// coordinator uses it for save as and save a copy between stores of the same type.
public protocol WholeStoreCopying: PersistentStore {
    /// Writes a complete copy of the stored state to `temporary` (a new file), and puts anything the store keeps
    /// beside its file (externally stored binary data) where a store at `destination` looks for it.
    /// - Returns: the options to open the copy at `temporary` with, so that it behaves as it will at `destination`.
    func copyWhole(to temporary: URL, destination: URL) throws(StoreError) -> [String: String]
}

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

/// Everything an atomic store holds.
public struct AtomicStoreContents: Sendable {
    /// The store's UUID.
    public var identifier: String
    /// The metadata.
    public var metadata: [String: PropertyList]
    /// Every object, in no particular order (a store that writes a file chooses its own order).
    public var snapshots: [ObjectSnapshot]

    public init(identifier: String, metadata: [String: PropertyList] = [:], snapshots: [ObjectSnapshot] = []) {
        self.identifier = identifier
        self.metadata = metadata
        self.snapshots = snapshots
    }
}

/// How an atomic store numbers its objects.
public enum PrimaryKeyScope: Sendable, Hashable {
    /// Keys count up separately for each inheritance hierarchy (like SQLite's `Z_PK` per table).
    case perRootEntity
    /// One counter for the whole store, starting after the given number (Apple's XML store: ids `z102`, `z103`…
    /// after 101).
    case store(startingAfter: Int64)
}

/// A store that reads its whole graph at once and writes it whole on every save (XML, binary, in-memory).
public protocol AtomicStore: PersistentStore {
    /// How new objects get their keys (default: per root entity).
    var primaryKeyScope: PrimaryKeyScope { get }
    /// Reads every object. Called once, when the store is added.
    func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents
    /// Prepares writing the whole store (e.g. to a temporary file beside the real one); the coordinator commits
    /// once every store of the save has prepared.
    func prepareWrite(_ contents: AtomicStoreContents, model: ManagedObjectModel) throws(StoreError)
        -> any StoreTransaction
}

extension AtomicStore {
    public var primaryKeyScope: PrimaryKeyScope { .perRootEntity }
}

/// One changed object in a save: what changed, and the version it was read at.
public struct ObjectUpdate: Sendable, Hashable {
    /// The changed properties and only those (an attribute set to null appears as ``AttributeValue/null``), with
    /// the object's new version.
    public var snapshot: ObjectSnapshot
    /// The names of the changed properties.
    public var changedKeys: Set<String>
    /// The version the object was read at: the store must still hold it (optimistic locking).
    public var expectedVersion: Int64

    /// Creates an update.
    public init(snapshot: ObjectSnapshot, changedKeys: Set<String>, expectedVersion: Int64) {
        self.snapshot = snapshot
        self.changedKeys = changedKeys
        self.expectedVersion = expectedVersion
    }
}

/// One deleted object in a save, with the version it was read at.
public struct ObjectDeletion: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID
    /// The version the object was read at: the store must still hold it, or no longer hold the object.
    public var expectedVersion: Int64

    /// Creates a deletion.
    public init(objectID: ManagedObjectID, expectedVersion: Int64) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
    }
}

/// Changes for one incremental store, as the coordinator hands them over at save: new objects whole (with their
/// permanent IDs), changed objects' changed properties with the version they were read at, deleted objects — the
/// same shape as a context's ``UnsavedChanges``.
public typealias IncrementalSaveRequest = UnsavedChanges

/// A store that fetches on demand and saves changes row by row (SQLite).
public protocol IncrementalStore: PersistentStore {
    /// Opens the store; called once, when it is added.
    func load(model: ManagedObjectModel) throws(StoreError)
    /// The IDs of the objects of `entityNames` that match the request's predicate, in the request's order
    /// (without offset and limit: the coordinator applies them after merging stores and pending changes).
    func objectIDs(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ManagedObjectID]
    /// The stored state of objects (missing ones are left out).
    func snapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot]
    /// The destinations of a to-many relationship the store left as a fault in a snapshot.
    func destinations(of id: ManagedObjectID, relationship: String) throws(StoreError) -> [ManagedObjectID]
    /// The destinations of one to-many relationship of many objects (of one entity), in as few requests as the store
    /// can: what reading many objects whole needs, one request per batch instead of one per object.
    func destinations(of ids: [ManagedObjectID], relationship: String) throws(StoreError)
        -> [ManagedObjectID: [ManagedObjectID]]
    /// The current version of an object, for optimistic locking; `nil` when it no longer exists.
    func version(of id: ManagedObjectID) throws(StoreError) -> Int64?
    /// New keys for objects of a hierarchy root.
    func allocatePrimaryKeys(forRoot entityName: String, count: Int) throws(StoreError) -> [Int64]
    /// Prepares a save in one transaction. Inside it, each update and delete checks that the stored version is still
    /// the expected one; if any is not, the store rolls back and throws a ``StoreError`` with code
    /// ``StoreError/Code/conflict`` listing every conflict.
    func prepareSave(_ request: IncrementalSaveRequest) throws(StoreError) -> any StoreTransaction
}

extension IncrementalStore {
    /// One request per object; stores that can do better implement it.
    public func destinations(of ids: [ManagedObjectID], relationship: String) throws(StoreError)
        -> [ManagedObjectID: [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in ids { result[id] = try destinations(of: id, relationship: relationship) }
        return result
    }
}

/// A transaction with nothing to do (stores that keep everything in memory).
public struct CompletedTransaction: StoreTransaction {
    public init() {}
    public func commit() throws(StoreError) {}
    public func rollback() {}
}
