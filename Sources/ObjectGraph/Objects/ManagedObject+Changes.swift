extension ManagedObject {
    /// The properties changed since the object was last saved (or fetched), with their new values.
    /// Inserted objects report every property that has a value.
    public func changedValues() -> [String: PredicateValue] {
        guard let context = managedObjectContext, storage != nil else { return [:] }
        let original = context.originals[ObjectIdentifier(self)]
        guard isInserted || original != nil else { return [:] }
        var result: [String: PredicateValue] = [:]
        for (i, attribute) in entity.attributes.enumerated() {
            let value = storage!.value(i, layout: entity)
            if let original {
                if value != original.attributes[i] { result[attribute.name] = PredicateValue(value) }
            } else if !value.isNull {
                result[attribute.name] = PredicateValue(value)
            }
        }
        for (i, relationship) in entity.relationships.enumerated() {
            let ids = relationshipIDs(i)
            if let original, ids == original.relationships[i] { continue }
            if original == nil && ids.isEmpty { continue }
            result[relationship.name] = value(forKey: relationship.name)
        }
        return result
    }

    /// The values of properties as last saved or fetched (the current values when unchanged).
    public func committedValues(forKeys keys: [String]? = nil) -> [String: PredicateValue] {
        let names = keys ?? (entity.attributes.map(\.name) + entity.relationships.map(\.name))
        guard let context = managedObjectContext, let original = context.originals[ObjectIdentifier(self)] else {
            if isInserted { return [:] }
            return Dictionary(uniqueKeysWithValues: names.map { ($0, value(forKey: $0)) })
        }
        var result: [String: PredicateValue] = [:]
        for name in names {
            if let i = entity.attributeIndex[name] {
                result[name] = PredicateValue(original.attributes[i])
            } else if let i = entity.relationshipIndex[name] {
                let objects = original.relationships[i].map { PredicateValue.object(context.object(with: $0)) }
                result[name] =
                    entity.relationships[i].isToMany
                    ? .collection(objects, ordered: entity.relationships[i].isOrdered)
                    : (objects.first ?? .null)
            }
        }
        return result
    }
}
