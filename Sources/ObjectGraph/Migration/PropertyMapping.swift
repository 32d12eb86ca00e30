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
