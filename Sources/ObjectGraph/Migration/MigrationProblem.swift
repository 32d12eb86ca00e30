/// One reason a migration cannot be inferred or cannot run: the entity, the property (when it is about one) and why.
public struct MigrationProblem: Sendable, Hashable, CustomStringConvertible {
    /// The entity (destination entity for inference, or the object's entity at run time).
    public var entity: String
    /// The property, when the problem is about one.
    public var property: String?
    /// Why.
    public var reason: String

    /// Creates a problem.
    /// - Parameters:
    ///   - entity: the entity.
    ///   - property: the property, if any.
    ///   - reason: why.
    public init(entity: String, property: String? = nil, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// `Entity.property: reason`.
    public var description: String {
        "\(entity)\(property.map { ".\($0)" } ?? ""): \(reason)"
    }
}
