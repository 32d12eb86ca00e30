import ObjectGraph

/// One changed property of a matched pair of objects.
public struct KeyDifference: Sendable, Hashable {
    /// The property's name.
    public var key: String
    /// Its value in the first document.
    public var old: DifferenceValue
    /// Its value in the second document (relationships name the second document's objects).
    public var new: DifferenceValue
}
