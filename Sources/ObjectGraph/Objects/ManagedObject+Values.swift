public import Foundation

extension ManagedObject {
    // MARK: - Reading

    /// The value for a key: an attribute value, a to-one destination (``PredicateValue/object(_:)``), or a to-many
    /// relationship (``PredicateValue/collection(_:ordered:)``). Unknown keys give ``PredicateValue/null``.
    public func value(forKey key: String) -> PredicateValue {
        if let i = entity.attributeIndex[key] { return PredicateValue(attributeValue(at: i)) }
        if let i = entity.relationshipIndex[key] {
            if entity.relationships[i].isToMany {
                return .collection(toManyObjects(at: i).map { .object($0) }, ordered: entity.relationships[i].isOrdered)
            }
            return toOneObject(at: i).map { .object($0) } ?? .null
        }
        return .null
    }

    /// The value at a key path, through to-one and to-many relationships, with collection operators
    /// (`@count @sum @avg @min @max @distinctUnionOfObjects …`).
    public func value(forKeyPath keyPath: String) -> PredicateValue {
        let path = keyPath.split(separator: ".").map(String.init)
        return (try? ExpressionEvaluator.follow(path[...], from: .object(self))) ?? .null
    }

    public func predicateValue(forKey key: String) -> PredicateValue {
        value(forKey: key)
    }

    /// The attribute value for a key (``AttributeValue/null`` for unknown keys and relationships).
    public func attributeValue(forKey key: String) -> AttributeValue {
        guard let i = entity.attributeIndex[key] else { return .null }
        return attributeValue(at: i)
    }

    /// The destination of a to-one relationship.
    public func object(forKey key: String) -> ManagedObject? {
        guard let i = entity.relationshipIndex[key], !entity.relationships[i].isToMany else { return nil }
        return toOneObject(at: i)
    }

    /// The destinations of a to-many relationship, in order for ordered relationships.
    public func objects(forKey key: String) -> [ManagedObject] {
        guard let i = entity.relationshipIndex[key], entity.relationships[i].isToMany else { return [] }
        return toManyObjects(at: i)
    }

    /// A typed attribute value: `let title: String? = book["title"]`.
    public subscript<T: AttributeConvertible>(key: String) -> T? {
        get { T(attributeValue: attributeValue(forKey: key)) }
        set {
            do {
                try setValue(newValue.map { $0.attributeValue } ?? .null, forKey: key)
            } catch {
                preconditionFailure("\(entity.name).\(key): \(error)")
            }
        }
    }

    func attributeValue(at index: Int) -> AttributeValue {
        fireFault()
        return storage!.value(index, layout: entity)
    }

    func toOneObject(at index: Int) -> ManagedObject? {
        fireFault()
        resolve(index)
        if case .toOne(let object) = relationshipSlots[index] { return object }
        return nil
    }

    func toManyObjects(at index: Int) -> [ManagedObject] {
        fireFault()
        resolve(index)
        if case .toMany(let collection) = relationshipSlots[index] { return collection.objects }
        return []
    }

    func toManyContains(_ index: Int, _ object: ManagedObject) -> Bool {
        fireFault()
        resolve(index)
        if case .toMany(let collection) = relationshipSlots[index] { return collection.contains(object) }
        return false
    }

    /// Turns the IDs a snapshot gave into objects (faults where they are not registered yet).
    func resolve(_ index: Int) {
        switch relationshipSlots[index] {
        case .unresolvedToOne(let id):
            relationshipSlots[index] = .toOne(id.flatMap { managedObjectContext?.object(with: $0) })
        case .unresolvedToMany(let ids):
            let objects = ids.compactMap { managedObjectContext?.object(with: $0) }
            relationshipSlots[index] = .toMany(ObjectCollection(objects))
        case .toManyFault:
            let ids = managedObjectContext?.destinations(of: self, relationship: entity.relationships[index].name) ?? []
            let objects = ids.compactMap { managedObjectContext?.object(with: $0) }
            relationshipSlots[index] = .toMany(ObjectCollection(objects))
        default:
            break
        }
    }

    // MARK: - Writing attributes

    /// Sets an attribute, converting the value losslessly to the attribute's type; recorded for undo and saving.
    /// - Throws: ``ObjectGraphError`` for an unknown key, a relationship key, or a value that does not convert.
    public func setValue(_ value: AttributeValue, forKey key: String) throws(ObjectGraphError) {
        let (index, converted) = try checkedAttribute(value, key)
        setAttribute(at: index, converted, tracked: true)
    }

    /// Sets a value given as a predicate value (Core Data's `setValue(_:forKey:)` for any property): attributes,
    /// to-one objects and to-many collections.
    public func setKeyValue(_ value: PredicateValue, forKey key: String) throws(ObjectGraphError) {
        if let i = entity.relationshipIndex[key] {
            switch value {
            case .null where !entity.relationships[i].isToMany: setObject(nil, forKey: key)
            case .object(let o as ManagedObject): try setObject(o, forKey: key, checked: true)
            case .collection(let items, _):
                var objects: [ManagedObject] = []
                for item in items {
                    guard case .object(let o as ManagedObject) = item else {
                        throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key) holds managed objects only")
                    }
                    objects.append(o)
                }
                try setObjects(objects, forKey: key)
            default:
                throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key) is a relationship")
            }
            return
        }
        guard let constant = value.constant else {
            throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key): an object is not an attribute value")
        }
        try setValue(AttributeValue(constant: constant), forKey: key)
    }

    /// The stored value without firing change tracking or undo (Core Data's primitive accessors).
    public func primitiveValue(forKey key: String) -> AttributeValue {
        attributeValue(forKey: key)
    }

    /// Sets a value without change tracking, undo or observers: for initial values in ``awakeFromInsert()`` and
    /// for values derived from others.
    public func setPrimitiveValue(_ value: AttributeValue, forKey key: String) throws(ObjectGraphError) {
        let (index, converted) = try checkedAttribute(value, key)
        setAttribute(at: index, converted, tracked: false)
    }

    private func checkedAttribute(_ value: AttributeValue, _ key: String) throws(ObjectGraphError) -> (
        Int, AttributeValue
    ) {
        guard let index = entity.attributeIndex[key] else {
            if entity.relationshipIndex[key] != nil {
                throw ObjectGraphError(
                    .wrongValueType, "\(entity.name).\(key) is a relationship; set it with setObject")
            }
            throw ObjectGraphError(.unknownKey, "\(entity.name) has no property '\(key)'")
        }
        let type = entity.attributes[index].type
        if type == .undefined || type == .composite { return (index, value) }
        do {
            return (index, try value.converted(to: type))
        } catch {
            throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key): \(error)")
        }
    }

    func setAttribute(at index: Int, _ value: AttributeValue, tracked: Bool) {
        let old = attributeValue(at: index)
        if old == value { return }
        if tracked, let context = managedObjectContext {
            context.willChange(self)
            context.registerUndo(self) { object in object.setAttribute(at: index, old, tracked: true) }
        }
        storage!.set(index, value, layout: entity)
        if tracked {
            managedObjectContext?.didChange(self)
            observers?.notify(entity.attributes[index].name, old: PredicateValue(old), new: PredicateValue(value))
        }
    }
}

extension AttributeValue {
    /// The attribute value for a predicate constant.
    public init(constant: PredicateConstant) {
        switch constant {
        case .null, .array: self = .null
        case .boolean(let b): self = .boolean(b)
        case .integer(let i): self = .integer64(i)
        case .double(let d): self = .double(d)
        case .decimal(let d): self = .decimal(d)
        case .string(let s): self = .string(s)
        case .date(let d): self = .date(d)
        case .data(let d): self = .binary(d)
        case .uuid(let u): self = .uuid(u)
        case .url(let u): self = .uri(u)
        }
    }
}
