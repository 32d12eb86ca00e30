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

    /// Where and how to open a store.
    /// - Parameters:
    ///   - type: The store type name.
    ///   - url: The file, for stores that have one.
    ///   - configurationName: The configuration whose entities the store holds (`nil` for all).
    ///   - options: Options such as `"readOnly": "YES"`.
    public init(type: String, url: URL? = nil, configurationName: String? = nil, options: [String: String] = [:]) {
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
    }

    /// Whether the store is opened read-only.
    public var isReadOnly: Bool { options["readOnly"] == "YES" }
}
