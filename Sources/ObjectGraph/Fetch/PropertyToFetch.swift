/// One column of a dictionary fetch: a property, or a named expression such as `max:(salary)`.
public enum PropertyToFetch: Sendable, Hashable {
    /// A property (or key path) by name; the dictionary key is the name.
    case property(String)
    /// A computed value under a name.
    case expression(ExpressionDescription)

    /// The dictionary key of this column.
    public var name: String {
        switch self {
        case .property(let name): name
        case .expression(let description): description.name
        }
    }
}
