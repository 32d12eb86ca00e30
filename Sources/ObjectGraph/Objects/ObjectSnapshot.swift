/// The stored state of one object: its attribute values and the IDs its relationships point to, as a store holds
/// them. Snapshots are values and `Sendable`: stores, the coordinator's row cache and contexts exchange them.
public struct ObjectSnapshot: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID
    /// The optimistic-locking version (Core Data's `Z_OPT`): 1 when first saved, +1 on every save that changes it.
    public var version: Int64
    /// Attribute values by attribute name (transient attributes are never stored; a nil value is left out).
    ///
    /// A snapshot a store read by its entity's slots keeps its values that way until this dictionary is asked for or
    /// changed; ``subscript(attribute:)`` reads either form without making the dictionary.
    public var attributes: [String: AttributeValue] {
        get { slotted?.dictionary ?? named }
        set {
            slotted = nil
            named = newValue
        }
        _modify {
            if let slotted {
                named = slotted.dictionary
                self.slotted = nil
            }
            yield &named
        }
    }
    /// The values by name (when not held by slot).
    private var named: [String: AttributeValue]
    /// The values by the slots of an entity layout, when a store read them that way: what filling an object of that
    /// layout copies without looking anything up by name.
    package private(set) var slotted: SlotValues?
    /// To-one relationships by name: the destination, or `nil`.
    public var toOne: [String: ManagedObjectID?]
    /// To-many relationships by name: the destinations, in order for ordered relationships.
    public var toMany: [String: [ManagedObjectID]]
    /// To-many relationships the store did not load: they fault separately, on first use
    /// (`IncrementalStore.destinations(of:relationship:)`).
    public var toManyFaults: Set<String> = []
    /// Attributes whose stored values did not fit their type and were kept as they are, because the store was
    /// opened to read leniently (`docutil dump --lenient`): the object keeps them raw instead of failing to load.
    public var rawKeys: Set<String> = []

    /// Creates a snapshot.
    /// - Parameters:
    ///   - objectID: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - attributes: attribute values by name (absent: null).
    ///   - toOne: to-one destinations by relationship name.
    ///   - toMany: to-many destinations by relationship name.
    public init(
        objectID: ManagedObjectID, version: Int64 = 1, attributes: [String: AttributeValue] = [:],
        toOne: [String: ManagedObjectID?] = [:], toMany: [String: [ManagedObjectID]] = [:]
    ) {
        self.objectID = objectID
        self.version = version
        self.named = attributes
        self.toOne = toOne
        self.toMany = toMany
    }

    /// Creates a snapshot whose attribute values are held by the slots of the entity's layout.
    /// - Parameters:
    ///   - objectID: the object.
    ///   - version: its stored version (`Z_OPT`).
    ///   - layout: the layout of the object's entity.
    ///   - values: one value per attribute of the layout, in its order (``AttributeValue/null`` for nil and for
    ///     transient attributes).
    package init(objectID: ManagedObjectID, version: Int64, layout: EntityLayout, values: [AttributeValue]) {
        self.objectID = objectID
        self.version = version
        self.named = [:]
        self.slotted = SlotValues(layout: layout, values: values)
        self.toOne = [:]
        self.toMany = [:]
    }

    /// Whether two snapshots hold the same object, version, values and relationships (however their values are held).
    /// - Parameters:
    ///   - lhs: a snapshot.
    ///   - rhs: another.
    /// - Returns: `true` when they are equal.
    public static func == (lhs: ObjectSnapshot, rhs: ObjectSnapshot) -> Bool {
        lhs.objectID == rhs.objectID && lhs.version == rhs.version && lhs.toOne == rhs.toOne
            && lhs.toMany == rhs.toMany && lhs.toManyFaults == rhs.toManyFaults && lhs.rawKeys == rhs.rawKeys
            && lhs.attributes == rhs.attributes
    }

    /// Hashes what `==` compares.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(version)
        hasher.combine(attributes)
        hasher.combine(toOne)
        hasher.combine(toMany)
        hasher.combine(toManyFaults)
        hasher.combine(rawKeys)
    }

    /// Takes the changed properties of an update, and its version.
    /// - Parameter update: the update a save wrote.
    public mutating func apply(_ update: ObjectUpdate) {
        for key in update.changedKeys {
            if let value = update.snapshot.attributes[key] {
                attributes[key] = value.isNull ? nil : value
            } else if let destination = update.snapshot.toOne[key] {
                toOne[key] = .some(destination)
            } else if let destinations = update.snapshot.toMany[key] {
                toMany[key] = destinations
                toManyFaults.remove(key)
            }
        }
        version = update.snapshot.version
    }

    /// The value of an attribute; ``AttributeValue/null`` when absent.
    /// - Parameter name: the attribute's name.
    public subscript(attribute name: String) -> AttributeValue {
        if let slotted {
            guard let slot = slotted.layout.attributeSlot(named: name), slot < slotted.values.count else {
                return .null
            }
            return slotted.values[slot]
        }
        return named[name] ?? .null
    }
}

/// Attribute values held by the slots of an entity layout (see `ObjectSnapshot.slotted`).
package struct SlotValues: Sendable {
    /// The layout the values follow.
    package let layout: EntityLayout
    /// One value per attribute of the layout.
    package let values: [AttributeValue]

    /// The values by name, as ``ObjectSnapshot/attributes`` holds them: stored attributes only, nil left out.
    var dictionary: [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        result.reserveCapacity(layout.storedAttributes.count)
        for (slot, name, _) in layout.storedAttributes where slot < values.count && !values[slot].isNull {
            result[name] = values[slot]
        }
        return result
    }
}
