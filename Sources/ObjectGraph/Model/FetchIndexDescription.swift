/// A fetch index: an index over one or more properties, optionally partial.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One indexed property.
    public struct Element: Sendable, Hashable {
        /// The indexed property's name.
        public var property: String
        /// The index kind as Xcode names it: `Binary` (a B-tree) or `RTree`.
        public var kind: String
        /// Whether the property is indexed in ascending order.
        public var ascending: Bool

        /// Creates an index element.
        /// - Parameters:
        ///   - property: the property indexed.
        ///   - kind: `Binary` (a B-tree) or `RTree`.
        ///   - ascending: the index order.
        public init(property: String, kind: String = "Binary", ascending: Bool = true) {
            self.property = property
            self.kind = kind
            self.ascending = ascending
        }
    }

    /// The index's name.
    public var name: String
    /// The indexed properties in order.
    public var elements: [Element]
    /// A predicate that limits the index to some rows, if any.
    public var partialIndexPredicate: String?

    /// Creates a fetch index.
    /// - Parameters:
    ///   - name: the index's name.
    ///   - elements: its elements, in order.
    ///   - partialIndexPredicate: a predicate limiting the rows indexed.
    public init(name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }
}
