public import ObjectGraph

/// Counters that a save rewrites all at once: after a crash they must all show the same round.
public enum Counters {
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Counter",
                    attributes: [
                        AttributeDescription(name: "index", type: .integer64, isOptional: false),
                        AttributeDescription(name: "round", type: .integer64, isOptional: false),
                        AttributeDescription(name: "label", type: .string),
                    ])
            ],
            configurations: [])
    }
}
