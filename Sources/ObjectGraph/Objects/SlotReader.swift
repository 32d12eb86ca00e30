/// Reads the attribute values of many snapshots of one entity by the slots of its layout, whichever form each
/// snapshot holds them in, for writers that go through every object's values.
///
/// A snapshot held by the layout's slots is read as it is. One held by name is read where its values are: its
/// dictionary is walked once, noting where each slot's value is, each name found among the layout's by a guess from
/// its length and first byte checked by one comparison (a lookup by name per attribute hashed every attribute name
/// of every object, a tenth of a binary save; copying the values into slots first retained each one twice more).
package struct SlotReader {
    /// The layout whose slots the values are read into.
    package let layout: EntityLayout
    /// The attributes' names by slot, when few enough to be found by comparing strings rather than hashing them.
    private let names: [String]?
    /// The slot a name probably has, by its length and first byte (16 × 16 places): -1 for none, -2 where two
    /// names share a place. A name found there is still compared whole.
    private let guesses: [Int16]
    /// The values of the snapshot read last, when it holds them by this layout's slots.
    private var slotted: SlotValues?
    /// The values of the snapshot read last, by slot, when it holds them by another layout's slots (copied here by
    /// name).
    private var current: [AttributeValue] = []
    /// The dictionary of the snapshot read last, when it holds its values by name, and where each slot's value is
    /// in it: values are read where they are, not copied into slots first.
    private var named: [String: AttributeValue] = [:]
    private var places: [Dictionary<String, AttributeValue>.Index?]
    /// Whether the snapshot read last holds its values by name.
    private var byName = false

    /// A reader for snapshots of the entity of `layout`.
    /// - Parameter layout: The entity's layout.
    package init(layout: EntityLayout) {
        self.layout = layout
        places = Array(repeating: nil, count: layout.attributes.count)
        let names = layout.attributes.count <= 24 ? layout.attributes.map(\.name) : nil
        self.names = names
        var guesses = [Int16](repeating: -1, count: 256)
        for (slot, name) in (names ?? []).enumerated() {
            let place = Self.place(of: name)
            guesses[place] = guesses[place] == -1 ? Int16(slot) : -2
        }
        self.guesses = guesses
    }

    /// Where a name's guess is kept: its length and first byte, four bits of each.
    private static func place(of name: String) -> Int {
        (name.utf8.count & 15) << 4 | Int((name.utf8.first ?? 0) & 15)
    }

    /// The slot of attribute `name`: among few names, found by comparing (a dictionary lists its keys in no fixed
    /// order, so there is no place to try first); among many, looked up.
    private func slot(named name: String) -> Int? {
        guard let names else { return layout.attributeSlot(named: name) }
        let guess = Int(guesses[Self.place(of: name)])
        if guess >= 0 { return names[guess] == name ? guess : nil }
        return guess == -1 ? nil : names.firstIndex(of: name)
    }

    /// Makes `snapshot` the one ``subscript(_:)`` reads.
    /// - Parameter snapshot: A snapshot of an object of the layout's entity (or of any entity: values are then read by
    ///   name).
    package mutating func read(_ snapshot: ObjectSnapshot) {
        if let slotted = snapshot.slotted {
            byName = false
            if slotted.layout === layout {
                self.slotted = slotted
                return
            }
            self.slotted = nil
            // Held by the slots of another layout: by name.
            current = .filled(with: .null, count: layout.attributes.count)
            for (name, slot) in layout.attributeIndex where slot < current.count {
                current[slot] = snapshot[attribute: name]
            }
            return
        }
        byName = true
        slotted = nil
        named = snapshot.namedAttributes ?? [:]
        for slot in places.indices { places[slot] = nil }
        var index = named.startIndex
        while index != named.endIndex {
            if let slot = slot(named: named.keys[index]), slot < places.count { places[slot] = index }
            named.formIndex(after: &index)
        }
    }

    /// The value at `slot` of the snapshot read last (null where it has none).
    /// - Parameter slot: An attribute's slot in the layout.
    package subscript(_ slot: Int) -> AttributeValue {
        if byName {
            guard slot < places.count, let index = places[slot] else { return .null }
            return named[index].value
        }
        if let slotted { return slot < slotted.count ? slotted[slot] : .null }
        return slot < current.count ? current[slot] : .null
    }
}
