/// An entity: a named kind of managed object with attributes, relationships and fetched properties.
///
/// An entity may inherit from a parent entity (``parentName``); it then has its parent's properties as well as
/// its own. ``attributes``, ``relationships`` and ``fetchedProperties`` hold only the properties this entity
/// declares itself; ``ManagedObjectModel`` resolves the inherited ones.
public struct EntityDescription: Sendable, Hashable {
    /// The entity's name, unique in its model.
    public var name: String
    /// The class that represents the entity's objects (`nil` means the generic managed object class).
    public var className: String?
    /// The name of the parent entity, if the entity inherits.
    public var parentName: String?
    /// Whether the entity has no instances of its own (only of its sub-entities).
    public var isAbstract: Bool
    /// The attributes the entity declares itself.
    public var attributes: [AttributeDescription]
    /// The relationships the entity declares itself.
    public var relationships: [RelationshipDescription]
    /// The fetched properties the entity declares itself.
    public var fetchedProperties: [FetchedPropertyDescription]
    /// Uniqueness constraints: each is a list of property names whose values together must be unique.
    public var uniquenessConstraints: [[String]]
    /// Compound indexes: each is a list of property names indexed together.
    public var compoundIndexes: [[String]]
    /// Fetch indexes (Xcode's `fetchIndex` elements).
    public var fetchIndexes: [FetchIndexDescription]
    /// Free-form key/value pairs.
    public var userInfo: [String: String]
    /// A string mixed into the version hash.
    public var versionHashModifier: String?
    /// The previous name, for lightweight migration.
    public var renamingIdentifier: String?

    /// Creates an entity.
    /// - Parameters: See the properties of the same names; only `name` is required.
    public init(
        name: String, className: String? = nil, parent: String? = nil, isAbstract: Bool = false,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        fetchedProperties: [FetchedPropertyDescription] = [], uniquenessConstraints: [[String]] = [],
        compoundIndexes: [[String]] = [], fetchIndexes: [FetchIndexDescription] = [],
        userInfo: [String: String] = [:], versionHashModifier: String? = nil, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.className = className
        self.parentName = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        self.uniquenessConstraints = uniquenessConstraints
        self.compoundIndexes = compoundIndexes
        self.fetchIndexes = fetchIndexes
        self.userInfo = userInfo
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
    }

    /// The names of the properties the entity declares itself, in declaration order.
    public var declaredPropertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name)
    }

    /// The attribute the entity declares with this name.
    /// - Parameter name: the attribute's name.
    /// - Returns: the attribute, or `nil` (inherited attributes are found through ``ManagedObjectModel/allAttributes(of:)``).
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The relationship the entity declares with this name.
    /// - Parameter name: the relationship's name.
    /// - Returns: the relationship, or `nil` (inherited ones are found through
    ///   ``ManagedObjectModel/allRelationships(of:)``).
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }
}
