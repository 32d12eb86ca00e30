extension ManagedObject {
    /// The properties changed since the object was last saved (or fetched), with their new values.
    /// Inserted objects report every property that has a value.
    /// - Returns: changed keys and their current values.
    /// - Throws: ``ObjectGraphError`` when a relationship cannot be read from the store.
    public func changedValues() throws(ObjectGraphError) -> [String: PredicateValue] {
        guard let context = linkedContext, storage != nil else { return [:] }
        let original = context.originals[ObjectIdentifier(self)]
        guard isInserted || original != nil else { return [:] }
        var result: [String: PredicateValue] = [:]
        for (i, attribute) in entity.attributes.enumerated() {
            let value = try attributeValue(at: i)
            if let original {
                // An attribute not recorded is unchanged.
                if let then = original.attribute(i), value != then { result[attribute.name] = PredicateValue(value) }
            } else if !value.isNull {
                result[attribute.name] = PredicateValue(value)
            }
        }
        for (i, relationship) in entity.relationships.enumerated() {
            if let original {
                // Never loaded and so never changed.
                guard let then = original.relationship(i) else { continue }
                if try relationshipIDs(i) == then { continue }
            } else if try relationshipCount(i) == 0 {
                continue
            }
            result[relationship.name] = try value(forKey: relationship.name)
        }
        return result
    }

    /// The values of properties as last saved or fetched (the current values when unchanged).
    /// - Parameter keys: the keys to report; `nil` for every property.
    /// - Returns: the committed values by key.
    /// - Throws: ``ObjectGraphError`` for an unknown key or a value that cannot be read.
    public func committedValues(forKeys keys: [String]? = nil) throws(ObjectGraphError) -> [String: PredicateValue] {
        let names = keys ?? (entity.attributes.map(\.name) + entity.relationships.map(\.name))
        guard let context = linkedContext, let original = context.originals[ObjectIdentifier(self)] else {
            if isInserted { return [:] }
            var result: [String: PredicateValue] = [:]
            for name in names { result[name] = try value(forKey: name) }
            return result
        }
        var result: [String: PredicateValue] = [:]
        for name in names {
            if let i = entity.attributeIndex[name] {
                // Not recorded: unchanged, its value now is the committed one.
                if let then = original.attribute(i) {
                    result[name] = PredicateValue(then)
                } else {
                    result[name] = PredicateValue(try attributeValue(at: i))
                }
            } else if let i = entity.relationshipIndex[name] {
                guard let ids = original.relationship(i) else {
                    result[name] = try value(forKey: name)
                    continue
                }
                var objects: [PredicateValue] = []
                for id in ids { objects.append(.object(try context.fault(for: id))) }
                result[name] =
                    entity.relationships[i].isToMany
                    ? .collection(objects, ordered: entity.relationships[i].isOrdered)
                    : (objects.first ?? .null)
            } else {
                throw unknownKey(name)
            }
        }
        return result
    }
}
