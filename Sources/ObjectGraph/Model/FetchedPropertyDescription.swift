/// A fetched property: a one-way, query-defined to-many computed by a fetch.
///
/// The predicate may use `$FETCH_SOURCE` (the object that owns the property) and `$FETCHED_PROPERTY`.
public struct FetchedPropertyDescription: Sendable, Hashable {
    /// The property's name.
    public var name: String
    /// The entity that is fetched.
    public var entityName: String
    /// The predicate in Apple's format-string syntax; `nil` fetches every object of the entity.
    public var predicate: String?
    /// Whether the property may be empty.
    public var isOptional: Bool
    /// Free-form key/value pairs.
    public var userInfo: [String: String]
    /// Why the predicate could not be read from a compiled model; `nil` when it was read (then ``predicate`` is
    /// what the model says, and `nil` there means every object).
    public var undecodablePredicate: String?

    /// Creates a fetched property.
    /// - Parameters:
    ///   - name: the property's name.
    ///   - entity: the entity it fetches.
    ///   - predicate: its predicate's format string (`$FETCH_SOURCE` is the object it belongs to).
    ///   - isOptional: whether it is optional.
    ///   - userInfo: the model's user info for it.
    public init(
        name: String, entity: String, predicate: String?, isOptional: Bool = true, userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.entityName = entity
        self.predicate = predicate
        self.isOptional = isOptional
        self.userInfo = userInfo
    }
}
