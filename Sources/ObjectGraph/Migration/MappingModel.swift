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

/// The `$manager` methods mapping expressions may call.
enum MigrationSelector {
    static let destinationsForEntityMapping = "destinationInstancesForEntityMappingNamed:sourceInstances:"
    static let destinationsForSourceRelationship = "destinationInstancesForSourceRelationshipNamed:sourceInstances:"
}
