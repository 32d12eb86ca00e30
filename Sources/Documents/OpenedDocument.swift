import BinaryStore
public import Foundation
import ModelFiles
public import ObjectGraph
import SQLiteStore
import XMLStore

/// An open document: its store in a coordinator, a context, and where its model came from.
public struct OpenedDocument {
    /// The file.
    public let url: URL
    /// The store type it was opened with (`"SQLite"`, `"XML"`, `"Binary"`).
    public let storeType: String
    /// The coordinator holding the document's store.
    public let coordinator: PersistentStoreCoordinator
    /// The document's store.
    public let store: any PersistentStore
    /// The context its objects are read and edited in.
    public let context: ManagedObjectContext
    /// `given` (--model), `embedded` (the document carries it), `inferred` (worked out from an Apple XML store) or
    /// `Z_MODELCACHE`.
    public let modelSource: String
    /// Things worth telling the user (an inferred model, version hashes that differ from the given model…).
    public let warnings: [String]

    /// The model the document was opened with.
    public var model: ManagedObjectModel { coordinator.model }

    /// For a document opened to read leniently: the stored values kept as they are because they do not fit their
    /// attributes (where, and why), so far.
    public var valueWarnings: [String] {
        (store as? SQLiteStore)?.valueWarnings ?? []
    }
}
