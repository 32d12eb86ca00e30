/// Runs a mapping model over the objects of a store: Core Data's `NSMigrationManager`, in three stages — make the
/// destination objects with their attribute values, then set their relationships, then check them against the
/// destination model. It works on snapshots, so any store type can be read and any written.
///
/// Objects keep their primary keys where the key is free under the destination entity's root (so URIs stay valid
/// through a lightweight migration); objects that can't keep theirs are numbered after the highest key.
public struct MigrationManager: Sendable {
    /// The model the store was written with.
    public let sourceModel: ManagedObjectModel
    /// The model to migrate to.
    public let destinationModel: ManagedObjectModel
    /// The mapping to run.
    public let mapping: MappingModel
    /// The app's migration policies, by the class name entity mappings give.
    public let policies: [String: any EntityMigrationPolicy]

    /// The most problems one failed migration lists (the others are counted).
    static let problemLimit = 50

    /// Creates a migration manager.
    /// - Parameters:
    ///   - sourceModel: the model the store was written with.
    ///   - destinationModel: the model to migrate to.
    ///   - mapping: the mapping to run (``MappingModel/inferred(from:to:)`` for a lightweight migration).
    ///   - policies: the app's migration policies, by class name.
    public init(
        sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel, mapping: MappingModel,
        policies: [String: any EntityMigrationPolicy] = [:]
    ) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.mapping = mapping
        self.policies = policies
    }

    /// Checks that the mapping names only entities and properties the models have.
    /// - Throws: ``MigrationError`` (`badMapping`) listing each name that does not fit.
    public func validateMapping() throws(MigrationError) {
        var problems: [MigrationProblem] = []
        for entityMapping in mapping.entityMappings {
            if let name = entityMapping.sourceEntityName, sourceModel.entity(named: name) == nil {
                problems.append(
                    MigrationProblem(
                        entity: name,
                        reason: "mapping \(entityMapping.name) names it, but the source model has no such entity"))
            }
            guard let name = entityMapping.destinationEntityName else { continue }
            guard destinationModel.entity(named: name) != nil else {
                problems.append(
                    MigrationProblem(
                        entity: name,
                        reason: "mapping \(entityMapping.name) names it, but the destination model has no such entity"))
                continue
            }
            let attributes = Set(destinationModel.allAttributes(of: name).map(\.name))
            let relationships = Set(destinationModel.allRelationships(of: name).map(\.name))
            for property in entityMapping.attributeMappings where !attributes.contains(property.name) {
                problems.append(
                    MigrationProblem(
                        entity: name, property: property.name,
                        reason: "mapping \(entityMapping.name) gives it a value, but it is not an attribute of \(name)")
                )
            }
            for property in entityMapping.relationshipMappings where !relationships.contains(property.name) {
                problems.append(
                    MigrationProblem(
                        entity: name, property: property.name,
                        reason:
                            "mapping \(entityMapping.name) gives it objects, but it is not a relationship of \(name)"
                    ))
            }
        }
        guard problems.isEmpty else { throw MigrationError(.badMapping, problems) }
    }

    /// Migrates the objects of a store.
    /// - Parameters:
    ///   - snapshots: every object of the source store (with every relationship loaded).
    ///   - storeIdentifier: the UUID the destination objects' IDs carry.
    ///   - sharedKeys: whether keys must be unique across all entities (a destination store with one key counter,
    ///     as the XML store has), not only under each root entity.
    /// - Returns: the destination objects and what is worth telling the user.
    /// - Throws: ``MigrationError``: `badMapping` for a mapping that does not fit the models, `invalidObject` for
    ///   objects that can't be migrated (each named, with the property and why).
    public func migrate(_ snapshots: [ObjectSnapshot], storeIdentifier: String, sharedKeys: Bool = false)
        throws(MigrationError)
        -> MigrationResult
    {
        try validateMapping()
        var run = MigrationRun(
            manager: self, snapshots: snapshots, storeIdentifier: storeIdentifier, sharedKeys: sharedKeys)
        try run.createObjects()
        try run.setRelationships()
        try run.runPolicies()
        try run.completeInverses()
        try run.validate()
        return run.result()
    }
}
