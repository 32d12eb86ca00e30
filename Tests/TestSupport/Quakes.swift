import Foundation
public import ObjectGraph

/// A model with composite attributes, nested: each quake has a magnitude (a Richter value, a scale name and the
/// epicentre, itself a composite of latitude and longitude).
public enum Quakes {
    public static func model() throws -> ManagedObjectModel {
        let point = CompositeDescription(
            name: "Point",
            attributes: [
                AttributeDescription(name: "latitude", type: .double),
                AttributeDescription(name: "longitude", type: .double),
            ])
        let magnitude = CompositeDescription(
            name: "Magnitude",
            attributes: [
                AttributeDescription(name: "richter", type: .double),
                AttributeDescription(name: "scale", type: .string),
                AttributeDescription(name: "epicentre", type: .composite, compositeName: "Point"),
            ])
        return try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Quake",
                    attributes: [
                        AttributeDescription(name: "code", type: .string),
                        AttributeDescription(name: "magnitude", type: .composite, compositeName: "Magnitude"),
                        AttributeDescription(name: "depth", type: .integer32),
                    ])
            ], composites: [point, magnitude])
    }

    /// The magnitudes of the sample quakes, by code: whole, partial, and none.
    public static let magnitudes: [String: AttributeValue] = [
        "ak1": .composite([
            "richter": .double(5.5), "scale": .string("Mw"),
            "epicentre": .composite(["latitude": .double(61.2), "longitude": .double(-149.9)]),
        ]),
        "ca2": .composite(["richter": .double(3.25)]),
        "nz3": .null,
    ]

    /// Inserts the sample quakes.
    public static func populate(_ context: ManagedObjectContext) throws {
        for code in magnitudes.keys.sorted() {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            try quake.setValue(.string(code), forKey: "code")
            try quake.setAttributeValue(magnitudes[code] ?? .null, forKey: "magnitude")
            try quake.setAttributeValue(.integer32(Int32(code.count * 10)), forKey: "depth")
        }
    }
}
