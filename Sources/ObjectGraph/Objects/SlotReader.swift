/// Reads the attribute values of many snapshots of one entity by the slots of its layout, whichever form each
/// snapshot holds them in, for writers that go through every object's values.
///
/// A snapshot held by the layout's slots is read as it is. One held by name is read by walking its dictionary once,
/// each name found among the layout's by comparing strings (a short string compares as two words) rather than by
/// hashing it: a lookup by name per attribute hashed every attribute name of every object (a tenth of a binary save).
package struct SlotReader {
    /// The layout whose slots the values are read into.
    package let layout: EntityLayout
    /// The attributes' names by slot, when few enough to be found by comparing strings rather than hashing them.
    private let names: [String]?
    /// The values of a snapshot held by name, by slot.
    private var scratch: [AttributeValue]
    /// The values of the snapshot read last, by slot: its own array, or `scratch`.
    private var current: [AttributeValue] = []
    /// Whether `current` holds the scratch values (they go back to `scratch` before the next read).
    private var usesScratch = false

    /// A reader for snapshots of the entity of `layout`.
    /// - Parameter layout: The entity's layout.
    package init(layout: EntityLayout) {
        self.layout = layout
        scratch = Array(repeating: .null, count: layout.attributes.count)
        names = layout.attributes.count <= 24 ? layout.attributes.map(\.name) : nil
    }

    /// The slot of attribute `name`: among few names, found by comparing (a dictionary lists its keys in no fixed
    /// order, so there is no place to try first); among many, looked up.
    private func slot(named name: String) -> Int? {
        guard let names else { return layout.attributeSlot(named: name) }
        return names.firstIndex(of: name)
    }

    /// Makes `snapshot` the one ``subscript(_:)`` reads.
    /// - Parameter snapshot: A snapshot of an object of the layout's entity (or of any entity: values are then read by
    ///   name).
    package mutating func read(_ snapshot: ObjectSnapshot) {
        // The scratch values come back from `current` (a move: they stay unshared, so they are changed in place).
        if usesScratch {
            swap(&current, &scratch)
            usesScratch = false
        }
        if let slotted = snapshot.slotted, slotted.layout === layout {
            current = slotted.values
            return
        }
        current = []
        for slot in scratch.indices where !scratch[slot].isNull { scratch[slot] = .null }
        if snapshot.slotted != nil {
            // Held by the slots of another layout: by name.
            for (name, slot) in layout.attributeIndex where slot < scratch.count {
                scratch[slot] = snapshot[attribute: name]
            }
        } else {
            snapshot.forEachNamedAttribute { name, value in
                if let slot = slot(named: name) { scratch[slot] = value }
            }
        }
        swap(&current, &scratch)
        usesScratch = true
    }

    /// The value at `slot` of the snapshot read last (null where it has none).
    /// - Parameter slot: An attribute's slot in the layout.
    package subscript(_ slot: Int) -> AttributeValue {
        slot < current.count ? current[slot] : .null
    }
}
