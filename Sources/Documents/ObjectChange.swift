public import ObjectGraph

/// A pair of matched objects whose properties differ.
public struct ObjectChange: Sendable, Hashable {
    /// The object in the first document.
    public var a: ManagedObjectID
    /// The matching object in the second document.
    public var b: ManagedObjectID
    /// The properties that differ, sorted by name.
    public var changes: [KeyDifference]
}
