/// The result of executing a fetch request in memory.
public enum FetchResult {
    /// The matching objects (for object and object-ID results), in order.
    case objects([PredicateValue])
    /// One dictionary per match, or per group for aggregates.
    case dictionaries([[String: PredicateValue]])
    /// How many objects match.
    case count(Int)
}
