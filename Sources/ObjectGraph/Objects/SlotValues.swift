import Foundation
import Synchronization

/// Attribute values held by the slots of an entity layout (see `ObjectSnapshot.slotted`), each in its slot's native
/// form in one buffer laid out as a ``ManagedObject``'s own values are: an object filled from them takes the buffer
/// (``adoptStorage()``), borrows it (``lend()``: one object at a time, which copies it before it changes a value) or
/// copies it (its strings, data and URLs retained), nothing converted value by value. Its maker sets its values
/// (``set(_:at:)``) before anything else sees it; never changed after, so snapshots share it.
package final class SlotValues: @unchecked Sendable {
    /// The layout the values follow.
    package let layout: EntityLayout
    /// The values that are in their slots' form (another, empty buffer once an object adopts this one).
    @exclusivity(unchecked) private(set) var storage: AttributeStorage
    /// Whether an object filled from these values may adopt their buffer instead of copying it (see
    /// ``allowAdoption()``).
    @exclusivity(unchecked) var mayBeAdopted = false
    /// Whether the buffer is known to hold no value: the empty one an adoption leaves, until a value is set
    /// (``clear()`` then has nothing to do).
    @exclusivity(unchecked) private var holdsNothing = false
    /// The values that are not (another type than the attribute's, kept raw by a lenient read, or an attribute of a
    /// type with no native form: Undefined, composite), by slot; each is read back as it was given.
    @exclusivity(unchecked) private(set) var unfitted: [(slot: Int, value: AttributeValue)] = []
    /// Whether the layout has transient attributes (whose slots stay null).
    private let hasTransients: Bool
    /// Whether an object borrows the buffer (see ``lend()``): at most one at a time, since it keeps its relationships
    /// in the buffer's relationship slots (which these values never read). Atomic: objects of contexts on other
    /// threads may borrow values the coordinator's row cache holds.
    private let lent = Atomic<Bool>(false)
    /// Whether these values free their buffer when they go (not once the object that borrowed it has taken it back).
    @exclusivity(unchecked) private var ownsStorage = true

    /// Values from one value per attribute of the layout, in its order: `.null` for nil (transient attributes are
    /// left null whatever they are given; a shorter list leaves the rest null).
    /// - Parameters:
    ///   - layout: the layout of the entity.
    ///   - values: the values by slot.
    package init(layout: EntityLayout, values: [AttributeValue]) {
        self.layout = layout
        storage = AttributeStorage(layout: layout)
        hasTransients = !layout.transientAttributeSlots.isEmpty
        values.withUnsafeBufferPointer { values in
            for slot in layout.storedAttributeSlots where slot < values.count && !values[slot].isNull {
                if !storage.storeIfFits(slot, values[slot], layout: layout) { unfitted.append((slot, values[slot])) }
            }
        }
    }

    /// Values with every attribute null, for a store to set one by one as it reads a row.
    /// - Parameter layout: the layout of the entity.
    package init(layout: EntityLayout) {
        self.layout = layout
        storage = AttributeStorage(layout: layout)
        hasTransients = !layout.transientAttributeSlots.isEmpty
    }

    /// Values over `storage`, which they own from now on.
    init(layout: EntityLayout, storage: AttributeStorage) {
        self.layout = layout
        self.storage = storage
        hasTransients = !layout.transientAttributeSlots.isEmpty
    }

    /// Values over the buffer of an object that goes on using it as borrowed (see ``lend()``): a save's snapshot of
    /// an object whose transient attributes are none and whose values are all in their slots, made without a copy.
    /// The object records these values as the buffer's lender.
    init(lendingBackTo storage: AttributeStorage, layout: EntityLayout) {
        self.layout = layout
        self.storage = storage
        hasTransients = !layout.transientAttributeSlots.isEmpty
        lent.store(true, ordering: .relaxed)
    }

    /// Sets the value of a stored attribute: only by the values' maker, before any snapshot holds them. A value set
    /// again replaces the one before; a null makes it null; a transient attribute stays null (a snapshot never
    /// holds one).
    /// - Parameters:
    ///   - value: the value, as it is to be read back.
    ///   - slot: a stored attribute's slot.
    package func set(_ value: AttributeValue, at slot: Int) {
        holdsNothing = false
        if hasTransients, layout.transientAttributeSlots.contains(slot) { return }
        if !unfitted.isEmpty { unfitted.removeAll { $0.slot == slot } }
        if !value.isNull, storage.storeIfFits(slot, value, layout: layout) { return }
        storage.set(slot, .null, layout: layout)
        if !value.isNull { unfitted.append((slot, value)) }
    }

    /// Sets a whole number read from a file for a stored attribute whose slot is still null, when it is exactly a value
    /// of the attribute's type (an integer in range; a boolean 0 or 1; a Double, Float or date that is exactly it):
    /// whether it did. When not, the caller decodes it the long way (and ``set(_:at:)`` what that gives).
    /// - Parameters:
    ///   - value: the number.
    ///   - slot: a stored attribute's slot.
    /// - Returns: whether the value is set.
    package func setInteger(_ value: Int64, at slot: Int) -> Bool {
        holdsNothing = false
        return storage.storeInteger(value, slot, layout: layout)
    }

    /// Sets a floating-point number read from a file, as ``setInteger(_:at:)`` does: for a Double or date attribute,
    /// or a Float one when it is exactly a Float (or NaN).
    /// - Parameters:
    ///   - value: the number.
    ///   - slot: a stored attribute's slot.
    /// - Returns: whether the value is set.
    package func setReal(_ value: Double, at slot: Int) -> Bool {
        holdsNothing = false
        return storage.storeReal(value, slot, layout: layout)
    }

    /// Sets text read from a file, as ``setInteger(_:at:)`` does: for a String attribute, when the bytes are UTF-8.
    /// - Parameters:
    ///   - bytes: the text's bytes.
    ///   - slot: a stored attribute's slot.
    /// - Returns: whether the value is set.
    package func setText(_ bytes: UnsafeBufferPointer<UInt8>, at slot: Int) -> Bool {
        holdsNothing = false
        return storage.storeText(bytes, slot, layout: layout)
    }

    deinit { if ownsStorage { storage.free(layout: layout) } }

    /// Lets an object filled from these values adopt their buffer: for a store that made them for one row and lets
    /// them go (or writes the next row over them) once the row is handed over. (A method: a store's own access to
    /// the flag would be checked for exclusivity on every row.)
    package func allowAdoption() { mayBeAdopted = true }

    /// Hands the buffer to an object filled from these values, which owns it from now on, and starts an empty one:
    /// nil unless the maker allows it (``mayBeAdopted``) and every value is in its slot. Only for values nothing
    /// reads again (a row a fetch lets go once its object is filled).
    func adoptStorage() -> AttributeStorage? {
        guard mayBeAdopted, unfitted.isEmpty, !lent.load(ordering: .acquiring) else { return nil }
        let adopted = storage
        storage = AttributeStorage(layout: layout)
        mayBeAdopted = false
        holdsNothing = true
        return adopted
    }

    /// Lends the buffer to an object filled from these values, which uses it as its own (no copy) until it changes an
    /// attribute, turns into a fault or goes: nil when every value is not in its slot or another object borrows it.
    /// The object writes only the buffer's relationship slots, which these values never read, and copies the
    /// attributes before it changes one (``ManagedObject`` `ownedStorage`); these values stay as they are.
    func lend() -> AttributeStorage? {
        guard unfitted.isEmpty, lent.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        else { return nil }
        return storage
    }

    /// Ends a loan (see ``lend()``): the object let its relationship slots point nowhere again.
    func endLoan() { lent.store(false, ordering: .releasing) }

    /// Hands the buffer back to the object that borrowed it, when nothing else holds these values: they go without
    /// freeing it.
    func relinquishStorage() { ownsStorage = false }

    /// Makes every value null again, for its maker to set the next row's: only while nothing else holds the values
    /// (`isKnownUniquelyReferenced`).
    package func clear() {
        // (After an adoption: nothing set since, nothing kept aside, the fresh buffer as it was made.)
        if holdsNothing { return }
        storage.clearValues(layout: layout)
        if !unfitted.isEmpty { unfitted.removeAll() }
    }

    /// How many values there are: one per attribute of the layout.
    package var count: Int { layout.attributes.count }

    /// The value at `slot` (below ``count``), as it was given.
    package subscript(slot: Int) -> AttributeValue {
        if !unfitted.isEmpty, let kept = unfitted.first(where: { $0.slot == slot }) { return kept.value }
        return storage.value(slot, layout: layout)
    }

    /// A value as a store writes a number or a text: the slot's value when it is null, a whole number (Integer 16, 32
    /// or 64; a boolean as 0 or 1), a floating-point number (Double, Float, a date as seconds since 2001) or a string;
    /// ``Scalar/other`` for any other value (read it with the subscript), and for one given in another form.
    package enum Scalar {
        /// No value.
        case null
        /// A whole number.
        case integer(Int64)
        /// A floating-point number.
        case real(Double)
        /// A string.
        case text(String)
        /// Another kind of value: read it with ``SlotValues/subscript(_:)``.
        case other
    }

    /// The value at `slot` (below ``count``) as a ``Scalar``, read where it is (no ``AttributeValue`` made).
    package func scalar(at slot: Int) -> Scalar {
        if !unfitted.isEmpty, unfitted.contains(where: { $0.slot == slot }) { return .other }
        return storage.scalar(slot, layout: layout)
    }

    /// The value at `slot` as ``scalar(at:)`` gives it, but read where it is: nothing retained, no string copied
    /// (a string is ``InPlace/text``: read its bytes with ``withText(at:_:)``). For a store that writes many rows.
    package enum InPlace {
        /// No value.
        case null
        /// A whole number.
        case integer(Int64)
        /// A floating-point number.
        case real(Double)
        /// A string.
        case text
        /// Another kind of value: read it with ``SlotValues/subscript(_:)``.
        case other
    }

    /// The value at `slot` (below ``count``) as an ``InPlace``.
    package func inPlace(at slot: Int) -> InPlace {
        if !unfitted.isEmpty, unfitted.contains(where: { $0.slot == slot }) { return .other }
        return storage.inPlace(slot, layout: layout)
    }

    /// Calls `body` with the UTF-8 bytes of the string at `slot` (one ``inPlace(at:)`` calls ``InPlace/text``), read
    /// where they are; what `body` returns, or nil when the slot holds no string.
    package func withText(at slot: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Int32) -> Int32? {
        storage.withText(slot, layout: layout, body)
    }

    /// The values by name, as ``ObjectSnapshot/attributes`` holds them: stored attributes only, nil left out.
    var dictionary: [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        result.reserveCapacity(layout.storedAttributes.count)
        for (slot, name, _) in layout.storedAttributes {
            let value = self[slot]
            if !value.isNull { result[name] = value }
        }
        return result
    }
}
