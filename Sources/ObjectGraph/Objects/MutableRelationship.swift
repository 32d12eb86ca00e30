/// A mutable view of one to-many relationship of one object (Core Data's mutable set and ordered-set proxies):
/// every change keeps the inverse relationship in step and is recorded for undo.
public struct MutableRelationship {
    let owner: ManagedObject
    let index: Int

    /// The objects, in order for ordered relationships.
    /// - Throws: ``ObjectGraphError`` when the relationship cannot be read from the store.
    public func objects() throws(ObjectGraphError) -> [ManagedObject] { try owner.toManyObjects(at: index) }

    /// How many objects there are.
    public func count() throws(ObjectGraphError) -> Int { try owner.relationshipCount(index) }

    /// Whether `object` is in the relationship.
    public func contains(_ object: ManagedObject) throws(ObjectGraphError) -> Bool {
        try owner.toManyContains(index, object)
    }

    /// Adds an object (at the end of an ordered relationship).
    public func add(_ object: ManagedObject) throws(ObjectGraphError) {
        try owner.checkDestination(object, index)
        try owner.addToMany(index, object)
    }

    /// Adds an object at a position of an ordered relationship.
    public func insert(_ object: ManagedObject, at position: Int) throws(ObjectGraphError) {
        try owner.checkDestination(object, index)
        try owner.addToMany(index, object, at: position)
    }

    /// Removes an object.
    public func remove(_ object: ManagedObject) throws(ObjectGraphError) { try owner.removeFromMany(index, object) }

    /// Removes every object.
    public func removeAll() throws(ObjectGraphError) {
        for object in try objects() { try owner.removeFromMany(index, object) }
    }
}
