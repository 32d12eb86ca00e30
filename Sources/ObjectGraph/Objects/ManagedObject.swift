import Foundation

/// One relationship of one object: loaded objects, or the IDs a snapshot gave that are turned into objects on first
/// use.
enum RelationshipSlot {
    case toOne(ManagedObject?)
    case toMany(ObjectCollection)
    case unresolvedToOne(ManagedObjectID?)
    case unresolvedToMany([ManagedObjectID])
    /// A to-many relationship not loaded yet: its destinations are read on first use.
    case toManyFault
}

/// An object of the graph: an instance of an entity, living in one context.
///
/// Any entity works with this class itself (values by key), and an app may subclass it with typed properties
/// that read and write through the same change tracking:
///
/// ```swift
/// final class Book: ManagedObject {
///     var title: String? {
///         get { self["title"] }
///         set { self["title"] = newValue }
///     }
/// }
/// ```
///
/// Values live in fixed slots laid out by the entity (see ``EntityLayout``). An object fetched from a store starts as
/// a fault — identity only — and fills its slots on first access. Objects are confined to their context's isolation
/// domain; pass ``objectID`` between domains.
open class ManagedObject: KeyValueCoding, CustomStringConvertible {
    /// The entity's layout: its properties and slots.
    public let entity: EntityLayout
    /// The object's ID: temporary until it is first saved.
    public internal(set) var objectID: ManagedObjectID
    /// The context the object lives in (`nil` once the context is gone or the object was removed from it).
    public internal(set) weak var managedObjectContext: ManagedObjectContext?

    var storage: AttributeStorage?
    var relationshipSlots: ContiguousArray<RelationshipSlot> = []
    var flags: Flags = []
    /// The store version of the values the object was filled with (Core Data's `Z_OPT`).
    var storeVersion: Int64 = 0
    var observers: ObjectObservers?

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let inserted = Flags(rawValue: 1)
        static let deleted = Flags(rawValue: 2)
        static let changed = Flags(rawValue: 4)
        static let tornDown = Flags(rawValue: 8)
    }

    /// Creates an object of `entity`; the context calls this for fetched objects and for inserts.
    public required init(layout: EntityLayout, objectID: ManagedObjectID) {
        self.entity = layout
        self.objectID = objectID
    }

    deinit {
        storage?.free(layout: entity)
    }

    // MARK: - State

    /// Whether the object's values are not loaded yet.
    public var isFault: Bool { storage == nil && !flags.contains(.tornDown) }
    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { flags.contains(.inserted) }
    /// Whether the object was deleted and not yet saved.
    public var isDeleted: Bool { flags.contains(.deleted) }
    /// Whether the object has unsaved changes (inserted, deleted or changed).
    public var hasChanges: Bool { !flags.isDisjoint(with: [.inserted, .deleted, .changed]) }
    /// The entity's name.
    public var entityName: String { entity.name }

    public var description: String {
        "<\(entity.name) \(objectID)\(isFault ? " fault" : "")>"
    }

    /// Loads the values of a fault.
    func fireFault() {
        guard storage == nil else { return }
        let storage = AttributeStorage(layout: entity)
        self.storage = storage
        relationshipSlots = ContiguousArray(
            entity.relationships.map { $0.isToMany ? .unresolvedToMany([]) : .unresolvedToOne(nil) })
        if let context = managedObjectContext, !objectID.isTemporary {
            context.fulfillFault(self)
        }
    }

    /// Fills the slots from a snapshot (used when a fault fires and when an object is refreshed).
    func fill(from snapshot: ObjectSnapshot) {
        if storage == nil {
            storage = AttributeStorage(layout: entity)
            relationshipSlots = ContiguousArray(
                entity.relationships.map { $0.isToMany ? .unresolvedToMany([]) : .unresolvedToOne(nil) })
        }
        for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
            let value = snapshot[attribute: attribute.name]
            storage!.set(i, (try? value.converted(to: attribute.type)) ?? .null, layout: entity)
        }
        for (i, relationship) in entity.relationships.enumerated() where !relationship.isTransient {
            if relationship.isToMany {
                relationshipSlots[i] =
                    snapshot.toManyFaults.contains(relationship.name)
                    ? .toManyFault : .unresolvedToMany(snapshot.toMany[relationship.name] ?? [])
            } else {
                relationshipSlots[i] = .unresolvedToOne(snapshot.toOne[relationship.name] ?? nil)
            }
        }
        storeVersion = snapshot.version
    }

    /// Turns the object back into a fault, dropping its values.
    func turnIntoFault() {
        storage?.free(layout: entity)
        storage = nil
        relationshipSlots = []
    }

    /// Clears every slot, breaking reference cycles, when the object leaves its context.
    func tearDown() {
        turnIntoFault()
        flags.insert(.tornDown)
        managedObjectContext = nil
    }

    // MARK: - Lifecycle hooks

    /// Called once when the object is inserted into a context; set initial values here with primitive setters.
    open func awakeFromInsert() {}
    /// Called when a fault is filled from its store.
    open func awakeFromFetch() {}
    /// Called before the object is saved.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is about to be deleted (before delete rules run).
    open func prepareForDeletion() {}
    /// Extra checks before an inserted object is saved; throw a ``ObjectValidationError`` to refuse.
    open func validateForInsert() throws(ObjectValidationError) {}
    /// Extra checks before a changed object is saved.
    open func validateForUpdate() throws(ObjectValidationError) {}
    /// Extra checks before a deleted object is saved.
    open func validateForDelete() throws(ObjectValidationError) {}
    /// A per-key validator, called for every property at save: throw a ``ObjectValidationError`` to refuse the value.
    open func validateValue(_ value: PredicateValue, forKey key: String) throws(ObjectValidationError) {}
}
