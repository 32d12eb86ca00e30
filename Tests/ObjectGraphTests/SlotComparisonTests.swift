import Foundation
import Testing

@testable import ObjectGraph

/// An attribute slot compared where it is (`AttributeStorage.holds`) answers as reading its value and comparing
/// would, for every kind of slot, null, NaN, and values of other types.
struct SlotComparisonTests {
    static let types: [AttributeType] = [
        .integer16, .integer32, .integer64, .double, .float, .boolean, .date, .decimal, .uuid, .string, .binary,
        .transformable, .uri, .objectID, .undefined,
    ]

    /// Values of every kind, two of each where the kind has more than one, NaN and null among them.
    static let candidates: [AttributeValue] = [
        .null, .integer16(1), .integer16(2), .integer32(1), .integer32(2), .integer64(1), .integer64(2), .double(1),
        .double(.nan), .float(1), .float(.nan), .boolean(true), .boolean(false),
        .date(Date(timeIntervalSinceReferenceDate: 1)), .date(Date(timeIntervalSinceReferenceDate: 2)),
        .decimal(Decimal(string: "1.5")!), .decimal(Decimal(1)),
        .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
        .uuid(UUID(uuid: (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))), .string("a"), .string("b"),
        .string(""), .binary(Data([1])), .binary(Data()), .transformable(Data([1])), .uri(URL(string: "https://a")!),
        .uri(URL(string: "https://b")!), .objectID(URL(string: "https://a")!),
        .composite(["x": .double(1)]),
    ]

    /// The layout of an entity with one attribute of each type (the undefined one transient), then `extra`.
    static func layout(adding extra: [AttributeDescription] = []) throws -> EntityLayout {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "All",
                attributes: types.enumerated().map {
                    AttributeDescription(name: "a\($0.offset)", type: $0.element, isTransient: $0.element == .undefined)
                } + extra)
        ])
        return try #require(model.layout(of: "All"))
    }

    @Test func aSlotHoldsExactlyWhatItsValueEquals() throws {
        let layout = try Self.layout()
        var checked = 0
        for (i, _) in Self.types.enumerated() {
            // Each value the slot can take (null first), against every candidate.
            for stored in Self.candidates where (try? layout.converted(stored, forAttributeAt: i)) == stored {
                let storage = AttributeStorage(layout: layout)
                defer { storage.free(layout: layout) }
                storage.set(i, stored, layout: layout)
                for candidate in Self.candidates {
                    let expected = storage.value(i, layout: layout) == candidate
                    #expect(
                        storage.holds(i, candidate, layout: layout) == expected,
                        "\(Self.types[i]) holding \(stored) against \(candidate)")
                    checked += 1
                }
            }
        }
        #expect(checked > 300)
    }

    /// A value goes into a fresh slot as it is exactly when it is already in the slot's form (`fits`, and not a
    /// slot of `.value` kind, whose values are converted first), and reads back equal.
    @Test func aValueIsStoredAsItIsOnlyInItsSlotsForm() throws {
        let layout = try Self.layout()
        for i in Self.types.indices {
            for candidate in Self.candidates where !candidate.isNull {
                let storage = AttributeStorage(layout: layout)
                defer { storage.free(layout: layout) }
                let kind = layout.slots[i].kind
                let expected = kind != .value && AttributeStorage.fits(candidate, kind, type: layout.attributeTypes[i])
                #expect(storage.storeIfFits(i, candidate, layout: layout) == expected, "\(Self.types[i]) \(candidate)")
                let read = storage.value(i, layout: layout)
                if expected {
                    // NaN is the one value not equal to itself: compared by its bits.
                    #expect(read == candidate || "\(read)" == "\(candidate)", "\(Self.types[i]) \(candidate)")
                } else {
                    #expect(read == .null, "\(Self.types[i]) \(candidate)")
                }
            }
        }
    }

    /// Snapshot values (`SlotValues`) read back every value exactly as it was set — in its slot's form or not — the
    /// last one set where a slot is set twice, nothing for the transient attribute; a copy of them (what filling an
    /// object takes) holds the same, and outlives them; cleared, they hold nothing.
    @Test func snapshotValuesReadBackWhatWasSet() throws {
        // Every type, and a transient string (a value in its slot's form that must not be kept).
        let layout = try Self.layout(adding: [AttributeDescription(name: "scratch", type: .string, isTransient: true)])
        let slots = layout.attributes.indices
        func same(_ a: AttributeValue, _ b: AttributeValue) -> Bool { a == b || "\(a)" == "\(b)" }
        for (n, first) in Self.candidates.enumerated() {
            let second = Self.candidates[(n * 7 + 3) % Self.candidates.count]
            let values = SlotValues(layout: layout)
            for i in slots { values.set(first, at: i) }
            // Every other slot set again: the second value replaces the first.
            for i in slots where i % 2 == 0 { values.set(second, at: i) }
            var copy: AttributeStorage? = values.storage.copy(layout: layout)
            for i in slots {
                let expected: AttributeValue =
                    layout.attributes[i].isTransient ? .null : (i % 2 == 0 ? second : first)
                let type = layout.attributeTypes[i]
                #expect(same(values[i], expected), "\(type) set to \(first) then \(second): \(values[i])")
                if let copy, !values.unfitted.contains(where: { $0.slot == i }) {
                    #expect(same(copy.value(i, layout: layout), expected), "copy of \(type): \(expected)")
                }
            }
            values.clear()
            for i in slots { #expect(values[i] == .null) }
            copy?.free(layout: layout)
            copy = nil
            // Made from a list, the same.
            let listed = SlotValues(layout: layout, values: Array(repeating: first, count: slots.count))
            for i in slots {
                #expect(
                    same(listed[i], layout.attributes[i].isTransient ? .null : first), "\(layout.attributeTypes[i])")
            }
        }
    }
}
