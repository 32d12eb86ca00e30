/// A named set of entities; a store is added to a coordinator for one configuration.
public struct Configuration: Sendable, Hashable {
    /// The name of the configuration that every model has and that holds every entity.
    public static let defaultName = "PF_DEFAULT_CONFIGURATION_NAME"

    /// The configuration's name.
    public var name: String
    /// The names of its entities, in order.
    public var entityNames: [String]

    /// Creates a configuration.
    /// - Parameters:
    ///   - name: the configuration's name.
    ///   - entities: the names of its entities.
    public init(name: String, entities: [String]) {
        self.name = name
        self.entityNames = entities
    }
}
