/// A mutable view of one to-many relationship of one object (Core Data's mutable set and ordered-set proxies):
/// every change keeps the inverse relationship in step and is recorded for undo.
public struct MutableRelationship {
    let owner: ManagedObject
    let index: Int

    /// The objects, in order for ordered relationships.
    /// - Returns: the destinations.
    /// - Throws: ``ObjectGraphError`` when the relationship cannot be read from the store.
    public func objects() throws(ObjectGraphError) -> [ManagedObject] { try owner.toManyObjects(at: index) }

    /// How many objects there are.
    /// - Returns: the count, read without making the objects where the store can.
    /// - Throws: ``ObjectGraphError`` when the relationship cannot be read from the store.
    public func count() throws(ObjectGraphError) -> Int { try owner.relationshipCount(index) }

    /// Whether `object` is in the relationship.
    /// - Parameter object: an object of the destination entity.
    /// - Returns: `true` when it is a destination.
    /// - Throws: ``ObjectGraphError`` when the relationship cannot be read from the store.
    public func contains(_ object: ManagedObject) throws(ObjectGraphError) -> Bool {
        try owner.toManyContains(index, object)
    }

    /// Adds an object (at the end of an ordered relationship).
    /// - Parameter object: an object of the destination entity, in the same context.
    /// - Throws: ``ObjectGraphError`` for an object of the wrong entity or context, an object no longer among the
    ///   context's objects (`invalidatedObject`), or a relationship that cannot be read.
    public func add(_ object: ManagedObject) throws(ObjectGraphError) {
        try owner.checkDestination(object, index)
        try owner.addToMany(index, object)
    }

    /// Adds an object at a position of an ordered relationship; an object already there moves to the position.
    /// - Parameters:
    ///   - object: an object of the destination entity, in the same context.
    ///   - position: where it goes, from 0 to the count (to the count less one for an object already there: its
    ///     place among the others).
    /// - Throws: ``ObjectGraphError`` (``ObjectGraphError/Code/wrongValueType``) for a position out of range or an
    ///   unordered relationship, nothing changed; or for an object of the wrong entity or context, or no longer among
    ///   the context's objects.
    public func insert(_ object: ManagedObject, at position: Int) throws(ObjectGraphError) {
        try owner.checkDestination(object, index)
        let relationship = owner.entity.relationships[index]
        guard relationship.isOrdered else {
            throw ObjectGraphError(
                .wrongValueType,
                "\(owner.entity.name).\(relationship.name) is not ordered: its objects have no positions",
                objectID: owner.objectID)
        }
        let count = try owner.relationshipCount(index)
        let last = try owner.toManyContains(index, object) ? count - 1 : count
        guard position >= 0, position <= last else {
            throw ObjectGraphError(
                .wrongValueType,
                "position \(position) is out of range for \(owner.entity.name).\(relationship.name) (0 to \(last))",
                objectID: owner.objectID)
        }
        try owner.addToMany(index, object, at: position)
    }

    /// Removes an object.
    /// - Parameter object: the object to remove (nothing happens when it is not there).
    /// - Throws: ``ObjectGraphError`` when the relationship cannot be read.
    public func remove(_ object: ManagedObject) throws(ObjectGraphError) { try owner.removeFromMany(index, object) }

    /// Removes every object.
    /// - Throws: ``ObjectGraphError`` when the relationship cannot be read.
    public func removeAll() throws(ObjectGraphError) {
        for object in try objects() { try owner.removeFromMany(index, object) }
    }
}
