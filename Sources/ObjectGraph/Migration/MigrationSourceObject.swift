/// A source object while a migration runs: what `$source` is in mapping expressions, and what an
/// ``EntityMigrationPolicy`` reads. Key-value access follows relationships to other source objects.
public final class MigrationSourceObject: KeyValueCoding {
    /// The stored state of the object in the source store.
    public let snapshot: ObjectSnapshot
    unowned let graph: SourceGraph

    init(snapshot: ObjectSnapshot, graph: SourceGraph) {
        self.snapshot = snapshot
        self.graph = graph
    }

    /// The object's ID in the source store.
    public var objectID: ManagedObjectID { snapshot.objectID }

    /// The object's entity in the source model.
    public var entityName: String { snapshot.objectID.entityName }

    /// The value of a property in the source model: attributes as values, to-one relationships as the object (or
    /// null), to-many relationships as a collection of objects.
    /// - Parameter key: a property of the object's entity in the source model.
    /// - Returns: the value.
    /// - Throws: ``ObjectPredicateError`` (`unknownKey`) for a key the entity lacks, `objectUnavailable` for a
    ///   relationship naming an object the store does not hold.
    public func predicateValue(forKey key: String) throws(ObjectPredicateError) -> PredicateValue {
        if case let value = snapshot[attribute: key], !value.isNull { return PredicateValue(value) }
        if let destination = snapshot[toOne: key] {
            guard let destination else { return .null }
            return .object(try graph.object(destination, from: self, key: key))
        }
        if let destinations = snapshot[toMany: key] {
            var objects: [PredicateValue] = []
            objects.reserveCapacity(destinations.count)
            for id in destinations { objects.append(.object(try graph.object(id, from: self, key: key))) }
            let ordered = graph.model.allRelationships(of: entityName).first { $0.name == key }?.isOrdered ?? false
            return .collection(objects, ordered: ordered)
        }
        if graph.model.allAttributes(of: entityName).contains(where: { $0.name == key }) { return .null }
        if let relationship = graph.model.allRelationships(of: entityName).first(where: { $0.name == key }) {
            return relationship.isToMany ? .collection([], ordered: relationship.isOrdered) : .null
        }
        throw ObjectPredicateError(.unknownKey, "\(entityName) has no property '\(key)' in the source model")
    }
}

/// Every source object, by ID, with one ``MigrationSourceObject`` per object (so that identity comparisons hold).
final class SourceGraph {
    let model: ManagedObjectModel
    private(set) var snapshots: [ManagedObjectID: ObjectSnapshot] = [:]
    private var objects: [ManagedObjectID: MigrationSourceObject] = [:]

    init(model: ManagedObjectModel, snapshots: [ObjectSnapshot]) {
        self.model = model
        self.snapshots.reserveCapacity(snapshots.count)
        for snapshot in snapshots { self.snapshots[snapshot.objectID] = snapshot }
    }

    /// The object for an ID the store holds.
    func object(_ id: ManagedObjectID) -> MigrationSourceObject? {
        if let known = objects[id] { return known }
        guard let snapshot = snapshots[id] else { return nil }
        let object = MigrationSourceObject(snapshot: snapshot, graph: self)
        objects[id] = object
        return object
    }

    /// The object a relationship of `owner` names; an error when the store does not hold it.
    func object(_ id: ManagedObjectID, from owner: MigrationSourceObject, key: String) throws(ObjectPredicateError)
        -> MigrationSourceObject
    {
        guard let object = object(id) else {
            throw ObjectPredicateError(
                .objectUnavailable, "\(owner.objectID).\(key) names \(id), which the store does not hold")
        }
        return object
    }
}
