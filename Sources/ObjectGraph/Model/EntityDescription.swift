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
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }

    /// The relationship the entity declares with this name.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }
}

/// A fetch index: an index over one or more properties, optionally partial.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One indexed property.
    public struct Element: Sendable, Hashable {
        /// The indexed property's name.
        public var property: String
        /// The index kind as Xcode names it: `Binary` (a B-tree) or `RTree`.
        public var kind: String
        /// Whether the property is indexed in ascending order.
        public var ascending: Bool

        /// Creates an index element.
        public init(property: String, kind: String = "Binary", ascending: Bool = true) {
            self.property = property
            self.kind = kind
            self.ascending = ascending
        }
    }

    /// The index's name.
    public var name: String
    /// The indexed properties in order.
    public var elements: [Element]
    /// A predicate that limits the index to some rows, if any.
    public var partialIndexPredicate: String?

    /// Creates a fetch index.
    public init(name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }
}

/// A composite attribute type: a named group of attributes stored together (Xcode 15+).
public struct CompositeDescription: Sendable, Hashable {
    /// The composite's name, referred to by attributes of type ``AttributeType/composite``.
    public var name: String
    /// The member attributes.
    public var attributes: [AttributeDescription]

    /// Creates a composite.
    public init(name: String, attributes: [AttributeDescription]) {
        self.name = name
        self.attributes = attributes
    }
}

/// A named set of entities; a store is added to a coordinator for one configuration.
public struct Configuration: Sendable, Hashable {
    /// The name of the configuration that every model has and that holds every entity.
    public static let defaultName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// The configuration's name.
    public var name: String
    /// The names of its entities, in order.
    public var entityNames: [String]

    /// Creates a configuration.
    public init(name: String, entities: [String]) {
        self.name = name
        self.entityNames = entities
    }
}

/// A fetch request stored in a model under a name, to be filled in with substitution variables.
///
/// Options left `nil` were not written in the model file and take the fetch request's defaults.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// What a fetch returns.
    public typealias ResultType = FetchResultType

    /// The template's name, unique in its model.
    public var name: String
    /// The fetched entity.
    public var entityName: String
    /// The predicate in Apple's format-string syntax, possibly with `$VARIABLE`s.
    public var predicate: String?
    public var fetchLimit: Int?
    public var fetchBatchSize: Int?
    public var resultType: ResultType?
    public var includesSubentities: Bool?
    public var includesPropertyValues: Bool?
    public var includesPendingChanges: Bool?
    public var returnsObjectsAsFaults: Bool?
    public var returnsDistinctResults: Bool?
    /// Why the template's predicate could not be read from a compiled model (an archived predicate of a kind not
    /// decoded); `nil` when it was read. A template whose predicate could not be read is never used as if it had
    /// none: ``ManagedObjectModel/fetchRequest(fromTemplate:substitutionVariables:)`` throws.
    public var undecodablePredicate: String?

    /// Creates a template.
    public init(
        name: String, entity: String, predicate: String? = nil, fetchLimit: Int? = nil, fetchBatchSize: Int? = nil,
        resultType: ResultType? = nil, includesSubentities: Bool? = nil, includesPropertyValues: Bool? = nil,
        includesPendingChanges: Bool? = nil, returnsObjectsAsFaults: Bool? = nil,
        returnsDistinctResults: Bool? = nil
    ) {
        self.name = name
        self.entityName = entity
        self.predicate = predicate
        self.fetchLimit = fetchLimit
        self.fetchBatchSize = fetchBatchSize
        self.resultType = resultType
        self.includesSubentities = includesSubentities
        self.includesPropertyValues = includesPropertyValues
        self.includesPendingChanges = includesPendingChanges
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.returnsDistinctResults = returnsDistinctResults
    }
}

/// What a fetch returns (Core Data's `NSFetchRequestResultType`; raw values as there).
public enum FetchResultType: Int, Sendable, Hashable, CaseIterable {
    /// Managed objects.
    case managedObject = 0
    /// Object IDs.
    case managedObjectID = 1
    /// Dictionaries of property values.
    case dictionary = 2
    /// Only a count.
    case count = 4
}
