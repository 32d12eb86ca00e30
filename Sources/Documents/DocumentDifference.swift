public import ObjectGraph

/// What differs between two documents.
public struct DocumentDifference: Sendable {
    /// Objects of the first document with no match in the second, sorted by entity and key.
    public var onlyInA: [ManagedObjectID] = []
    /// Objects of the second document with no match in the first, sorted by entity and key.
    public var onlyInB: [ManagedObjectID] = []
    /// Matched objects whose properties differ, sorted by the first document's entity and key.
    public var changed: [ObjectChange] = []

    /// Whether the documents hold the same objects with the same values.
    public var isEqual: Bool { onlyInA.isEmpty && onlyInB.isEmpty && changed.isEmpty }
}
