/// How the objects of one model become objects of another: a list of entity mappings, as Core Data's
/// `NSMappingModel` holds them (read from an Xcode `.xcmappingmodel`, or inferred from the two models with
/// ``inferred(from:to:)``).
public struct MappingModel: Sendable {
    /// The entity mappings, in the order they run.
    public var entityMappings: [EntityMapping]

    /// Creates a mapping model.
    /// - Parameter entityMappings: the entity mappings, in the order they run.
    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
    }

    /// The entity mapping named `name`, if any.
    /// - Parameter name: a mapping's name, e.g. `PersonToPerson`.
    /// - Returns: the first mapping with that name.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}

/// What an entity mapping does with the objects of its source entity (Core Data's `NSEntityMappingType`).
public enum EntityMappingKind: String, Sendable, Hashable, CaseIterable {
    /// Each source object becomes one destination object of the same entity, with every value kept.
    case copy = "Copy"
    /// Each source object becomes one destination object, with values given by the property mappings.
    case transform = "Transform"
    /// The destination entity is new: no source object maps to it.
    case add = "Add"
    /// The source entity is gone: its objects are dropped.
    case remove = "Remove"
    /// Like ``transform``, through a migration policy class the app supplies.
    case custom = "Custom"
}

/// How the objects of one source entity become objects of one destination entity.
public struct EntityMapping: Sendable {
    /// The mapping's name, by which relationship expressions refer to it (e.g. `PersonToPerson`).
    public var name: String
    /// What the mapping does.
    public var kind: EntityMappingKind
    /// The source entity (`nil` for ``EntityMappingKind/add``).
    public var sourceEntityName: String?
    /// The destination entity (`nil` for ``EntityMappingKind/remove``).
    public var destinationEntityName: String?
    /// Only source objects this predicate holds for are migrated (`$source` is the object); `nil` for all.
    public var filterPredicate: ObjectPredicate?
    /// The value of each destination attribute.
    public var attributeMappings: [PropertyMapping]
    /// The destinations of each destination relationship.
    public var relationshipMappings: [PropertyMapping]
    /// The migration policy class the mapping names (an `NSEntityMigrationPolicy` subclass in the app); see
    /// ``EntityMigrationPolicy``.
    public var migrationPolicyClassName: String?

    /// Creates an entity mapping.
    /// - Parameters:
    ///   - name: the mapping's name; by default `SourceToDestination`.
    ///   - kind: what the mapping does.
    ///   - sourceEntityName: the source entity.
    ///   - destinationEntityName: the destination entity.
    ///   - filterPredicate: which source objects are migrated.
    ///   - attributeMappings: the value of each destination attribute.
    ///   - relationshipMappings: the destinations of each destination relationship.
    ///   - migrationPolicyClassName: the app's policy class, if any.
    public init(
        name: String? = nil, kind: EntityMappingKind, sourceEntityName: String?, destinationEntityName: String?,
        filterPredicate: ObjectPredicate? = nil, attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [], migrationPolicyClassName: String? = nil
    ) {
        self.name = name ?? "\(sourceEntityName ?? "")To\(destinationEntityName ?? "")"
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.filterPredicate = filterPredicate
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.migrationPolicyClassName = migrationPolicyClassName
    }
}

/// The value of one destination property: an expression over `$source` (the source object), `$manager` (for
/// `destinationInstancesForEntityMappingNamed:sourceInstances:` and
/// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`) and `$entityMapping`.
public struct PropertyMapping: Sendable {
    /// The destination property.
    public var name: String
    /// The value; `nil` leaves the property at its default (attributes) or empty (relationships).
    public var valueExpression: ObjectExpression?

    /// Creates a property mapping.
    /// - Parameters:
    ///   - name: the destination property.
    ///   - valueExpression: the value, or `nil` for none.
    public init(name: String, valueExpression: ObjectExpression?) {
        self.name = name
        self.valueExpression = valueExpression
    }

    /// `$source.key`: the value of a source property.
    /// - Parameter key: the source property's name.
    /// - Returns: the expression.
    public static func sourceValue(_ key: String) -> ObjectExpression {
        .keyPath(.variable("source"), [key])
    }

    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", name, $source.name)`:
    /// the destination objects made from the objects a source relationship holds.
    /// - Parameter name: the source relationship's name.
    /// - Returns: the expression.
    public static func destinationsOfSourceRelationship(_ name: String) -> ObjectExpression {
        .methodCall(
            .variable("manager"), MigrationSelector.destinationsForSourceRelationship,
            [.constant(.string(name)), sourceValue(name)])
    }

    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", mapping, sources)`: the
    /// destination objects the entity mapping `mapping` made from `sources`.
    /// - Parameters:
    ///   - mapping: the entity mapping's name.
    ///   - sources: the source objects (usually a key path from `$source`).
    /// - Returns: the expression.
    public static func destinations(ofEntityMapping mapping: String, for sources: ObjectExpression) -> ObjectExpression
    {
        .methodCall(
            .variable("manager"), MigrationSelector.destinationsForEntityMapping,
            [.constant(.string(mapping)), sources])
    }
}

/// The `$manager` methods mapping expressions may call.
enum MigrationSelector {
    static let destinationsForEntityMapping = "destinationInstancesForEntityMappingNamed:sourceInstances:"
    static let destinationsForSourceRelationship = "destinationInstancesForSourceRelationshipNamed:sourceInstances:"
}
