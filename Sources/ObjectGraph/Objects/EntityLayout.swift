import Foundation

/// An entity as its objects see it — Core Data's `NSEntityDescription` at run time: the entity's description
/// resolved with inheritance (every attribute and relationship, inherited ones first, so an inherited property has
/// the same slot in every sub-entity) and the fixed byte layout of attribute values.
///
/// ``ManagedObject/entity`` is one of these. ``declaration`` is the entity as the model file declares it (its own
/// properties only). Built once per model; immutable and shared by every object of the entity.
public final class EntityLayout: Sendable {
    /// The entity's name.
    public let name: String
    /// The entity as the model declares it: its own properties, parent name, constraints, indexes and user info.
    public let declaration: EntityDescription
    /// Every attribute, inherited first; the index is the attribute's slot.
    public let attributes: [AttributeDescription]
    /// Every relationship, inherited first; the index is the relationship's slot.
    public let relationships: [RelationshipDescription]
    /// The root of the entity's inheritance hierarchy.
    public let rootName: String
    /// The entity and all its sub-entities.
    public let kindNames: Set<String>
    /// The parent chain, nearest first.
    public let ancestorNames: [String]
    /// The model's composites by name, for the values of composite attributes.
    public let composites: [String: CompositeDescription]

    /// Each attribute's slot, by name.
    package let attributeIndex: NameIndex
    let relationshipIndex: NameIndex
    /// The attributes that are stored (not transient): slot, name and type, without copying descriptions in loops
    /// that run once per object.
    let storedAttributes: [(slot: Int, name: String, type: AttributeType)]
    /// The slots of the stored attributes, for loops that need nothing else of them.
    let storedAttributeSlots: [Int]
    /// The slots of the transient attributes.
    let transientAttributeSlots: [Int]
    /// The attributes with a default value, by slot: what a new object starts with (no description copied per
    /// object).
    let defaultValues: [(slot: Int, value: AttributeValue)]
    /// The type of each attribute, by slot.
    package let attributeTypes: [AttributeType]
    /// The stored attributes computed from a derivation expression (usually none), for saves.
    let derivedAttributes: [AttributeDescription]
    /// The relationships that are stored: slot, name, and whether each is to-many.
    let storedRelationships: [(slot: Int, name: String, isToMany: Bool)]
    /// Each relationship's shape, by slot: whether it is to-many and whether it is stored (not transient).
    let relationshipShapes: [(isToMany: Bool, isStored: Bool)]
    /// A set of one name for each attribute, by slot, and for each relationship, by slot after the attributes': what
    /// a save's update of one changed property lists as its changed keys (made once, not hashed per object).
    let singleNameSets: [Set<String>]
    /// Each relationship's inverse, by slot (nil when it has none).
    let inverseNames: [String?]
    /// The relationships a delete acts on (Nullify and Cascade), by slot: what deleting an object reads, without
    /// copying a description per object.
    let deletePropagation: [(slot: Int, rule: DeleteRule, isToMany: Bool)]
    /// The slots of the relationships whose delete rule is Deny: the only ones a save's check of a deleted object
    /// reads.
    let denySlots: [Int]
    /// The slots of the attributes the model gives a rule a value can break (required, bounds, lengths, pattern):
    /// the only values a save's validation of a plain object reads.
    let ruledAttributeSlots: [Int]
    /// The slots of the relationships a save's validation checks by themselves (a count bound, a required
    /// destination).
    let ruledRelationshipSlots: [Int]
    let slots: [AttributeSlot]
    /// The slots whose values hold references (strings, data, URLs, other values): the only ones a copy retains and
    /// a release lets go.
    let referenceSlots: [AttributeSlot]
    /// The size of an object's value buffer: the attributes, then the relationship slots, then the word that names the
    /// buffer's owner while an object borrows it (see ``AttributeStorage/lender(layout:)``).
    let storageSize: Int
    let nullBytes: Int
    /// Where the relationship slots start in an object's value buffer, and how many there are.
    let relationshipOffset: Int
    let relationshipCount: Int
    /// Where the word that names a borrowed buffer's owner is (null in every buffer nothing borrows).
    let lenderOffset: Int
    /// The alignment of an object's value buffer: the largest of its slots' (a larger one than `malloc` gives by
    /// itself would make every allocation an aligned one, which costs more).
    let storageAlignment: Int
    /// A value buffer with every attribute null and every relationship slot pointing nowhere, copied as bytes into each
    /// new one (its values hold no references, so a copy of its bytes is a buffer of its own). Written once here,
    /// only read after.
    nonisolated(unsafe) let emptyStorage: UnsafeMutableRawPointer

    init(
        entity: EntityDescription, attributes: [AttributeDescription], relationships: [RelationshipDescription],
        ancestors: [String], kinds: Set<String>, composites: [String: CompositeDescription] = [:]
    ) {
        self.composites = composites
        name = entity.name
        declaration = entity
        self.attributes = attributes
        self.relationships = relationships
        rootName = ancestors.last ?? entity.name
        kindNames = kinds
        ancestorNames = ancestors
        attributeIndex = NameIndex(attributes.map(\.name))
        relationshipIndex = NameIndex(relationships.map(\.name))
        attributeTypes = attributes.map(\.type)
        derivedAttributes = attributes.filter { !$0.isTransient && !($0.derivationExpression ?? "").isEmpty }
        storedAttributes = attributes.enumerated().filter { !$0.element.isTransient }.map {
            ($0.offset, $0.element.name, $0.element.type)
        }
        storedAttributeSlots = storedAttributes.map(\.slot)
        transientAttributeSlots = attributes.indices.filter { attributes[$0].isTransient }
        defaultValues = attributes.indices.filter { !attributes[$0].defaultValue.isNull }.map {
            ($0, attributes[$0].defaultValue)
        }
        storedRelationships = relationships.enumerated().filter { !$0.element.isTransient }.map {
            ($0.offset, $0.element.name, $0.element.isToMany)
        }
        relationshipShapes = relationships.map { ($0.isToMany, !$0.isTransient) }
        inverseNames = relationships.map(\.inverseName)
        singleNameSets = attributes.map { [$0.name] } + relationships.map { [$0.name] }
        deletePropagation = relationships.indices.filter {
            relationships[$0].deleteRule == .nullify || relationships[$0].deleteRule == .cascade
        }.map { ($0, relationships[$0].deleteRule, relationships[$0].isToMany) }
        denySlots = relationships.indices.filter { relationships[$0].deleteRule == .deny }
        ruledAttributeSlots = attributes.indices.filter { ManagedObjectContext.attributeHasRules(attributes[$0]) }
        ruledRelationshipSlots = relationships.indices.filter {
            let relationship = relationships[$0]
            return relationship.isToMany
                ? relationship.minCount > 0 || relationship.maxCount > 0
                : !relationship.isOptional && !relationship.isTransient
        }
        nullBytes = (attributes.count + 7) / 8
        var offset = nullBytes
        var slots: [AttributeSlot] = []
        for attribute in attributes {
            let kind = AttributeSlot.Kind(attribute.type)
            offset = (offset + kind.alignment - 1) / kind.alignment * kind.alignment
            slots.append(AttributeSlot(kind: kind, offset: offset))
            offset += kind.size
        }
        self.slots = slots
        referenceSlots = slots.filter {
            switch $0.kind {
            case .string, .data, .url, .value: true
            default: false
            }
        }
        // The relationship slots follow the attributes in the same buffer: one allocation an object, not two.
        let alignment = MemoryLayout<RelationshipSlot>.alignment
        relationshipOffset = (offset + alignment - 1) / alignment * alignment
        relationshipCount = relationships.count
        // (A relationship slot's alignment is a pointer's: the word after them is aligned.)
        lenderOffset = relationshipOffset + relationshipCount * MemoryLayout<RelationshipSlot>.stride
        storageSize = lenderOffset + MemoryLayout<UnsafeRawPointer?>.size
        storageAlignment = slots.reduce(alignment) { max($0, $1.kind.alignment) }
        emptyStorage = AttributeStorage.makeEmpty(
            slots: slots, size: storageSize, alignment: storageAlignment, relationshipOffset: relationshipOffset,
            relationshipCount: relationshipCount)
    }

    deinit { AttributeStorage.deallocate(emptyStorage) }

    /// Whether the entity is abstract (objects can be made only of its sub-entities).
    public var isAbstract: Bool { declaration.isAbstract }

    /// The parent entity's name, if the entity has one.
    public var superentityName: String? { ancestorNames.first }

    /// The entity's user info, as the model declares it.
    public var userInfo: [String: String] { declaration.userInfo }

    /// Every attribute, inherited ones included, by name.
    public var attributesByName: [String: AttributeDescription] {
        attributeIndex.mapValues { attributes[$0] }
    }

    /// Every relationship, inherited ones included, by name.
    public var relationshipsByName: [String: RelationshipDescription] {
        relationshipIndex.mapValues { relationships[$0] }
    }

    /// The attribute called `name`, declared here or inherited.
    /// - Parameter name: The attribute's name.
    /// - Returns: Its description, or `nil` when the entity has no such attribute.
    public func attribute(named name: String) -> AttributeDescription? {
        attributeIndex[name].map { attributes[$0] }
    }

    /// The relationship called `name`, declared here or inherited.
    /// - Parameter name: The relationship's name.
    /// - Returns: Its description, or `nil` when the entity has no such relationship.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipIndex[name].map { relationships[$0] }
    }

    /// The slot of an attribute.
    /// - Parameter name: the attribute's name.
    /// - Returns: its slot (its index in ``attributes``), or `nil` when the entity has no such attribute.
    public func attributeSlot(named name: String) -> Int? { attributeIndex[name] }

    /// The slot of a relationship.
    /// - Parameter name: the relationship's name.
    /// - Returns: its slot (its index in ``relationships``), or `nil` when the entity has no such relationship.
    public func relationshipSlot(named name: String) -> Int? { relationshipIndex[name] }

    /// `value` converted losslessly to the type of the attribute at `index` (composite values member by member).
    /// - Parameters:
    ///   - value: the value.
    ///   - index: the attribute's slot.
    /// - Returns: the value, of the attribute's type.
    /// - Throws: ``ValueConversionError`` when it does not fit.
    public func converted(_ value: AttributeValue, forAttributeAt index: Int) throws(ValueConversionError)
        -> AttributeValue
    {
        // A value already of the attribute's type (the rule for values read from a store) is itself.
        if let type = value.type, type != .composite, type != .undefined, type == attributeTypes[index] { return value }
        return try AttributeValue.converted(value, to: attributes[index], composites: composites)
    }

    /// Whether objects of this entity are also of kind `entityName` (the entity itself or an ancestor).
    /// - Parameter entityName: an entity name.
    /// - Returns: `true` for the entity itself or one of its ancestors.
    public func isKind(of entityName: String) -> Bool {
        entityName == name || ancestorNames.contains(entityName)
    }
}

/// An attribute with its slot in an entity's layout, held by reference: loops that run once per value read it
/// without copying the attribute's description.
package final class SlottedAttribute: Sendable {
    /// The attribute's slot.
    package let slot: Int
    /// The attribute.
    package let attribute: AttributeDescription
    /// The attribute's name (read without copying its description).
    package let name: String
    /// The attribute's type (read without copying its description: `attribute.type` copies, and retains every
    /// string of, the whole description).
    package let type: AttributeType

    /// Pairs an attribute with its slot.
    /// - Parameters:
    ///   - slot: the slot.
    ///   - attribute: the attribute.
    package init(slot: Int, attribute: AttributeDescription) {
        self.slot = slot
        self.attribute = attribute
        name = attribute.name
        type = attribute.type
    }
}
