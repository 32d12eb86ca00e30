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

    /// The layout of an entity with one attribute of each type (the undefined one transient).
    static func layout() throws -> EntityLayout {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "All",
                attributes: types.enumerated().map {
                    AttributeDescription(name: "a\($0.offset)", type: $0.element, isTransient: $0.element == .undefined)
                })
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
}
