import Foundation
import ModelFiles
import ObjectGraph

/// Matches the raw contents of an XML store to a model (upper-cased entity types, lower-cased property names) and
/// turns them into snapshots.
struct XMLStoreDecoder {
    let model: ManagedObjectModel
    let path: String?
    let entityByType: [String: EntityLayout]
    let composites: [String: CompositeDescription]
    /// When set, problems that would stop reading are collected here instead (see ``snapshots(_:storeIdentifier:)``).
    var collected: [StoreProblem]?
    /// The attributes each entity's last object named, in the order it named them, with their slots: objects of one
    /// entity usually name theirs in the same order, so each name is compared with the one at its place first.
    private var attributeOrders: [ObjectIdentifier: [(name: String, slot: Int)]] = [:]

    init(model: ManagedObjectModel, path: String?) {
        self.model = model
        self.path = path
        composites = Dictionary(model.composites.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var map: [String: EntityLayout] = [:]
        for entity in model.entities { map[entity.name.uppercased()] = model.layout(of: entity.name) }
        // A name as it is comes first: the writer keeps it so when another entity's upper-cases the same.
        for entity in model.entities { map[entity.name] = model.layout(of: entity.name) }
        entityByType = map
    }

    /// The snapshots of every object. With ``collected`` set, what reading would refuse is collected there instead (for
    /// checking a file): an object of an unknown entity or with an id used before is left out, a property that
    /// cannot be read is left unset, and a reference to an object that is not in the file is kept (as an object of
    /// the relationship's destination entity), for the graph's check to report. The objects are taken out of `raw`.
    mutating func snapshots(_ raw: inout RawXMLStore, storeIdentifier: String) throws(StoreError) -> [ObjectSnapshot] {
        let collecting = collected != nil
        func report(_ error: StoreError, _ kind: StoreProblem.Kind, _ object: String, key: String? = nil)
            throws(StoreError)
        {
            guard collecting else { throw error }
            collected?.append(StoreProblem(object: object, kind: kind, key: key, detail: error.message))
        }
        func uri(_ entity: String, _ id: Int64) -> String {
            ManagedObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: id).uriString
        }
        // One ID per object, shared by the object and every reference to it.
        var idOfObject = IDsByKey(keys: raw.objects.lazy.map(\.id))
        var skipped: Set<Int> = []
        // Each object's layout, found once.
        var layouts: [EntityLayout?] = []
        layouts.reserveCapacity(raw.objects.count)
        for (index, object) in raw.objects.enumerated() {
            let found = layout(ofType: object.type)
            layouts.append(found)
            guard let layout = found else {
                try report(
                    .xml(
                        path, line: object.line,
                        "unknown entity '\(object.type)' (the model has: \(model.entityNames.joined(separator: ", ")))"),
                    .unknownEntity, uri(object.type, object.id))
                skipped.insert(index)
                continue
            }
            if idOfObject[object.id] != nil {
                try report(
                    .xml(path, line: object.line, "object id z\(object.id) is used twice"), .primaryKey,
                    uri(layout.name, object.id))
                skipped.insert(index)
                continue
            }
            idOfObject[object.id] = ManagedObjectID(
                entityName: layout.name, storeIdentifier: storeIdentifier, primaryKey: object.id)
        }
        var lowerRelationships: [String: [String: RelationshipDescription]] = [:]
        for (name, layout) in model.layouts {
            var byName = Dictionary(
                layout.relationships.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
            // A name as it is comes first (see `entityByType`).
            for relationship in layout.relationships { byName[relationship.name] = relationship }
            lowerRelationships[name] = byName
        }
        // The relationships each entity's last object named, in its order, with their slots (objects of one entity
        // usually name theirs in the same order).
        var relationshipOrders: [ObjectIdentifier: [(name: String, slot: SlottedRelationship)]] = [:]
        var snapshots: [ObjectSnapshot] = []
        snapshots.reserveCapacity(raw.objects.count)
        defer { raw.objects = [] }
        for index in raw.objects.indices where !skipped.contains(index) {
            // Each object is taken out of the raw store (not copied), and its text let go once decoded: the store is
            // not held twice over.
            var object = RawXMLStore.Object(type: "", id: 0, line: 0)
            swap(&object, &raw.objects[index])
            guard let id = idOfObject[object.id] else { continue }
            let entityName = id.entityName
            // The object's URI, made only for a problem report.
            var here: String { id.uriString }
            guard let layout = layouts[index] else { continue }
            if object.values == nil { try decodeValues(of: &object, layout: layout, storeIdentifier: storeIdentifier) }
            let values = object.values ?? SlotValues(layout: layout)
            let members = object.attributes
            var order = relationshipOrders[ObjectIdentifier(layout)] ?? []
            var orderChanged = false
            // Relationships by slot: those the element does not name stay absent.
            var snapshot = ObjectSnapshot(
                objectID: id, version: 1, values: values,
                relationships: .filled(with: .absent, count: layout.relationships.count))
            for attribute in members {
                do {
                    try decodeMember(attribute, of: object, entity: entityName, into: &snapshot)
                } catch {
                    try report(error, .value, here, key: attribute.name)
                }
            }
            for (place, relationship) in object.relationships.enumerated() {
                let description: SlottedRelationship
                if place < order.count, order[place].name == relationship.name {
                    description = order[place].slot
                } else {
                    let relationships = lowerRelationships[entityName] ?? [:]
                    guard
                        let found = relationships[relationship.name]
                            ?? relationships[relationship.name.lowercased()]
                    else {
                        try report(
                            .xml(path, line: object.line, "\(entityName) has no relationship '\(relationship.name)'"),
                            .value, here, key: relationship.name)
                        continue
                    }
                    description = SlottedRelationship(found, slot: layout.relationshipSlot(named: found.name) ?? -1)
                    if place < order.count {
                        order[place] = (relationship.name, description)
                    } else if place == order.count {
                        order.append((relationship.name, description))
                    }
                    orderChanged = true
                }
                var ids: [ManagedObjectID] = []
                ids.reserveCapacity(relationship.refs.count)
                for ref in relationship.refs {
                    guard let destination = idOfObject[ref] else {
                        // A reference to an object that no longer exists (a relationship without an inverse whose
                        // destination was deleted) is kept as it is, as the other stores keep theirs: the object
                        // it names fails to load when asked for, `check` names it, and a save writes it back.
                        ids.append(
                            ManagedObjectID(
                                entityName: description.destinationEntityName, storeIdentifier: storeIdentifier,
                                primaryKey: ref))
                        continue
                    }
                    // An object of another entity than the relationship holds cannot be its destination (the SQLite
                    // store refuses the same): read as it is, it would put, say, a Book where a Friend belongs.
                    if destination.entityName != description.destinationEntityName,
                        !description.holds(destination.entityName, in: model)
                    {
                        try report(
                            .xml(
                                path, line: object.line,
                                "\(entityName).\(description.name) refers to z\(ref), a \(destination.entityName), not a \(description.destinationEntityName)"
                            ), .value, here, key: description.name)
                        continue
                    }
                    ids.append(destination)
                }
                let slot = description.slot
                if description.isToMany {
                    if !snapshot.setRelationship(atSlot: slot, .toMany(ids)) { snapshot.toMany[description.name] = ids }
                } else {
                    if ids.count > 1 {
                        try report(
                            .xml(
                                path, line: object.line,
                                "to-one relationship \(entityName).\(description.name) has \(ids.count) destinations"),
                            .value, here, key: description.name)
                    }
                    if !snapshot.setRelationship(atSlot: slot, .toOne(ids.first)) {
                        snapshot.toOne[description.name] = ids.first
                    }
                }
            }
            if orderChanged { relationshipOrders[ObjectIdentifier(layout)] = order }
            snapshots.append(snapshot)
        }
        return snapshots
    }

    /// The layout of the entity an object's `type` names (Apple writes entity names upper-cased).
    func layout(ofType type: String) -> EntityLayout? {
        entityByType[type] ?? entityByType[type.uppercased()]
    }

    /// Decodes an object's attribute values into its entity's slots (`object.values`), leaving in
    /// `object.attributes` only members of composites (rare: decoded with the snapshot).
    /// - Parameters:
    ///   - object: the object as read.
    ///   - layout: its entity's layout.
    ///   - storeIdentifier: the store's UUID (for the object's URI in problem reports).
    /// - Throws: ``StoreError`` for a value that cannot be read (unless problems are collected).
    mutating func decodeValues(of object: inout RawXMLStore.Object, layout: EntityLayout, storeIdentifier: String)
        throws(StoreError)
    {
        let collecting = collected != nil
        let key = object.id
        func report(_ error: StoreError, key name: String) throws(StoreError) {
            guard collecting else { throw error }
            let uri = ManagedObjectID(entityName: layout.name, storeIdentifier: storeIdentifier, primaryKey: key)
                .uriString
            collected?.append(StoreProblem(object: uri, kind: .value, key: name, detail: error.message))
        }
        let entityName = layout.name
        let values = SlotValues(layout: layout)
        var members: [RawXMLStore.Attribute] = []
        var order = attributeOrders[ObjectIdentifier(layout)] ?? []
        var orderChanged = false
        defer { if orderChanged { attributeOrders[ObjectIdentifier(layout)] = order } }
        for (place, attribute) in object.attributes.enumerated() {
            // Objects of one entity usually name their attributes in the same order: the slot found at this place
            // for the last object is tried first.
            let slot: Int
            if place < order.count, order[place].name == attribute.name {
                slot = order[place].slot
            } else if let found = layout.attributeIndex[attribute.name] {
                slot = found
                if place < order.count {
                    order[place] = (attribute.name, slot)
                } else if place == order.count {
                    order.append((attribute.name, slot))
                }
                orderChanged = true
            } else if let found = self.slot(of: attribute.name, in: layout) {
                // Named as written in another case (Apple writes names lower-cased).
                slot = found
            } else if attribute.name.utf8.contains(UInt8(ascii: ".")) {
                // A member of a composite (a name with a dot that is not itself an attribute's).
                members.append(attribute)
                continue
            } else {
                try report(
                    .xml(
                        path, line: object.line, "\(entityName) has no attribute '\(Diagnostics.quote(attribute.name))'"
                    ),
                    key: attribute.name)
                continue
            }
            do throws(StoreError) {
                let raw = try Self.value(attribute, path: path, line: object.line)
                do {
                    values.set(try layout.converted(raw, forAttributeAt: slot), at: slot)
                } catch {
                    throw StoreError.xml(
                        path, line: object.line, "\(entityName).\(layout.attributes[slot].name): \(error.description)")
                }
            } catch {
                try report(error, key: layout.attributes[slot].name)
            }
        }
        object.values = values
        object.attributes = members
    }

    /// The slot of the attribute an XML store names (as written, else ignoring case).
    func slot(of name: String, in layout: EntityLayout) -> Int? {
        if let slot = layout.attributeIndex[name] { return slot }
        let lowered = name.lowercased()
        return layout.attributes.firstIndex { $0.name.lowercased() == lowered }
    }

    /// A member of a composite attribute, written as `attribute.member[.member…]` (docutil's layout).
    func decodeMember(
        _ attribute: RawXMLStore.Attribute, of object: RawXMLStore.Object, entity entityName: String,
        into snapshot: inout ObjectSnapshot
    ) throws(StoreError) {
        let path = attribute.name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func bad(_ why: String) -> StoreError {
            .xml(self.path, line: object.line, "\(entityName) attribute '\(Diagnostics.quote(attribute.name))': \(why)")
        }
        guard path.count <= 16, let layout = model.layout(of: entityName),
            let owner = layout.attributes.first(where: { $0.name.lowercased() == path[0].lowercased() })
        else { throw bad("no such attribute") }
        guard owner.type == .composite, var composite = owner.compositeName.flatMap({ composites[$0] }) else {
            throw bad("\(owner.name) is not a composite attribute")
        }
        var members: [String] = []
        var member: AttributeDescription?
        for (i, name) in path.dropFirst().enumerated() {
            guard let found = composite.attributes.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw bad("composite \(composite.name) has no member '\(Diagnostics.quote(name))'")
            }
            members.append(found.name)
            member = found
            if i < path.count - 2 {
                guard found.type == .composite, let next = found.compositeName.flatMap({ composites[$0] }) else {
                    throw bad("\(found.name) is not a composite")
                }
                composite = next
            }
        }
        guard let member, member.type != .composite else { throw bad("names no member value") }
        let raw = try Self.value(attribute, path: self.path, line: object.line)
        let value: AttributeValue
        do {
            value = try AttributeValue.converted(raw, to: member, composites: composites)
        } catch {
            throw bad(error.description)
        }
        var root: [String: AttributeValue] = [:]
        if case .composite(let existing)? = snapshot.attributes[owner.name] { root = existing }
        AttributeValue.insertMember(value, at: members[...], into: &root)
        snapshot.attributes[owner.name] = .composite(root)
    }

    /// The value an `<attribute type=…>` element holds, by its XML type.
    static func value(_ attribute: RawXMLStore.Attribute, path: String?, line: Int) throws(StoreError) -> AttributeValue
    {
        let text = attribute.text
        func bad() -> StoreError {
            .xml(
                path, line: line, "attribute '\(attribute.name)': '\(text.prefix(40))' is not a valid \(attribute.type)"
            )
        }
        switch attribute.type {
        case "string": return .string(text)
        case "int16", "int32", "int64":
            guard let v = Int64(text) ?? Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw bad()
            }
            return .integer64(v)
        case "bool":
            if text == "1" { return .boolean(true) }
            if text == "0" { return .boolean(false) }
            switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
            case "1", "YES", "true": return .boolean(true)
            case "0", "NO", "false": return .boolean(false)
            default: throw bad()
            }
        case "double":
            guard let v = Double(text) ?? Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw bad()
            }
            return .double(v)
        case "float":
            // Parsed as a Float: the shortest text of a Float reads back to exactly that Float.
            guard let v = Float(text) ?? Float(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw bad()
            }
            return .float(v)
        case "decimal":
            guard let v = try? AttributeValue(parsing: text, as: .decimal) else { throw bad() }
            return v
        case "date":
            guard let seconds = Double(text) ?? Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw bad()
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case "binary":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw bad() }
            return .binary(data)
        default:
            throw .xml(path, line: line, "attribute '\(attribute.name)' has unknown type '\(attribute.type)'")
        }
    }
}

/// A relationship with its slot in its entity's layout, held by reference (read once per object without copying its
/// description).
final class SlottedRelationship {
    let name: String
    let isToMany: Bool
    let destinationEntityName: String
    /// The slot, or -1 when the layout has none for it.
    let slot: Int

    init(_ description: RelationshipDescription, slot: Int) {
        name = description.name
        isToMany = description.isToMany
        destinationEntityName = description.destinationEntityName
        self.slot = slot
    }

    /// The last sub-entity found to be a destination (references come in runs of one entity).
    private var lastHeld: String?

    /// Whether an object of `entity` can be a destination: the destination entity or one of its sub-entities.
    func holds(_ entity: String, in model: ManagedObjectModel) -> Bool {
        if entity == lastHeld { return true }
        guard model.layout(of: destinationEntityName)?.kindNames.contains(entity) ?? false else { return false }
        lastHeld = entity
        return true
    }
}

/// The ID of each object of a file by its key: an array over the keys' range when they are dense (a store's keys
/// usually are), else a dictionary.
struct IDsByKey {
    private var low: Int64 = 0
    private var dense: [ManagedObjectID?] = []
    private var sparse: [Int64: ManagedObjectID] = [:]
    private let isDense: Bool

    /// A table for objects with these keys (`keys` is read once, for its range and count).
    init(keys: some Sequence<Int64>) {
        var low = Int64.max
        var high = Int64.min
        var count = 0
        for key in keys {
            low = min(low, key)
            high = max(high, key)
            count += 1
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if count > 0, !overflow, span < Int64(count) * 4 + 1024 {
            isDense = true
            self.low = low
            dense = Array(repeating: nil, count: Int(span) + 1)
        } else {
            isDense = false
            sparse.reserveCapacity(count)
        }
    }

    private func offset(_ key: Int64) -> Int? {
        let (offset, overflow) = key.subtractingReportingOverflow(low)
        guard !overflow, offset >= 0, offset < Int64(dense.count) else { return nil }
        return Int(offset)
    }

    /// The ID of the object with `key`.
    subscript(key: Int64) -> ManagedObjectID? {
        get {
            guard isDense else { return sparse[key] }
            return offset(key).flatMap { dense[$0] }
        }
        set {
            guard isDense else {
                sparse[key] = newValue
                return
            }
            // Every key the table was made for has a place.
            if let place = offset(key) { dense[place] = newValue }
        }
    }
}
