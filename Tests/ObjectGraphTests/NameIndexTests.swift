import Testing

@testable import ObjectGraph

/// An entity's slots by property name: every name finds its slot (the first, for a name given twice), any other
/// name finds none, whether the entity has a few names (hashed into a table) or many (a dictionary).
struct NameIndexTests {
    static func names(_ count: Int) -> [String] {
        (0..<count).map { i in
            switch i % 4 {
            case 0: "a\(i)"
            case 1: "attributeWithALongerName\(i)"
            case 2: "naïve\(i)"  // Not ASCII.
            default: "\(i)"
            }
        }
    }

    @Test(arguments: [0, 1, 5, 16, 64, 65, 300])
    func everyNameFindsItsSlot(count: Int) {
        var names = Self.names(count)
        if count > 1 { names.append(names[1]) }  // Given twice: the first slot is kept.
        let index = NameIndex(names)
        #expect(index.count == count)
        for (slot, name) in names.enumerated().prefix(count) { #expect(index[name] == slot, "\(name)") }
        for absent in ["", "a", "zzz", "naive0", "attributeWithALongerName", String(repeating: "x", count: 100)] {
            #expect(index[absent] == nil, "\(absent)")
        }
        #expect(Array(index).map(\.0) == Array(names.prefix(count)))
        #expect(
            index.mapValues { $0 * 2 }
                == Dictionary(uniqueKeysWithValues: names.prefix(count).enumerated().map { ($1, $0 * 2) }))
    }

    /// A name built at run time (a native string) and the same name as a literal find the same slot.
    @Test func aNameFoundWhateverItsStorage() {
        let index = NameIndex(["name", "attributeWithALongerName1", "x"])
        let built = String(["attribute", "With", "A", "Longer", "Name", "1"].joined())
        #expect(index[built] == 1)
        #expect(index["na" + "me"] == 0)
        #expect(index[Substring("xy").dropLast().description] == 2)
    }

    /// A short name held in a buffer of its own (not in place, as a literal of up to 15 bytes is) and a name held
    /// in place where the index's is in a buffer find their slots: equal names whatever their representations.
    @Test func aNameFoundInEitherRepresentation() {
        func buffered(_ text: String) -> String {
            var name = String()
            name.reserveCapacity(64)
            name.append(contentsOf: text)
            return name
        }
        let short = buffered("name")
        #expect(unsafeBitCast(short, to: (UInt64, UInt64).self) != unsafeBitCast("name", to: (UInt64, UInt64).self))
        let index = NameIndex(["x", "name", buffered("price"), "attributeWithALongerName1"])
        #expect(index[short] == 1)
        #expect(index["name"] == 1)
        #expect(index["price"] == 2)
        #expect(index[buffered("price")] == 2)
        #expect(index[buffered("pric")] == nil)
        #expect(index["attributeWithALongerName1"] == 3)
        #expect(index[buffered("attributeWithALongerName")] == nil)
        // Names that share their first eight bytes, or differ in the last of fifteen.
        let similar = NameIndex(["abcdefgh1", "abcdefgh2", "abcdefghijklmno", "abcdefghijklmnp"])
        for (slot, name) in ["abcdefgh1", "abcdefgh2", "abcdefghijklmno", "abcdefghijklmnp"].enumerated() {
            #expect(similar[name] == slot)
            #expect(similar[buffered(name)] == slot)
        }
        #expect(similar["abcdefgh3"] == nil)
    }
}
