/// What a migration made: the destination objects, and what is worth telling the user.
public struct MigrationResult: Sendable {
    /// Every destination object, ordered by entity and key.
    public var snapshots: [ObjectSnapshot]
    /// Things worth telling the user (a policy class named by the mapping but not registered…).
    public var warnings: [String]
    /// How many destination objects each entity mapping made, by mapping name.
    public var counts: [String: Int]
    /// How many source objects were dropped (by a remove mapping, a filter, or an entity no mapping covers), by
    /// source entity.
    public var dropped: [String: Int]
}
