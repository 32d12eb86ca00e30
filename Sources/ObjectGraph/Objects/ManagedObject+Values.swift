import Foundation

extension ManagedObject {
    // MARK: - Reading

    /// The value for a key: an attribute value, a to-one destination (``PredicateValue/object(_:)``), or a to-many
    /// relationship (``PredicateValue/collection(_:ordered:)``).
    /// - Parameter key: an attribute or relationship of the object's entity.
    /// - Returns: the value.
    /// - Throws: ``ObjectGraphError`` `unknownKey` for a key the entity lacks; `faultNotFulfilled` when the object
    ///   (a fault) or a to-many relationship cannot be read from its store.
    public func value(forKey key: String) throws(ObjectGraphError) -> PredicateValue {
        if let i = entity.attributeIndex[key] { return PredicateValue(try attributeValue(at: i)) }
        if let i = entity.relationshipIndex[key] {
            if entity.relationships[i].isToMany {
                return .collection(
                    try toManyObjects(at: i).map { .object($0) }, ordered: entity.relationships[i].isOrdered)
            }
            return try toOneObject(at: i).map { .object($0) } ?? .null
        }
        throw unknownKey(key)
    }

    /// The value at a key path, through to-one and to-many relationships, with collection operators
    /// (`@count @sum @avg @min @max @distinctUnionOfObjects …`) and composite members (`magnitude.richter`).
    /// - Parameter keyPath: keys joined with `.`, such as `author.books.@count`.
    /// - Returns: the value at the end of the path (a collection where the path goes through a to-many).
    /// - Throws: ``ObjectGraphError`` for a key that does not exist along the path or a value that cannot be read.
    public func value(forKeyPath keyPath: String) throws(ObjectGraphError) -> PredicateValue {
        let path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        do {
            return try ExpressionEvaluator.follow(path[...], from: .object(self))
        } catch {
            throw ObjectGraphError(
                error.code == .unknownKey ? .unknownKey : .faultNotFulfilled, error.message, objectID: objectID)
        }
    }

    /// The value for a key, for predicates: ``value(forKey:)`` with the predicate error type.
    /// - Parameter key: An attribute or relationship name.
    /// - Returns: The value.
    /// - Throws: ``ObjectPredicateError`` `unknownKey` or `objectUnavailable`.
    public func predicateValue(forKey key: String) throws(ObjectPredicateError) -> PredicateValue {
        do {
            return try value(forKey: key)
        } catch {
            throw ObjectPredicateError(error.code == .unknownKey ? .unknownKey : .objectUnavailable, error.message)
        }
    }

    /// The attribute value for a key.
    /// - Parameter key: an attribute of the object's entity.
    /// - Returns: the value, of the attribute's own type, or ``AttributeValue/null``.
    /// - Throws: ``ObjectGraphError`` `unknownKey` when the key is not an attribute; `faultNotFulfilled` when the
    ///   object cannot be read from its store.
    public func attributeValue(forKey key: String) throws(ObjectGraphError) -> AttributeValue {
        guard let i = entity.attributeIndex[key] else { throw unknownKey(key, attribute: true) }
        return try attributeValue(at: i)
    }

    /// The attribute value at a slot of the entity's layout (``EntityLayout/attributes``), without looking the name
    /// up: for code that reads every attribute of many objects.
    /// - Parameter slot: an index into ``EntityLayout/attributes`` of the object's entity.
    /// - Returns: the value.
    /// - Throws: ``ObjectGraphError`` `unknownKey` for a slot out of range; `faultNotFulfilled` when the object cannot
    ///   be read from its store.
    public func attributeValue(atSlot slot: Int) throws(ObjectGraphError) -> AttributeValue {
        guard slot >= 0, slot < entity.attributes.count else { throw unknownKey("#\(slot)", attribute: true) }
        return try attributeValue(at: slot)
    }

    /// The IDs of the destinations of the relationship at a slot of the entity's layout
    /// (``EntityLayout/relationships``), as ``objectIDs(forKey:)`` gives them.
    /// - Parameter slot: an index into ``EntityLayout/relationships`` of the object's entity.
    /// - Returns: the IDs.
    /// - Throws: ``ObjectGraphError`` `unknownKey` for a slot out of range, or when the object or the relationship
    ///   cannot be read from the store.
    public func objectIDs(atSlot slot: Int) throws(ObjectGraphError) -> [ManagedObjectID] {
        guard slot >= 0, slot < entity.relationships.count else {
            throw unknownKey("#\(slot)", relationship: "to-one or to-many")
        }
        return try relationshipIDs(at: slot)
    }

    /// The destination of a to-one relationship.
    /// - Parameter key: a to-one relationship.
    /// - Returns: the destination, or `nil`.
    /// - Throws: ``ObjectGraphError`` `unknownKey` when the key is not a to-one relationship, or when the object
    ///   cannot be read from its store.
    public func object(forKey key: String) throws(ObjectGraphError) -> ManagedObject? {
        guard let i = entity.relationshipIndex[key], !entity.relationships[i].isToMany else {
            throw unknownKey(key, relationship: "to-one")
        }
        return try toOneObject(at: i)
    }

    /// The destinations of a to-many relationship, in order for ordered relationships.
    /// - Parameter key: a to-many relationship.
    /// - Returns: the destinations.
    /// - Throws: ``ObjectGraphError`` `unknownKey` when the key is not a to-many relationship, or when the object or
    ///   the relationship cannot be read from the store.
    public func objects(forKey key: String) throws(ObjectGraphError) -> [ManagedObject] {
        guard let i = entity.relationshipIndex[key], entity.relationships[i].isToMany else {
            throw unknownKey(key, relationship: "to-many")
        }
        return try toManyObjects(at: i)
    }

    /// The IDs of a relationship's destinations (to-one or to-many, in order for an ordered one), without making
    /// objects of destinations not registered yet — Core Data's `objectIDsForRelationshipNamed:`, for reading many
    /// objects' links cheaply. A to-many relationship not read yet is read (its IDs only).
    /// - Parameter key: a relationship.
    /// - Returns: the destinations' IDs.
    /// - Throws: ``ObjectGraphError`` `unknownKey` when the key is not a relationship, or when the object or the
    ///   relationship cannot be read from the store.
    public func objectIDs(forKey key: String) throws(ObjectGraphError) -> [ManagedObjectID] {
        guard let i = entity.relationshipIndex[key] else { throw unknownKey(key, relationship: "to-one or to-many") }
        return try relationshipIDs(at: i)
    }

    func relationshipIDs(at i: Int) throws(ObjectGraphError) -> [ManagedObjectID] {
        try fireFault()
        switch relationshipSlots[i] {
        case .unresolvedToOne(let id): return id.map { [$0] } ?? []
        case .unresolvedToMany(let ids): return ids
        case .toOne(let object): return object.map { [$0.objectID] } ?? []
        case .toMany(let collection): return collection.objects.map(\.objectID)
        case .toManyFault:
            let ids = try context().destinations(of: self, relationship: entity.relationships[i].name)
            relationshipSlots[i] = .unresolvedToMany(ids)
            return ids
        }
    }

    /// A typed attribute value that reports failures: `let title: String? = try book.value(forKey: "title", as:
    /// String.self)`. Nil for a null value; a value of another Swift type than asked is an error, not nil.
    /// - Parameters:
    ///   - key: an attribute of the object's entity.
    ///   - type: the Swift type to read it as.
    /// - Returns: the value, or `nil` for null.
    /// - Throws: ``ObjectGraphError`` for an unknown key, a value of another type, or an object that cannot be read.
    public func value<T: AttributeConvertible>(forKey key: String, as type: T.Type) throws(ObjectGraphError) -> T? {
        let value = try attributeValue(forKey: key)
        if value.isNull { return nil }
        guard let typed = T(attributeValue: value) else {
            throw ObjectGraphError(
                .wrongValueType, "\(entity.name).\(key) holds \(value.debugText), not a \(T.self)", objectID: objectID)
        }
        return typed
    }

    /// Sets a typed attribute value, reporting values that do not fit: `try book.set(title, forKey: "title")`.
    /// - Parameters:
    ///   - value: the new value; `nil` for null.
    ///   - key: an attribute of the object's entity.
    /// - Throws: ``ObjectGraphError`` for an unknown key or a value out of range for the attribute (for example
    ///   40000 for an Integer 16, or 0.1 for a Float, which cannot hold it exactly).
    public func set<T: AttributeConvertible>(_ value: T?, forKey key: String) throws(ObjectGraphError) {
        try setAttributeValue(value.map { $0.attributeValue } ?? .null, forKey: key)
    }

    /// A typed attribute value for the accessors of subclasses: `let title: String? = book["title"]`.
    ///
    /// The getter gives nil for a null value or a value of another type. If the object is a fault whose row cannot
    /// be read, it gives nil and the failure is kept by the context: the next ``ManagedObjectContext/save()`` throws
    /// it, so no nil read this way is ever written back. Use ``value(forKey:as:)`` and ``set(_:forKey:)`` where
    /// failures must be handled on the spot.
    ///
    /// The setter is for values the program controls: an unknown key or a value that does not fit the attribute
    /// is a programmer error and stops the program. Values that come from input must go through
    /// ``set(_:forKey:)``, which throws instead. A value set on a fault whose row cannot be read, or on an object no
    /// longer among its context's objects (its insert undone, or its deletion saved), is not kept, and the failure is:
    /// the next save throws it.
    /// - Parameter key: an attribute of the object's entity.
    public subscript<T: AttributeConvertible>(key: String) -> T? {
        get {
            guard let i = entity.attributeIndex[key] else {
                preconditionFailure("\(entity.name) has no attribute '\(key)'")
            }
            do {
                return T(attributeValue: try attributeValue(at: i))
            } catch {
                linkedContext?.recordFailure(error)
                return nil
            }
        }
        set {
            do {
                try setAttributeValue(newValue.map { $0.attributeValue } ?? .null, forKey: key)
            } catch  where error.code == .faultNotFulfilled || error.code == .invalidatedObject {
                // Not the program's mistake in a key or type (a fault whose row is gone, an object no longer among
                // its context's objects): kept, as a failed read is, for the next save to throw.
                linkedContext?.recordFailure(error)
            } catch {
                preconditionFailure("\(entity.name).\(key): \(error)")
            }
        }
    }

    /// A to-one destination for the accessors of subclasses: `var borrower: Friend? { get { self[object:
    /// "borrower"] } set { self[object: "borrower"] = newValue } }`.
    ///
    /// As with the attribute subscript, a fault that cannot be read gives nil and is kept by the context for the
    /// next save to throw; setting through it keeps the inverse in step. An unknown key or a destination of the
    /// wrong entity is a programmer error; use ``setObject(_:forKey:)`` for destinations that come from input.
    /// - Parameter key: a to-one relationship.
    public subscript<T: ManagedObject>(object key: String) -> T? {
        get {
            guard let i = entity.relationshipIndex[key], !entity.relationships[i].isToMany else {
                preconditionFailure("\(entity.name) has no to-one relationship '\(key)'")
            }
            do {
                return try toOneObject(at: i) as? T
            } catch {
                linkedContext?.recordFailure(error)
                return nil
            }
        }
        set {
            do {
                try setObject(newValue, forKey: key)
            } catch  where error.code == .faultNotFulfilled || error.code == .invalidatedObject {
                linkedContext?.recordFailure(error)
            } catch {
                preconditionFailure("\(entity.name).\(key): \(error)")
            }
        }
    }

    /// The destinations of a to-many relationship for the accessors of subclasses (read-only: change them through
    /// ``mutableObjects(forKey:)``). A relationship that cannot be read gives an empty array and is kept by the
    /// context for the next save to throw.
    /// - Parameter key: a to-many relationship.
    public subscript<T: ManagedObject>(objects key: String) -> [T] {
        guard let i = entity.relationshipIndex[key], entity.relationships[i].isToMany else {
            preconditionFailure("\(entity.name) has no to-many relationship '\(key)'")
        }
        do {
            return try toManyObjects(at: i).compactMap { $0 as? T }
        } catch {
            linkedContext?.recordFailure(error)
            return []
        }
    }

    func unknownKey(_ key: String, attribute: Bool = false, relationship: String? = nil) -> ObjectGraphError {
        let kind = attribute ? "attribute" : relationship.map { "\($0) relationship" } ?? "property"
        return ObjectGraphError(
            .unknownKey, "\(entity.name) has no \(kind) '\(Diagnostics.quote(key))'", objectID: objectID)
    }

    func attributeValue(at index: Int) throws(ObjectGraphError) -> AttributeValue {
        try fireFault()
        if let raw = rawValue(at: index) { return raw }
        guard let storage else { throw unfilled() }
        return storage.value(index, layout: entity)
    }

    /// The error for an object a fulfilled fault left without values (never expected: fulfilling fills or throws).
    func unfilled() -> ObjectGraphError {
        ObjectGraphError(
            .faultNotFulfilled, "\(objectID): the object has no values after its fault fired", objectID: objectID)
    }

    func toOneObject(at index: Int) throws(ObjectGraphError) -> ManagedObject? {
        try fireFault()
        try resolve(index)
        if case .toOne(let object) = relationshipSlots[index] { return object }
        return nil
    }

    func toManyObjects(at index: Int) throws(ObjectGraphError) -> [ManagedObject] {
        try fireFault()
        try resolve(index)
        if case .toMany(let collection) = relationshipSlots[index] { return collection.objects }
        return []
    }

    func toManyContains(_ index: Int, _ object: ManagedObject) throws(ObjectGraphError) -> Bool {
        try fireFault()
        try resolve(index)
        if case .toMany(let collection) = relationshipSlots[index] { return collection.contains(object) }
        return false
    }

    /// Turns the IDs a snapshot gave into objects (faults where they are not registered yet).
    func resolve(_ index: Int) throws(ObjectGraphError) {
        switch relationshipSlots[index] {
        case .unresolvedToOne(let id):
            guard let id else {
                relationshipSlots[index] = .toOne(nil)
                return
            }
            relationshipSlots[index] = .toOne(try context().fault(for: id))
        case .unresolvedToMany(let ids):
            let context = try context()
            var objects: [ManagedObject] = []
            objects.reserveCapacity(ids.count)
            for id in ids { objects.append(try context.fault(for: id)) }
            relationshipSlots[index] = .toMany(ObjectCollection(objects))
        case .toManyFault:
            let context = try context()
            let ids = try context.destinations(of: self, relationship: entity.relationships[index].name)
            var objects: [ManagedObject] = []
            objects.reserveCapacity(ids.count)
            for id in ids { objects.append(try context.fault(for: id)) }
            relationshipSlots[index] = .toMany(ObjectCollection(objects))
        default:
            break
        }
    }

    /// The context, or an error when the object has left it.
    func context() throws(ObjectGraphError) -> ManagedObjectContext {
        guard let context = linkedContext else {
            throw ObjectGraphError(.invalidatedObject, "\(objectID) is no longer in a context", objectID: objectID)
        }
        return context
    }

    // MARK: - Writing attributes

    /// Sets an attribute from a typed attribute value, converting it losslessly to the attribute's type; recorded
    /// for undo and saving. ``setValue(_:forKey:)`` does the same for every kind of property.
    /// - Parameters:
    ///   - value: The new value (``AttributeValue/null`` for none).
    ///   - key: The attribute's name.
    /// - Throws: ``ObjectGraphError`` for an unknown key, a relationship key, a value that does not convert, or an
    ///   object no longer among its context's objects (`invalidatedObject`: its insert undone, or its deletion saved).
    public func setAttributeValue(_ value: AttributeValue, forKey key: String) throws(ObjectGraphError) {
        if flags.contains(.gone) { throw valueOutOfContext() }
        // A value of the attribute's own type (the usual case) goes in as it is: nothing converted or copied.
        if let index = entity.attributeIndex[key], Self.isOwnType(value, of: index, in: entity) {
            try setAttribute(at: index, value, tracked: true)
            return
        }
        let (index, converted) = try checkedAttribute(value, key)
        try setAttribute(at: index, converted, tracked: true)
    }

    /// Whether `value` is of the type of attribute `index` of `layout` and needs no conversion (as
    /// ``EntityLayout/converted(_:forAttributeAt:)`` tells: composites and Undefined values always go through it).
    @inline(__always)
    private static func isOwnType(_ value: AttributeValue, of index: Int, in layout: EntityLayout) -> Bool {
        guard let type = value.type, type != .composite, type != .undefined else { return false }
        return type == layout.attributeTypes[index]
    }

    /// Sets the value for a key — Core Data's `setValue(_:forKey:)` for every kind of property, with the value type
    /// ``value(forKey:)`` returns: an attribute value (converted losslessly to the attribute's type; a composite
    /// from ``PredicateValue/dictionary(_:)``), a to-one destination (``PredicateValue/object(_:)`` or
    /// ``PredicateValue/null``), or a to-many collection (``PredicateValue/collection(_:ordered:)`` of objects).
    /// Recorded for undo and saving; inverses are kept.
    /// - Parameters:
    ///   - value: The new value.
    ///   - key: An attribute or relationship of the object's entity.
    /// - Throws: ``ObjectGraphError`` for an unknown key, or a value that is not of the property's kind or does
    ///   not convert to the attribute's type.
    public func setValue(_ value: PredicateValue, forKey key: String) throws(ObjectGraphError) {
        if let i = entity.relationshipIndex[key] {
            switch value {
            case .null where !entity.relationships[i].isToMany: try setObject(nil, forKey: key)
            case .object(let o as ManagedObject): try setObject(o, forKey: key)
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
        if case .dictionary(let entries) = value, let i = entity.attributeIndex[key],
            entity.attributes[i].type == .composite
        {
            var members: [String: AttributeValue] = [:]
            for (name, member) in entries {
                guard let constant = member.constant else {
                    throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key).\(name): not an attribute value")
                }
                members[name] = AttributeValue(constant: constant)
            }
            try setAttributeValue(.composite(members), forKey: key)
            return
        }
        guard let constant = value.constant else {
            throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key): an object is not an attribute value")
        }
        try setAttributeValue(AttributeValue(constant: constant), forKey: key)
    }

    /// The stored value without firing change tracking or undo (Core Data's primitive accessors).
    /// - Parameter key: an attribute of the object's entity.
    /// - Returns: the value.
    /// - Throws: ``ObjectGraphError`` for an unknown key or an object that cannot be read.
    public func primitiveValue(forKey key: String) throws(ObjectGraphError) -> AttributeValue {
        try attributeValue(forKey: key)
    }

    /// Sets a value without change tracking, undo or observers: for initial values in ``awakeFromInsert()`` and
    /// for values derived from others.
    /// - Parameters:
    ///   - value: the new value, converted losslessly to the attribute's type.
    ///   - key: an attribute of the object's entity.
    /// - Throws: ``ObjectGraphError`` for an unknown key, a value that does not convert, or an object no longer among
    ///   its context's objects (`invalidatedObject`).
    public func setPrimitiveValue(_ value: AttributeValue, forKey key: String) throws(ObjectGraphError) {
        if flags.contains(.gone) { throw valueOutOfContext() }
        if let index = entity.attributeIndex[key], Self.isOwnType(value, of: index, in: entity) {
            try setAttribute(at: index, value, tracked: false)
            return
        }
        let (index, converted) = try checkedAttribute(value, key)
        try setAttribute(at: index, converted, tracked: false)
    }

    /// The error for a value set on an object out of its context's objects (its insert undone, or its deletion
    /// saved): no save would ever write it. (Undo and redo set such an object's values through their own path.) Made
    /// out of line: the setters' usual path only tests a flag.
    @inline(never)
    private func valueOutOfContext() -> ObjectGraphError {
        ObjectGraphError(
            .invalidatedObject,
            "\(self) is no longer among its context's objects (its insert was undone, or its deletion saved): a value set on it would never be saved",
            objectID: objectID)
    }

    private func checkedAttribute(_ value: AttributeValue, _ key: String) throws(ObjectGraphError) -> (
        Int, AttributeValue
    ) {
        guard let index = entity.attributeIndex[key] else {
            if entity.relationshipIndex[key] != nil {
                throw ObjectGraphError(
                    .wrongValueType, "\(entity.name).\(key) is a relationship; set it with setObject")
            }
            throw unknownKey(key)
        }
        do {
            return (index, try entity.converted(value, forAttributeAt: index))
        } catch {
            throw ObjectGraphError(.wrongValueType, "\(entity.name).\(key): \(error)", objectID: objectID)
        }
    }

    func setAttribute(at index: Int, _ value: AttributeValue, tracked: Bool) throws(ObjectGraphError) {
        try fireFault()
        guard let loaded = storage else { throw unfilled() }
        if flags.contains(.hasRawValues), let raw = rawValue(at: index) {
            // A raw value from a lenient read stands for the slot's: compared, replaced (and restored by undo) as it is.
            if raw == value { return }
            change(index, to: value, replacing: raw, tracked: tracked, storage: ownedStorage(loaded))
            return
        }
        // The same value again changes nothing: compared where it is (no value made).
        if loaded.holds(index, value, layout: entity) { return }
        // (No raw value: the usual path, where the copy inlined here has no optional value to test or let go.)
        change(index, to: value, replacing: nil, tracked: tracked, storage: ownedStorage(loaded))
    }

    /// Sets attribute `index` to `value`, a value it does not hold, over `raw` (the raw value a lenient read kept in
    /// its place, if any): recorded for undo, the context and observers when `tracked`.
    @inline(__always)
    private func change(
        _ index: Int, to value: AttributeValue, replacing raw: AttributeValue?, tracked: Bool,
        storage: AttributeStorage
    ) {
        // The context, loaded once and not retained: nothing below lets it go (no code of the app runs before the
        // observers are told, and they are told without it).
        let unretained = unretainedContext
        let recordsUndo = tracked && (unretained?._withUnsafeGuaranteedRef { $0.recordsUndo } ?? false)
        // The value before: made only for undo and observers, which need it.
        let old: AttributeValue =
            recordsUndo || (tracked && observers != nil) ? raw ?? storage.value(index, layout: entity) : .null
        unretained?._withUnsafeGuaranteedRef { context in
            guard tracked else {
                // Not a change the context is told of, but one the original state it records must not miss.
                context.recordAttribute(index, of: self, storage: storage)
                return
            }
            context.willChange(self, attribute: index, storage: storage)
            if recordsUndo {
                context.registerUndo(self) { object in
                    object.undoing { () throws(ObjectGraphError) in
                        try object.setAttribute(at: index, old, tracked: true)
                    }
                }
            }
        }
        if raw != nil {
            // A raw value from a lenient read is replaced by a typed one (or restored by undo, below).
            var values = linkedContext?.rawValues[ObjectIdentifier(self)] ?? [:]
            values[index] = nil
            setRawValues(values)
        }
        if !value.isNull, storage.storeIfFits(index, value, layout: entity) {
            // Stored in its slot's form (the usual case).
        } else if AttributeStorage.fits(value, entity.slots[index].kind, type: entity.attributes[index].type) {
            storage.set(index, value, layout: entity)
        } else {
            // Only undo brings back a value that does not fit: the raw value a lenient read kept.
            var values = linkedContext?.rawValues[ObjectIdentifier(self)] ?? [:]
            values[index] = value
            setRawValues(values)
        }
        if tracked {
            unretained?._withUnsafeGuaranteedRef { $0.didChange(self, attribute: index) }
            observers?.notify(entity.attributes[index].name, old: PredicateValue(old), new: PredicateValue(value))
        }
    }
}

extension AttributeValue {
    /// The attribute value for a predicate constant.
    /// - Parameter constant: a constant of a predicate or an editing command.
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
