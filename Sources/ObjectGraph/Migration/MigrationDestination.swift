/// The destination objects of a migration as an ``EntityMigrationPolicy`` sees them in its second stage
/// (``EntityMigrationPolicy/createRelationships(for:mapping:in:)``): the objects its mapping made from one source
/// object, every object made so far, and the means to make objects of other entities and link them — what
/// `NSEntityMigrationPolicy` subclasses do with the migration manager's destination context.
public final class MigrationDestination {
    /// A destination object: its entity and the ID it will have in the migrated store.
    public struct Object: Sendable, Hashable {
        /// The entity.
        public let entityName: String
        /// The object's ID in the migrated store.
        public let objectID: ManagedObjectID
        let index: Int
    }

    var made: [MigrationRun.Made]
    let model: ManagedObjectModel
    let composites: [String: CompositeDescription]
    let storeIdentifier: String
    let sharedKeys: Bool
    var nextKey: [String: Int64] = [:]
    /// Lookups already asked for: `Entity.key` → value → objects.
    var lookups: [String: [AttributeValue: [Int]]] = [:]
    var source: ManagedObjectID?
    var mapping = 0
    var fromSource: [Int] = []

    init(run: MigrationRun) {
        made = run.made
        model = run.destination
        composites = run.composites
        storeIdentifier = run.storeIdentifier
        sharedKeys = run.sharedKeys
        for item in made {
            guard let id = item.id else { continue }
            let root = sharedKeys ? "" : model.rootEntity(of: item.entity)
            nextKey[root] = max(nextKey[root] ?? 0, id.primaryKey)
        }
    }

    /// The objects the policy's mapping made from the source object being migrated.
    public var objectsMadeFromSource: [Object] { fromSource.compactMap(object(at:)) }

    func object(at index: Int) -> Object? {
        made[index].id.map { Object(entityName: made[index].entity, objectID: $0, index: index) }
    }

    func fail(_ entity: String, _ property: String?, _ reason: String) -> MigrationError {
        MigrationError(.invalidObject, [MigrationProblem(entity: entity, property: property, reason: reason)])
    }

    /// Makes an object of an entity of the destination model, with attribute values (converted to the attributes'
    /// types without loss); it gets the next free key under its root entity.
    /// - Parameters:
    ///   - entityName: a concrete entity of the destination model.
    ///   - values: attribute values by name.
    /// - Returns: the new object.
    /// - Throws: ``MigrationError`` for an unknown or abstract entity, an unknown attribute, or a value that does
    ///   not fit.
    public func insert(entityName: String, values: [String: AttributeValue]) throws(MigrationError) -> Object {
        guard let entity = model.entity(named: entityName), !entity.isAbstract else {
            throw fail(entityName, nil, "no concrete entity \(entityName) in the destination model")
        }
        let attributes = model.allAttributes(of: entityName)
        var converted: [String: AttributeValue] = [:]
        for (key, value) in values {
            guard let attribute = attributes.first(where: { $0.name == key }) else {
                throw fail(entityName, key, "the destination entity has no attribute \(key)")
            }
            do {
                let fitted = try AttributeValue.converted(value, to: attribute, composites: composites)
                if !fitted.isNull { converted[key] = fitted }
            } catch {
                throw fail(entityName, key, "\(error)")
            }
        }
        for attribute in attributes where converted[attribute.name] == nil && !attribute.isTransient {
            if !attribute.defaultValue.isNull { converted[attribute.name] = attribute.defaultValue }
        }
        let root = sharedKeys ? "" : model.rootEntity(of: entityName)
        let key = (nextKey[root] ?? 0) + 1
        nextKey[root] = key
        let id = ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key)
        made.append(
            MigrationRun.Made(
                entity: entityName, source: source ?? id, mapping: mapping, attributes: converted, id: id))
        let index = made.count - 1
        for (name, value) in converted {
            if lookups["\(entityName).\(name)"] != nil {
                lookups["\(entityName).\(name)"]?[value, default: []].append(index)
            }
        }
        return Object(entityName: entityName, objectID: id, index: index)
    }

    /// The objects made so far of an entity (sub-entities included) whose attribute `key` holds `value`: to find the
    /// object another source object's policy already made (one `Maker` per maker name).
    /// - Parameters:
    ///   - entityName: the entity.
    ///   - key: an attribute of it.
    ///   - value: the value to match.
    /// - Returns: the matching objects, in the order they were made.
    public func objects(entityName: String, whereKey key: String, equals value: AttributeValue) -> [Object] {
        let name = "\(entityName).\(key)"
        if lookups[name] == nil {
            var table: [AttributeValue: [Int]] = [:]
            for (index, item) in made.enumerated() where model.entity(item.entity, isKindOf: entityName) {
                if let stored = item.attributes[key] { table[stored, default: []].append(index) }
            }
            lookups[name] = table
        }
        return (lookups[name]?[value] ?? []).compactMap(object(at:))
    }

    /// An attribute value of a destination object (null when it has none).
    /// - Parameters:
    ///   - key: the attribute's name.
    ///   - object: the object.
    /// - Returns: the value.
    public func value(forKey key: String, of object: Object) -> AttributeValue {
        made[object.index].attributes[key] ?? .null
    }

    /// Links a destination object to another through one of its relationships: a to-one is set, a to-many gains
    /// the target. The other side is completed by the migration, as for the mapping's own relationships.
    /// - Parameters:
    ///   - object: the object whose relationship is set.
    ///   - relationship: the relationship's name.
    ///   - target: the object it points to.
    /// - Throws: ``MigrationError`` for an unknown relationship or a target of another entity.
    public func link(_ object: Object, _ relationship: String, to target: Object) throws(MigrationError) {
        guard let description = model.allRelationships(of: object.entityName).first(where: { $0.name == relationship })
        else {
            throw fail(object.entityName, relationship, "the destination entity has no relationship \(relationship)")
        }
        guard model.entity(target.entityName, isKindOf: description.destinationEntityName) else {
            throw fail(
                object.entityName, relationship,
                "\(target.objectID) is a \(target.entityName), not a \(description.destinationEntityName)")
        }
        if description.isToMany {
            if !(made[object.index].toMany[relationship] ?? []).contains(target.objectID) {
                made[object.index].toMany[relationship, default: []].append(target.objectID)
            }
        } else {
            made[object.index].toOne[relationship] = .some(target.objectID)
        }
    }
}
