/// The stored state of one object: its attribute values and the IDs its relationships point to, as a store holds
/// them. Snapshots are values and `Sendable`: stores, the coordinator's row cache and contexts exchange them.
public struct ObjectSnapshot: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID
    /// The optimistic-locking version (Core Data's `Z_OPT`): 1 when first saved, +1 on every save that changes it.
    public var version: Int64
    /// Attribute values by attribute name (transient attributes are never stored).
    public var attributes: [String: AttributeValue]
    /// To-one relationships by name: the destination, or `nil`.
    public var toOne: [String: ManagedObjectID?]
    /// To-many relationships by name: the destinations, in order for ordered relationships.
    public var toMany: [String: [ManagedObjectID]]
    /// To-many relationships the store did not load: they fault separately, on first use
    /// (`IncrementalStore.destinations(of:relationship:)`).
    public var toManyFaults: Set<String> = []
    /// Attributes whose stored values did not fit their type and were kept as they are, because the store was
    /// opened to read leniently (`docutil dump --lenient`): the object keeps them raw instead of failing to load.
    public var rawKeys: Set<String> = []

    /// Creates a snapshot.
    /// - Parameters:
    ///   - objectID: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - attributes: attribute values by name (absent: null).
    ///   - toOne: to-one destinations by relationship name.
    ///   - toMany: to-many destinations by relationship name.
    public init(
        objectID: ManagedObjectID, version: Int64 = 1, attributes: [String: AttributeValue] = [:],
        toOne: [String: ManagedObjectID?] = [:], toMany: [String: [ManagedObjectID]] = [:]
    ) {
        self.objectID = objectID
        self.version = version
        self.attributes = attributes
        self.toOne = toOne
        self.toMany = toMany
    }

    /// Takes the changed properties of an update, and its version.
    /// - Parameter update: the update a save wrote.
    public mutating func apply(_ update: ObjectUpdate) {
        for key in update.changedKeys {
            if let value = update.snapshot.attributes[key] {
                attributes[key] = value.isNull ? nil : value
            } else if let destination = update.snapshot.toOne[key] {
                toOne[key] = .some(destination)
            } else if let destinations = update.snapshot.toMany[key] {
                toMany[key] = destinations
                toManyFaults.remove(key)
            }
        }
        version = update.snapshot.version
    }

    /// The value of an attribute; ``AttributeValue/null`` when absent.
    /// - Parameter name: the attribute's name.
    public subscript(attribute name: String) -> AttributeValue {
        attributes[name] ?? .null
    }
}
