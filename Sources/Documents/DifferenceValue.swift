public import ObjectGraph

/// A value in a difference: an attribute's value, a to-one's destination or a to-many's destinations.
public enum DifferenceValue: Sendable, Hashable {
    /// An attribute value (`AttributeValue.null` for nil).
    case attribute(AttributeValue)
    /// A to-one relationship's destination, or `nil`.
    case object(ManagedObjectID?)
    /// A to-many relationship's destinations (in order for an ordered one, else sorted by entity and key).
    case objects([ManagedObjectID])
}
