import ObjectGraph

/// Compares the objects of two documents (of any store types).
///
/// Objects are matched within each entity: by the attribute given for the entity (or an ancestor) in `keys`; else by
/// primary key (`Entity/pN`) — first objects with the same key and the same attribute values, then objects with the
/// same values under another key (so that a document and its conversion to a store type that had to renumber
/// objects, the XML store having one key counter for all entities, compare equal), then the rest by key alone
/// (objects whose values changed). Relationships compare by the matched objects. Both documents are read whole.
public enum DocumentDiff {
    /// The differences between `a` and `b`.
    /// - Parameters:
    ///   - a: the first document.
    ///   - b: the second document (of any store type).
    ///   - keys: entity name → the attribute that identifies its objects.
    /// - Returns: objects only in `a`, only in `b`, and changed objects with each changed key.
    /// - Throws: ``DocumentError`` when an object cannot be read, a key attribute does not exist, or a key value
    ///   repeats within an entity of one document (`badData`).
    public static func compare(_ a: OpenedDocument, _ b: OpenedDocument, keys: [String: String] = [:])
        throws(DocumentError) -> DocumentDifference
    {
        do {
            return try Comparison(a: a, b: b, keys: keys).run()
        } catch let error as DocumentError {
            throw error
        } catch let error as ContextError {
            if case .store(let failure) = error { throw DocumentError(failure) }
            throw DocumentError(.badData, "\(error)")
        } catch {
            throw DocumentError(.badData, "\(error)")
        }
    }
}

/// One comparison: objects read per entity, matched, then compared property by property.
private struct Comparison {
    let a: OpenedDocument
    let b: OpenedDocument
    let keys: [String: String]

    /// Every object of one entity (not its sub-entities), sorted by key, with its to-many relationships read.
    func objects(of entity: String, in document: OpenedDocument) throws -> [ManagedObject] {
        guard document.model.entity(named: entity) != nil else { return [] }
        var request = FetchRequest(entityName: entity)
        request.includesSubentities = false
        let objects = try document.context.fetch(request).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        try document.context.prefetchToManyRelationships(of: objects)
        return objects
    }

    /// The attribute that identifies an entity's objects (given for it or an ancestor), if any.
    func keyAttribute(of entity: String) -> String? {
        for name in [entity] + a.model.ancestors(of: entity) {
            if let key = keys[name] { return key }
        }
        return nil
    }

    /// Objects by their key attribute's value; an object whose key is nil is left out (it matches nothing).
    func byKey(_ objects: [ManagedObject], attribute: String, document: OpenedDocument) throws -> [AttributeValue:
        ManagedObject]
    {
        var result: [AttributeValue: ManagedObject] = [:]
        for object in objects {
            guard object.entity.attributeSlot(named: attribute) != nil else {
                throw DocumentError(
                    .badData, "\(document.url.path): \(object.entity.name) has no attribute '\(attribute)' (--key)")
            }
            let value = try object.attributeValue(forKey: attribute)
            guard !value.isNull else { continue }
            if let earlier = result.updateValue(object, forKey: value) {
                throw DocumentError(
                    .badData,
                    "\(document.url.path): \(object.entity.name).\(attribute) = \(value.literalText) is the key of both \(earlier.objectID) and \(object.objectID); it cannot identify objects"
                )
            }
        }
        return result
    }

    /// The attribute values of an object, as a key for pairing objects with the same contents.
    func contents(_ object: ManagedObject) throws -> [String: AttributeValue] {
        var values: [String: AttributeValue] = [:]
        for attribute in object.entity.attributes where !attribute.isTransient {
            let value = Self.canonical(try object.attributeValue(forKey: attribute.name))
            // NaN is not equal to itself: as a dictionary key it stands for "a NaN" (no number attribute holds text).
            if case .double(let d) = value, d.isNaN {
                values[attribute.name] = .string("NaN")
            } else {
                values[attribute.name] = value
            }
        }
        return values
    }

    /// A value with every NaN alike (NaN is not equal to itself, but a stored NaN is the same value as another).
    static func canonical(_ value: AttributeValue) -> AttributeValue {
        switch value {
        case .double(let d) where d.isNaN: .double(.nan)
        case .float(let f) where f.isNaN: .double(.nan)
        case .composite(let members): .composite(members.mapValues(canonical))
        default: value
        }
    }

    /// Whether two attribute values are the same (every NaN alike: a number's, a date's, a decimal's).
    static func same(_ x: AttributeValue, _ y: AttributeValue) -> Bool {
        let (x, y) = (canonical(x), canonical(y))
        if case .double(let p) = x, case .double(let q) = y, p.isNaN && q.isNaN { return true }
        if case .date(let p) = x, case .date(let q) = y,
            p.timeIntervalSinceReferenceDate.isNaN && q.timeIntervalSinceReferenceDate.isNaN
        {
            return true
        }
        if case .decimal(let p) = x, case .decimal(let q) = y, p.isNaN && q.isNaN { return true }
        if case .composite(let m) = x, case .composite(let n) = y {
            return Set(m.keys) == Set(n.keys) && m.keys.allSatisfy { same(m[$0] ?? .null, n[$0] ?? .null) }
        }
        return x == y
    }

    /// What identifies an object's contents for pairing: its attribute values and, for each relationship, the
    /// destinations already paired (in the second document's terms; `nil` for one not yet paired).
    struct Signature: Hashable {
        var attributes: [String: AttributeValue]
        var relationships: [String: [ManagedObjectID?]]

        /// Whether every destination is paired: the signature says all there is to say about the object.
        var isResolved: Bool { relationships.values.allSatisfy { !$0.contains(nil) } }
    }

    /// An object's signature; `side` turns a destination into the second document's ID if it is paired yet.
    func signature(
        _ object: ManagedObject, contents: [String: AttributeValue], side: (ManagedObjectID) -> ManagedObjectID?
    )
        throws -> Signature
    {
        var relationships: [String: [ManagedObjectID?]] = [:]
        for relationship in object.entity.relationships where !relationship.isTransient {
            switch try value(object, relationship.name, relationship) {
            case .object(let id): relationships[relationship.name] = id.map { [side($0)] } ?? []
            case .objects(let ids):
                let mapped = ids.map(side)
                relationships[relationship.name] =
                    relationship.isOrdered
                    ? mapped
                    : mapped.sorted {
                        ($0?.entityName ?? "", $0?.primaryKey ?? 0) < ($1?.entityName ?? "", $1?.primaryKey ?? 0)
                    }
            case .attribute: break
            }
        }
        return Signature(attributes: contents, relationships: relationships)
    }

    /// Pairs the objects of the entities without a key attribute, across all entities at once, in rounds: an object
    /// whose signature (attribute values, and destinations paired so far) is unique on both sides pairs with its
    /// match, or with the object of the same key and signature once that signature is fully resolved; each round's
    /// pairs resolve more destinations for the next. Then objects still sharing a signature pair by key, else in key
    /// order (they cannot be told apart), and what is left pairs by key alone (objects whose values changed).
    func pairWithoutKeys(
        _ unpairedA: inout [String: [ManagedObject]], _ unpairedB: inout [String: [ManagedObject]],
        mapping: inout [ManagedObjectID: ManagedObjectID], pairs: inout [(ManagedObject, ManagedObject)]
    ) throws {
        var known: [ObjectIdentifier: [String: AttributeValue]] = [:]
        func contentsOf(_ object: ManagedObject) throws -> [String: AttributeValue] {
            if let values = known[ObjectIdentifier(object)] { return values }
            let made = try contents(object)
            known[ObjectIdentifier(object)] = made
            return made
        }
        var pairedB = Set(mapping.values)
        func pair(_ x: ManagedObject, _ y: ManagedObject) {
            pairs.append((x, y))
            mapping[x.objectID] = y.objectID
            pairedB.insert(y.objectID)
        }
        /// Groups of each side by signature, for one entity.
        func groups(_ entity: String) throws -> ([Signature: [ManagedObject]], [Signature: [ManagedObject]]) {
            var left: [Signature: [ManagedObject]] = [:]
            var right: [Signature: [ManagedObject]] = [:]
            for object in unpairedA[entity] ?? [] {
                left[try signature(object, contents: try contentsOf(object)) { mapping[$0] }, default: []].append(
                    object)
            }
            for object in unpairedB[entity] ?? [] {
                right[
                    try signature(object, contents: try contentsOf(object)) { pairedB.contains($0) ? $0 : nil },
                    default: []
                ].append(object)
            }
            return (left, right)
        }
        func remove(_ done: Set<ObjectIdentifier>, from table: inout [String: [ManagedObject]], _ entity: String) {
            table[entity] = table[entity]?.filter { !done.contains(ObjectIdentifier($0)) }
        }
        let entities = Set(unpairedA.keys).intersection(unpairedB.keys).sorted()
        var rounds = 0
        var progress = true
        while progress && rounds < 64 {
            progress = false
            rounds += 1
            for entity in entities {
                let (left, right) = try groups(entity)
                var done: Set<ObjectIdentifier> = []
                for (key, xs) in left {
                    guard let ys = right[key] else { continue }
                    if xs.count == 1 && ys.count == 1 {
                        pair(xs[0], ys[0])
                        done.formUnion([ObjectIdentifier(xs[0]), ObjectIdentifier(ys[0])])
                    } else if key.isResolved {
                        let byKey = Dictionary(ys.map { ($0.objectID.primaryKey, $0) }, uniquingKeysWith: { x, _ in x })
                        for x in xs {
                            if let y = byKey[x.objectID.primaryKey] {
                                pair(x, y)
                                done.formUnion([ObjectIdentifier(x), ObjectIdentifier(y)])
                            }
                        }
                    }
                }
                if !done.isEmpty {
                    progress = true
                    remove(done, from: &unpairedA, entity)
                    remove(done, from: &unpairedB, entity)
                }
            }
        }
        for entity in entities {
            // Objects that cannot be told apart: by key, then in key order.
            let (left, right) = try groups(entity)
            var done: Set<ObjectIdentifier> = []
            for (key, xs) in left {
                guard var ys = right[key] else { continue }
                var rest: [ManagedObject] = []
                for x in xs {
                    if let i = ys.firstIndex(where: { $0.objectID.primaryKey == x.objectID.primaryKey }) {
                        pair(x, ys.remove(at: i))
                        done.insert(ObjectIdentifier(x))
                    } else {
                        rest.append(x)
                    }
                }
                for (x, y) in zip(rest, ys) {
                    pair(x, y)
                    done.insert(ObjectIdentifier(x))
                }
                done.formUnion(ys.prefix(rest.count).map(ObjectIdentifier.init))
            }
            remove(done, from: &unpairedA, entity)
            remove(done, from: &unpairedB, entity)
            // Changed objects: by key alone.
            var byKey = Dictionary(
                (unpairedB[entity] ?? []).map { ($0.objectID.primaryKey, $0) }, uniquingKeysWith: { x, _ in x })
            var leftOver: [ManagedObject] = []
            for x in unpairedA[entity] ?? [] {
                if let y = byKey.removeValue(forKey: x.objectID.primaryKey) {
                    pair(x, y)
                } else {
                    leftOver.append(x)
                }
            }
            unpairedA[entity] = leftOver
            unpairedB[entity] = byKey.values.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        }
    }

    func run() throws -> DocumentDifference {
        var difference = DocumentDifference()
        var pairs: [(ManagedObject, ManagedObject)] = []
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        let entities = Set(a.model.entityNames).union(b.model.entityNames).sorted()
        var unpairedA: [String: [ManagedObject]] = [:]
        var unpairedB: [String: [ManagedObject]] = [:]
        for entity in entities {
            let left = try objects(of: entity, in: a)
            let right = try objects(of: entity, in: b)
            guard let attribute = keyAttribute(of: entity) else {
                unpairedA[entity] = left
                unpairedB[entity] = right
                continue
            }
            let rightByKey = try byKey(right, attribute: attribute, document: b)
            _ = try byKey(left, attribute: attribute, document: a)
            var used = Set<ObjectIdentifier>()
            var unmatchedA: [ManagedObject] = []
            for object in left {
                let value = try object.attributeValue(forKey: attribute)
                if !value.isNull, let match = rightByKey[value] {
                    pairs.append((object, match))
                    mapping[object.objectID] = match.objectID
                    used.insert(ObjectIdentifier(match))
                } else {
                    unmatchedA.append(object)
                }
            }
            difference.onlyInA += unmatchedA.map(\.objectID)
            difference.onlyInB += right.filter { !used.contains(ObjectIdentifier($0)) }.map(\.objectID)
        }
        try pairWithoutKeys(&unpairedA, &unpairedB, mapping: &mapping, pairs: &pairs)
        difference.onlyInA += unpairedA.values.flatMap { $0 }.map(\.objectID)
        difference.onlyInB += unpairedB.values.flatMap { $0 }.map(\.objectID)
        for (left, right) in pairs {
            let changes = try compare(left, right, mapping: mapping)
            if !changes.isEmpty {
                difference.changed.append(ObjectChange(a: left.objectID, b: right.objectID, changes: changes))
            }
        }
        let order = { (x: ManagedObjectID, y: ManagedObjectID) in
            (x.entityName, x.primaryKey) < (y.entityName, y.primaryKey)
        }
        difference.onlyInA.sort(by: order)
        difference.onlyInB.sort(by: order)
        difference.changed.sort { order($0.a, $1.a) }
        return difference
    }

    /// The properties of a matched pair that differ: every stored property either entity has.
    func compare(_ left: ManagedObject, _ right: ManagedObject, mapping: [ManagedObjectID: ManagedObjectID]) throws
        -> [KeyDifference]
    {
        var changes: [KeyDifference] = []
        let attributes = Set(left.entity.attributes.filter { !$0.isTransient }.map(\.name)).union(
            right.entity.attributes.filter { !$0.isTransient }.map(\.name))
        for name in attributes {
            let old = left.entity.attributeSlot(named: name) != nil ? try left.attributeValue(forKey: name) : .null
            let new = right.entity.attributeSlot(named: name) != nil ? try right.attributeValue(forKey: name) : .null
            if !Self.same(old, new) {
                changes.append(KeyDifference(key: name, old: .attribute(old), new: .attribute(new)))
            }
        }
        let relationships = Dictionary(
            (left.entity.relationships + right.entity.relationships).filter { !$0.isTransient }.map { ($0.name, $0) },
            uniquingKeysWith: { x, _ in x })
        for (name, relationship) in relationships {
            let old = try value(left, name, relationship)
            let new = try value(right, name, relationship)
            let same: Bool
            switch (old, new) {
            case (.object(let x), .object(let y)): same = x.flatMap { mapping[$0] } == y && (x == nil) == (y == nil)
            case (.objects(let x), .objects(let y)):
                let mapped = x.map { mapping[$0] }
                same =
                    relationship.isOrdered
                    ? mapped == y.map { Optional($0) }
                    : Set(mapped) == Set(y.map { Optional($0) })
                        && !mapped.contains(nil)
            default: same = false
            }
            if !same { changes.append(KeyDifference(key: name, old: old, new: new)) }
        }
        return changes.sorted { $0.key < $1.key }
    }

    /// A relationship's value; a relationship the object's entity lacks reads as empty.
    func value(_ object: ManagedObject, _ name: String, _ relationship: RelationshipDescription) throws
        -> DifferenceValue
    {
        guard let slot = object.entity.relationshipSlot(named: name) else {
            return relationship.isToMany ? .objects([]) : .object(nil)
        }
        if object.entity.relationships[slot].isToMany {
            var ids = try object.objects(forKey: name).map(\.objectID)
            if !object.entity.relationships[slot].isOrdered {
                ids.sort { ($0.entityName, $0.primaryKey) < ($1.entityName, $1.primaryKey) }
            }
            return .objects(ids)
        }
        return .object(try object.object(forKey: name)?.objectID)
    }
}
