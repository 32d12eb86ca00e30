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

    /// A relationship that points nowhere yet: no destination, or none of many.
    static func empty(isToMany: Bool) -> RelationshipSlot { isToMany ? .unresolvedToMany([]) : .unresolvedToOne(nil) }
}

/// An object's relationship slots, where they live: in its value buffer after the attributes (none while the object
/// is a fault). Each access finds the buffer anew, so a slot is never reached through a buffer since let go.
struct RelationshipSlots {
    unowned(unsafe) let object: ManagedObject

    /// The number of slots: the entity's relationships, or 0 for a fault.
    var count: Int { object.storage == nil ? 0 : object.entity.relationshipCount }
    var indices: Range<Int> { 0..<count }

    subscript(index: Int) -> RelationshipSlot {
        get { slot(index).pointee }
        nonmutating set { slot(index).pointee = newValue }
    }

    private func slot(_ index: Int) -> UnsafeMutablePointer<RelationshipSlot> {
        guard let storage = object.storage, index >= 0, index < object.entity.relationshipCount else {
            preconditionFailure("relationship slot \(index) of \(object.objectID) is out of range")
        }
        return storage.relationshipSlot(index, layout: object.entity)
    }
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
    /// The object's entity: its description resolved with inheritance (every attribute and relationship), as
    /// Core Data's `entity`; ``EntityLayout/declaration`` is the entity as the model file declares it.
    public let entity: EntityLayout
    /// The object's ID: temporary until it is first saved. A fault a fetch made from its store's key makes its ID
    /// the first time it is asked for.
    public internal(set) var objectID: ManagedObjectID {
        get {
            if case .made(let id) = identity { return id }
            return makeObjectID()
        }
        set {
            if case .made = identity {} else { packed &= 0xFF }
            identity = .made(newValue)
        }
    }

    /// The object's ID, or what a fault made from a key, or an inserted object, makes it from.
    enum Identity {
        /// The ID.
        case made(ManagedObjectID)
        /// A permanent ID not made yet: its store and entity (its key is kept in ``packed``, above the flags).
        case key(ObjectIDPrefix)
        /// A temporary ID not made yet (its number is kept in ``packed``, above the flags): an inserted object's,
        /// made when asked for (a save gives most a permanent one before anything asks).
        case temporary
    }

    /// The number of the object's temporary ID, made or not; nil once the object has a permanent ID (read without
    /// making the ID).
    var temporaryNumber: UInt64? {
        switch identity {
        case .made(let id): id.temporaryIdentifier
        case .key: nil
        case .temporary: UInt64(bitPattern: pendingKey)
        }
    }

    /// Whether the object's ID is temporary (``objectID`` `.isTemporary`, without making the ID).
    var hasTemporaryID: Bool { temporaryNumber != nil }

    /// (Read for every object in every change, fetch and save: unchecked for exclusivity; it is replaced only when a
    /// temporary ID becomes permanent, or when a key's ID is made.)
    @exclusivity(unchecked) var identity: Identity
    /// The context the object lives in: `nil` once the context is gone, or the object was removed from it (its
    /// deletion saved, its unsaved insert undone or rolled back), as Core Data's is once an object is deleted from
    /// its context.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { flags.contains(.gone) ? nil : linkedContext }
        set { contextLink = newValue?.link }
    }
    /// The context the object was last in while that context lives, even once the object has left its objects: where
    /// an undo that brings it back, and failures kept for the next save, go.
    var linkedContext: ManagedObjectContext? {
        guard let contextLink, contextLink.isAlive else { return nil }
        return contextLink.context
    }
    /// The way back to the context (not a weak reference: see ``ContextLink``).
    var contextLink: ContextLink?

    /// The context without a retain, for work that cannot let it go (valid where the context lives, as
    /// ``contextLink`` is).
    var unretainedContext: Unmanaged<ManagedObjectContext>? {
        guard let contextLink, contextLink.isAlive else { return nil }
        return Unmanaged.passUnretained(contextLink.context)
    }

    var storage: AttributeStorage?
    /// The relationship slots (in ``storage``, after the attributes).
    var relationshipSlots: RelationshipSlots { RelationshipSlots(object: self) }
    /// The object's state (set and tested once or more per object in every change, fetch and save), kept in the
    /// low byte of ``packed``.
    var flags: Flags {
        @inline(__always) get { Flags(rawValue: UInt8(truncatingIfNeeded: packed)) }
        @inline(__always) set { packed = (packed & ~0xFF) | UInt64(newValue.rawValue) }
    }
    /// ``flags`` in the low byte and, while ``identity`` is a key's, the key in the 56 bits above (an object stays
    /// within 72 bytes, a smaller allocation than 80: a tenth of the time of a large fetch, in memory traffic). Unchecked
    /// for exclusivity: each access is a whole read or an in-place update that calls nothing.
    @exclusivity(unchecked) private var packed: UInt64 = 0
    /// The key of a fault made from a key whose ID is not made yet (see ``Identity/key(_:)``).
    private var pendingKey: Int64 { Int64(bitPattern: packed) >> 8 }
    /// Whether `key` fits beside the flags (see ``packed``): keys that stores count up from 1 do; an object with
    /// another key makes its ID at once.
    static func keyFitsBesideFlags(_ key: Int64) -> Bool { key >= -(1 << 55) && key < 1 << 55 }
    /// The store version of the values the object was filled with (Core Data's `Z_OPT`); 0 for a fault.
    @exclusivity(unchecked) var storeVersion: Int64 = 0
    var observers: ObjectObservers?

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let inserted = Flags(rawValue: 1)
        static let deleted = Flags(rawValue: 2)
        static let changed = Flags(rawValue: 4)
        static let tornDown = Flags(rawValue: 8)
        /// Some attributes hold raw values from a lenient read (kept in the context's side table).
        static let hasRawValues = Flags(rawValue: 16)
        /// Out of the context's objects but not torn down: its saved deletion, or its unsaved insert, undone back
        /// past (an undo may still set its properties, which change nothing a save writes; an undo that brings it
        /// back inserts it again).
        static let gone = Flags(rawValue: 32)
        /// ``storage`` is borrowed from the ``SlotValues`` its lender word names (see ``SlotValues/lend()``): its
        /// attributes are copied before one changes (``ownedStorage(_:)``).
        static let borrowsStorage = Flags(rawValue: 64)
    }

    /// Creates an object of `entity`; the context calls this for fetched objects and for inserts. A fetch calls it
    /// while it reads rows, with the coordinator locked: a subclass's initializer must not use the coordinator (do
    /// such work in ``awakeFromFetch()`` or ``awakeFromInsert()``).
    /// - Parameters:
    ///   - layout: the object's entity.
    ///   - objectID: its ID.
    public required init(layout: EntityLayout, objectID: ManagedObjectID) {
        self.entity = layout
        self.identity = .made(objectID)
    }

    /// A fault of this class itself (not a subclass: their initializer is given an ID) whose ID is made when first
    /// asked for.
    /// - Parameters:
    ///   - layout: the object's entity.
    ///   - prefix: its store and entity (`layout`'s).
    ///   - key: its key in the store.
    init(layout: EntityLayout, prefix: ObjectIDPrefix, key: Int64) {
        self.entity = layout
        if Self.keyFitsBesideFlags(key) {
            self.identity = .key(prefix)
            self.packed = UInt64(bitPattern: key) << 8
        } else {
            self.identity = .made(prefix.objectID(key))
        }
    }

    /// An inserted object of this class itself (not a subclass: their initializer is given an ID) with a new temporary
    /// number, whose ID is made when first asked for.
    /// - Parameter layout: the object's entity.
    init(insertingWith layout: EntityLayout) {
        self.entity = layout
        self.identity = .temporary
        // (A process would need 2^55 inserts to reach a number that does not fit.)
        let number = ManagedObjectID.nextTemporaryNumber()
        if number < 1 << 55 {
            self.packed = number << 8
        } else {
            self.identity = .made(ManagedObjectID(entityName: layout.name, temporary: number))
        }
    }

    /// Makes the ID of a fault made from a key, or of an inserted object, and keeps it.
    @inline(never)
    private func makeObjectID() -> ManagedObjectID {
        let id: ManagedObjectID
        switch identity {
        case .made(let made): return made
        case .key(let prefix): id = prefix.objectID(pendingKey)
        case .temporary: id = ManagedObjectID(entityName: entity.name, temporary: UInt64(bitPattern: pendingKey))
        }
        identity = .made(id)
        packed &= 0xFF
        return id
    }

    deinit {
        releaseStorage()
    }

    /// Lets go of the value buffer: frees it, or, when it is borrowed, lets its relationship slots point nowhere and
    /// ends the loan (the lender frees it when it goes).
    private func releaseStorage() {
        guard let storage else { return }
        self.storage = nil
        guard flags.contains(.borrowsStorage) else {
            storage.free(layout: entity)
            return
        }
        flags.remove(.borrowsStorage)
        storage.clearRelationships(layout: entity)
        let lender = storage.lender(layout: entity)
        storage.setLender(nil, layout: entity)
        if let lender {
            lender._withUnsafeGuaranteedRef { $0.endLoan() }
            lender.release()
        }
    }

    /// The value buffer ready for an attribute to change: `storage` itself unless it is borrowed, when the object
    /// takes it back (nothing else holds its lender any more) or copies its attributes into a buffer of its own
    /// (relationship slots moved, nothing retained twice); the lender's values stay as they were.
    @inline(__always) func ownedStorage(_ storage: AttributeStorage) -> AttributeStorage {
        flags.contains(.borrowsStorage) ? endBorrowing(storage) : storage
    }

    @inline(never) private func endBorrowing(_ storage: AttributeStorage) -> AttributeStorage {
        flags.remove(.borrowsStorage)
        guard let unmanaged = storage.lender(layout: entity) else { return storage }
        storage.setLender(nil, layout: entity)
        var lender = unmanaged.takeRetainedValue()
        if isKnownUniquelyReferenced(&lender) {
            lender.relinquishStorage()
            return storage
        }
        let own = storage.copy(layout: entity)
        storage.moveRelationships(to: own, layout: entity)
        lender.endLoan()
        self.storage = own
        return own
    }

    /// Borrows the buffer of `values`, which lent it (``SlotValues/lend()``) or were made over it
    /// (``SlotValues/init(lendingBackTo:layout:)``): the object holds a retain on them in the buffer's lender word.
    private func borrow(_ buffer: AttributeStorage, from values: SlotValues) {
        buffer.setLender(Unmanaged.passRetained(values), layout: entity)
        flags.insert(.borrowsStorage)
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
    /// The store version the object's values were read at (Core Data's `Z_OPT`; 0 for a fault or a new object).
    public var storedVersion: Int64 { storeVersion }

    /// A readable description, as printed in messages.
    public var description: String {
        "<\(entity.name) \(objectID)\(isFault ? " fault" : "")>"
    }

    /// Loads the values of a fault from its store (or the coordinator's row cache).
    ///
    /// - Throws: ``ObjectGraphError`` `faultNotFulfilled` when the row is gone or the store fails (the object stays
    ///   a fault, so nothing is invented for it), `invalidatedObject` when the object left its context.
    @inline(__always)
    func fireFault() throws(ObjectGraphError) {
        // (The test inlined where values are read and set; the rest out of line.)
        guard storage == nil else { return }
        try fireFaultFromStore()
    }

    /// ``fireFault()`` of an object that holds no values.
    @inline(never)
    private func fireFaultFromStore() throws(ObjectGraphError) {
        guard !flags.contains(.tornDown) else {
            throw ObjectGraphError(
                .invalidatedObject,
                "\(objectID) is no longer in a context (the context was reset or released, or its insert was undone "
                    + "or rolled back)", objectID: objectID)
        }
        guard let context = linkedContext, !hasTemporaryID else {
            // A new object made outside a context (or one whose context is gone before its first save): it has no
            // stored values, only the ones it is given.
            if linkedContext == nil && hasTemporaryID {
                allocateEmptyStorage()
                return
            }
            throw ObjectGraphError(
                .invalidatedObject, "\(objectID) is no longer in a context", objectID: objectID)
        }
        try context.fulfillFault(self)
    }

    /// Gives a new object empty storage: every attribute null, every relationship empty.
    /// - Returns: the storage.
    @discardableResult
    func allocateEmptyStorage() -> AttributeStorage {
        let fresh = AttributeStorage(layout: entity)
        // By the layout's shapes: no relationship description copied per object.
        for (i, shape) in entity.relationshipShapes.enumerated() {
            fresh.relationshipSlot(i, layout: entity).pointee =
                shape.isToMany ? .toMany(ObjectCollection()) : .toOne(nil)
        }
        storage = fresh
        return fresh
    }

    /// Fills the slots from a snapshot (used when a fault fires and when an object is refreshed).
    ///
    /// Every stored value is converted to its attribute's type first; a value that does not fit fails the whole
    /// fill (the object keeps its previous state) unless the store kept it raw on purpose (``ObjectSnapshot/rawKeys``,
    /// a lenient read), in which case it is kept as it is, never replaced by nil.
    /// - Parameter adopting: whether the snapshot is let go once the object is filled (a fetched row nothing caches):
    ///   the object then takes its values' buffer when their maker allows it, instead of copying it.
    /// - Throws: ``ObjectGraphError`` `wrongValueType` naming the entity, object and key.
    func fill(from snapshot: ObjectSnapshot, adopting: Bool = false) throws(ObjectGraphError) {
        // A snapshot read by this entity's slots is copied as a buffer, nothing looked up by name.
        let slotted = snapshot.slotted.flatMap { $0.layout === entity ? $0 : nil }
        if storage == nil, let slotted, !snapshot.hasRawKeys {
            // A fault (the usual case: a fetch): its values are the snapshot's buffer, taken when nothing else reads
            // the values again, borrowed when something does (the row cache, a store's objects: copied only once an
            // attribute changes), else copied; those not in their slot's form (copied only) are converted, and the copy
            // let go again if one does not fit, so the object stays a fault.
            let fresh: AttributeStorage
            if adopting, let adopted = slotted.adoptStorage() {
                fresh = adopted
            } else if let lent = slotted.lend() {
                fresh = lent
                borrow(lent, from: slotted)
            } else {
                fresh = slotted.storage.copy(layout: entity)
            }
            for (i, value) in slotted.unfitted {
                do {
                    fresh.set(i, try entity.converted(value, forAttributeAt: i), layout: entity)
                } catch {
                    fresh.free(layout: entity)
                    throw doesNotFit(entity.attributes[i].name, error)
                }
            }
            storage = fresh
            fillRelationships(from: snapshot, fresh: true)
            clearRawValues()
            return
        }
        var converted: [(Int, AttributeValue)] = []
        var raw: [Int: AttributeValue] = [:]
        converted.reserveCapacity(entity.attributes.count)
        for (i, name, _) in entity.storedAttributes {
            let value = slotted.map { i < $0.count ? $0[i] : .null } ?? snapshot[attribute: name]
            if value.isNull {
                converted.append((i, .null))
                continue
            }
            do {
                converted.append((i, try entity.converted(value, forAttributeAt: i)))
            } catch {
                guard snapshot.rawKeys.contains(name) else { throw doesNotFit(name, error) }
                raw[i] = value
                converted.append((i, .null))
            }
        }
        let filled: AttributeStorage
        let fresh = storage == nil
        if let storage {
            filled = ownedStorage(storage)
        } else {
            filled = AttributeStorage(layout: entity)
            storage = filled
        }
        for (i, value) in converted { filled.set(i, value, layout: entity) }
        fillRelationships(from: snapshot, fresh: fresh)
        setRawValues(raw)
    }

    /// The error for a stored value of attribute `name` that does not fit its type.
    private func doesNotFit(_ name: String, _ error: ValueConversionError) -> ObjectGraphError {
        ObjectGraphError(
            .wrongValueType,
            "\(entity.name).\(name) of \(objectID): the stored value does not fit: \(error.description)",
            objectID: objectID)
    }

    /// Fills the relationship slots of the object's buffer (as IDs, resolved when first used) and its version from a
    /// snapshot. A transient relationship keeps what it held when a filled object is filled again (a refresh); in a
    /// `fresh` buffer it starts empty.
    private func fillRelationships(from snapshot: ObjectSnapshot, fresh: Bool) {
        storeVersion = snapshot.version
        guard let storage else { return }
        let slots = storage.relationshipSlot(0, layout: entity)
        // Read in place, through buffers: a fetch fills every row's object here.
        entity.relationshipShapes.withUnsafeBufferPointer { shapes in
            // (The snapshot's list read where it is: bound to a name, it would be copied, two retains and two releases
            // a row.)
            guard snapshot.slottedRelationships?.layout === entity else {
                for i in shapes.indices {
                    let slot = slots + i
                    guard shapes[i].isStored else {
                        if fresh { slot.pointee = .empty(isToMany: shapes[i].isToMany) }
                        continue
                    }
                    let name = entity.relationships[i].name
                    slot.pointee =
                        shapes[i].isToMany
                        ? (snapshot.isToManyFault(name)
                            ? .toManyFault : .unresolvedToMany(snapshot[toMany: name] ?? []))
                        : .unresolvedToOne(snapshot[toOne: name] ?? nil)
                }
                return
            }
            snapshot.slottedRelationships?.values.withUnsafeBufferPointer { values in
                for i in shapes.indices {
                    let slot = slots + i
                    guard shapes[i].isStored, i < values.count else {
                        if fresh || shapes[i].isStored { slot.pointee = .empty(isToMany: shapes[i].isToMany) }
                        continue
                    }
                    switch values[i] {
                    case .toManyFault: slot.pointee = .toManyFault
                    case .toMany(let ids): slot.pointee = .unresolvedToMany(ids)
                    case .toOne(let id): slot.pointee = .unresolvedToOne(id)
                    case .absent: slot.pointee = .empty(isToMany: shapes[i].isToMany)
                    }
                }
            }
        }
    }

    /// Keeps values that do not fit their attributes (from a lenient read) beside the typed slots.
    func setRawValues(_ raw: [Int: AttributeValue]) {
        guard !raw.isEmpty else {
            clearRawValues()
            return
        }
        flags.insert(.hasRawValues)
        linkedContext?.rawValues[ObjectIdentifier(self)] = raw
    }

    /// Drops the raw values a lenient read kept, if any (no dictionary made to say there are none: a fetch asks this
    /// of every object it fills).
    @inline(__always) func clearRawValues() {
        guard flags.contains(.hasRawValues) else { return }
        flags.remove(.hasRawValues)
        linkedContext?.rawValues[ObjectIdentifier(self)] = nil
    }

    /// The raw (unconverted) value of attribute `index`, when a lenient read kept one.
    func rawValue(at index: Int) -> AttributeValue? {
        guard flags.contains(.hasRawValues) else { return nil }
        return linkedContext?.rawValues[ObjectIdentifier(self)]?[index]
    }

    /// The object's value buffer, its fault fired first.
    /// - Throws: ``ObjectGraphError`` when the fault cannot be filled.
    func loadedStorage() throws(ObjectGraphError) -> AttributeStorage {
        try fireFault()
        guard let storage else { throw unfilled() }
        return storage
    }

    /// The object's value buffer, its fault fired first, ready for attributes to change (see ``ownedStorage(_:)``).
    /// - Throws: ``ObjectGraphError`` when the fault cannot be filled.
    func writableStorage() throws(ObjectGraphError) -> AttributeStorage {
        ownedStorage(try loadedStorage())
    }

    /// The object's stored attribute values, as a snapshot of it holds them: its buffer, lent to them (see
    /// ``SlotValues/init(lendingBackTo:layout:)``), or a copy with its transient attributes left null and the raw
    /// values a lenient read kept as they are.
    /// - Throws: ``ObjectGraphError`` when the object is a fault that cannot be filled.
    func storedSlotValues() throws(ObjectGraphError) -> SlotValues {
        let storage = try loadedStorage()
        if !flags.contains(.hasRawValues) {
            // Values not changed since they were lent to the object are those values; an object with no transient
            // attribute lends its buffer to the snapshot (copied when an attribute changes next), no copy made.
            if flags.contains(.borrowsStorage), let lender = storage.lender(layout: entity) {
                return lender.takeUnretainedValue()
            }
            if entity.transientAttributeSlots.isEmpty {
                let values = SlotValues(lendingBackTo: storage, layout: entity)
                borrow(storage, from: values)
                return values
            }
        }
        let values = SlotValues(layout: entity, storage: storage.copy(layout: entity))
        for slot in entity.transientAttributeSlots { values.storage.set(slot, .null, layout: entity) }
        if flags.contains(.hasRawValues), let raw = linkedContext?.rawValues[ObjectIdentifier(self)] {
            for (slot, value) in raw { values.set(value, at: slot) }
        }
        return values
    }

    /// Turns the object back into a fault, dropping its values.
    func turnIntoFault() {
        releaseStorage()
        clearRawValues()
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
    /// Called when a fault is filled from its store; for the objects a fetch fills, once the fetch has read every
    /// row (in the order of its results), so that it may use the context and its stores.
    open func awakeFromFetch() {}
    /// Called before the object is saved.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is about to be deleted (before delete rules run).
    open func prepareForDeletion() {}
    /// Extra checks before an inserted object is saved; throw a ``ObjectValidationError`` to refuse.
    /// - Throws: ``ObjectValidationError`` to refuse the save.
    open func validateForInsert() throws(ObjectValidationError) {}
    /// Extra checks before a changed object is saved.
    /// - Throws: ``ObjectValidationError`` to refuse the save.
    open func validateForUpdate() throws(ObjectValidationError) {}
    /// Extra checks before a deleted object is saved.
    /// - Throws: ``ObjectValidationError`` to refuse the save.
    open func validateForDelete() throws(ObjectValidationError) {}
    /// A per-key validator, called for every property at save: throw a ``ObjectValidationError`` to refuse the value.
    /// - Parameters:
    ///   - value: the value about to be saved.
    ///   - key: the property.
    /// - Throws: ``ObjectValidationError`` to refuse the value.
    open func validateValue(_ value: PredicateValue, forKey key: String) throws(ObjectValidationError) {}
}
