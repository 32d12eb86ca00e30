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
