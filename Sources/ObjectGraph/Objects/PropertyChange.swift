/// One change of one property, as delivered to an observer.
public struct PropertyChange {
    /// The property that changed.
    public let key: String
    /// The value before (for to-many changes: the removed object, or null).
    public let oldValue: PredicateValue
    /// The value after (for to-many changes: the added object, or null).
    public let newValue: PredicateValue
}
