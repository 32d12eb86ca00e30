/// The slots of an entity's attributes (or relationships) by name, for the lookups every access by key makes
/// (`setAttributeValue(_:forKey:)`, `value(forKey:)`, a predicate's key paths).
///
/// A dictionary hashes the whole name with SipHash on every lookup (about 340 instructions for a ten-letter name, a
/// sixth of setting a value by key). Here a name is hashed with FNV-1a over its UTF-8 bytes into a small open-addressed
/// table and the name found there is compared whole. Before that, a name is looked for by its representation (the two
/// words of the `String`), which any name of up to 15 UTF-8 bytes shares with every equal name: most lookups read no
/// byte of the name. The hashes have no seed, so names made to collide would make lookups linear: entities with many
/// properties use the dictionary instead.
package final class NameIndex: Sendable, Sequence {
    /// The names in slot order and their slots (a name given twice keeps its first slot, as before).
    private let names: [String]
    private let slots: [Int]
    /// Positions in `names` plus one, by hash (0 for an empty place); a power of two long, at most half full.
    private let table: [Int32]
    /// The dictionary, for entities with more names than ``largest``.
    private let dictionary: [String: Int]?
    /// The names' representations (the two words a `String` is), and positions in `names` plus one by a hash of
    /// them, as `table`: a name given as the same representation — any two equal names of up to 15 UTF-8 bytes
    /// (held in place, not in a buffer), or the same buffer — is found with no pass over its bytes; any other goes
    /// the long way. (Equal representations are equal strings; equal strings need not have equal representations.)
    private let representations: [Representation]
    private let representationTable: [Int32]

    /// The most names kept in the table.
    static let largest = 64

    /// An index of `names`, each at its position.
    init(_ names: [String]) {
        var unique: [String] = []
        var slots: [Int] = []
        var seen = Set<String>()
        for (slot, name) in names.enumerated() where seen.insert(name).inserted {
            unique.append(name)
            slots.append(slot)
        }
        self.names = unique
        self.slots = slots
        guard unique.count <= Self.largest else {
            dictionary = Dictionary(uniqueKeysWithValues: zip(unique, slots))
            table = []
            representations = []
            representationTable = []
            return
        }
        dictionary = nil
        var size = 8
        while size < unique.count * 2 { size *= 2 }
        var table = [Int32](repeating: 0, count: size)
        var representationTable = [Int32](repeating: 0, count: size)
        for (position, name) in unique.enumerated() {
            var place = Self.hash(name) & (size - 1)
            while table[place] != 0 { place = (place + 1) & (size - 1) }
            table[place] = Int32(position + 1)
            place = Representation(name).hash & (size - 1)
            while representationTable[place] != 0 { place = (place + 1) & (size - 1) }
            representationTable[place] = Int32(position + 1)
        }
        self.table = table
        self.representationTable = representationTable
        representations = unique.map(Representation.init)
    }

    /// The two words of a string's representation, as bits (no reference taken: a large string's buffer is compared
    /// by address only, and ``NameIndex/names`` keeps its own names' buffers alive).
    private struct Representation: Equatable {
        let low: UInt64
        let high: UInt64

        init(_ name: String) {
            (low, high) = unsafeBitCast(name, to: (UInt64, UInt64).self)
        }

        var hash: Int {
            let mixed = (low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
        }
    }

    /// FNV-1a over the name's UTF-8 bytes (read in place: a native or small string has them contiguous).
    private static func hash(_ name: String) -> Int {
        func fnv<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Int {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int(truncatingIfNeeded: hash ^ (hash >> 32))
        }
        return name.utf8.withContiguousStorageIfAvailable { fnv($0) } ?? fnv(name.utf8)
    }

    /// The slot of `name`, if the entity has it. (Inlined: a caller that reads the index from its entity then
    /// looks the name up without retaining the index; only the representation's probe is inline.)
    @inline(__always)
    package subscript(name: String) -> Int? {
        if dictionary == nil {
            let mask = table.count - 1
            let representation = Representation(name)
            var place = representation.hash & mask
            while true {
                let entry = Int(representationTable[place])
                if entry == 0 { break }
                if representations[entry - 1] == representation { return slots[entry - 1] }
                place = (place + 1) & mask
            }
        }
        return slot(byBytesOf: name)
    }

    /// The slot of `name` found by its bytes (a name not given as the representation of one of the index's own), or
    /// in the dictionary.
    @inline(never)
    private func slot(byBytesOf name: String) -> Int? {
        if let dictionary { return dictionary[name] }
        let mask = table.count - 1
        var place = Self.hash(name) & mask
        while true {
            let entry = Int(table[place])
            if entry == 0 { return nil }
            if names[entry - 1] == name { return slots[entry - 1] }
            place = (place + 1) & mask
        }
    }

    /// How many names there are.
    package var count: Int { names.count }

    /// The names and their slots, in slot order.
    package func makeIterator() -> Zip2Sequence<[String], [Int]>.Iterator { zip(names, slots).makeIterator() }

    /// The names with `transform` of their slots.
    package func mapValues<T>(_ transform: (Int) -> T) -> [String: T] {
        Dictionary(uniqueKeysWithValues: zip(names, slots.map(transform)))
    }
}
