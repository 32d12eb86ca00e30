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
