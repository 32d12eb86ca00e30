public import Foundation
import Synchronization

/// A kind of persistent store, registered by name as in Core Data (`"XML"`, `"Binary"`, `"SQLite"`, `"InMemory"`).
/// Apps may register their own.
public struct StoreType: Sendable {
    /// The type's name.
    public var name: String
    /// Creates a store for a description (it is loaded by the coordinator afterwards).
    public var make: @Sendable (StoreDescription) throws(StoreError) -> any PersistentStore
    /// Reads a file's metadata without opening it as a store.
    public var readMetadata: (@Sendable (URL) throws(StoreError) -> [String: PropertyList])?
    /// Whether a file is a store of this type, judged from its first bytes.
    public var recognizes: (@Sendable (URL) -> Bool)?
    /// File name extensions of this type, used when the content does not decide.
    public var fileExtensions: [String]

    /// Describes a store type.
    /// - Parameters: See the properties of the same names.
    public init(
        name: String, fileExtensions: [String] = [],
        make: @escaping @Sendable (StoreDescription) throws(StoreError) -> any PersistentStore,
        readMetadata: (@Sendable (URL) throws(StoreError) -> [String: PropertyList])? = nil,
        recognizes: (@Sendable (URL) -> Bool)? = nil
    ) {
        self.name = name
        self.fileExtensions = fileExtensions
        self.make = make
        self.readMetadata = readMetadata
        self.recognizes = recognizes
    }

    private static let registry = Mutex<[String: StoreType]>([
        InMemoryStore.typeName: StoreType(name: InMemoryStore.typeName) { description throws(StoreError) in
            InMemoryStore(description: description)
        }
    ])

    /// Registers (or replaces) a store type.
    /// - Parameter type: the store type.
    public static func register(_ type: StoreType) {
        registry.withLock { $0[type.name] = type }
    }

    /// The registered type with this name.
    /// - Parameter name: the type's name (`"SQLite"`).
    /// - Returns: the type, or `nil` when none is registered under that name.
    public static func named(_ name: String) -> StoreType? {
        registry.withLock { $0[name] }
    }

    /// Every registered type's name, sorted.
    public static var registeredNames: [String] {
        registry.withLock { $0.keys.sorted() }
    }

    /// The type of the file at `url`: by content first, then by extension.
    /// - Parameter url: the store file.
    /// - Returns: the type, or `nil` when no registered type recognizes it.
    public static func detect(at url: URL) -> StoreType? {
        let types = registry.withLock { Array($0.values) }.sorted { $0.name < $1.name }
        if let match = types.first(where: { $0.recognizes?(url) == true }) { return match }
        let ext = url.pathExtension.lowercased()
        return types.first { $0.fileExtensions.contains(ext) }
    }
}
