/// App code that takes part in a mapping-model migration, registered by the class name an entity mapping names
/// (the `NSEntityMigrationPolicy` subclass of the app that made the mapping model).
public protocol EntityMigrationPolicy: Sendable {
    /// The destination objects to make for one source object.
    /// - Parameters:
    ///   - source: the source object.
    ///   - mapping: the entity mapping being run.
    ///   - proposed: the attribute values the mapping's expressions give (with defaults filled in).
    /// - Returns: the attribute values of each destination object to make: `[proposed]` for the default
    ///   behaviour, `[]` to make none, several for several.
    /// - Throws: any error, which stops the migration (nothing is written) and is reported with the object.
    func destinationValues(
        for source: MigrationSourceObject, mapping: EntityMapping, proposed: [String: AttributeValue]
    ) throws -> [[String: AttributeValue]]

    /// The second stage, after every mapping made its objects and relationships: more objects (of any entity)
    /// and links for one source object, through `destination` — Core Data's `createRelationships(forDestination:…)`
    /// and the objects a policy inserts into the destination context. The default does nothing.
    /// - Parameters:
    ///   - source: the source object.
    ///   - mapping: the entity mapping that made ``MigrationDestination/objectsMadeFromSource`` from it.
    ///   - destination: the destination objects, to find, make and link.
    /// - Throws: any error, which stops the migration (nothing is written) and is reported with the object.
    func createRelationships(
        for source: MigrationSourceObject, mapping: EntityMapping, in destination: MigrationDestination)
        throws
}

extension EntityMigrationPolicy {
    /// Nothing beyond the mapping's own relationships.
    /// - Parameters:
    ///   - source: the source object.
    ///   - mapping: the entity mapping that made its destination objects.
    ///   - destination: the objects made so far, to find, make and link.
    /// - Throws: nothing; a policy's own implementation throws to stop the migration.
    public func createRelationships(
        for source: MigrationSourceObject, mapping: EntityMapping, in destination: MigrationDestination
    ) throws {}
}
