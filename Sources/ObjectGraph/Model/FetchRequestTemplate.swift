/// A fetch request stored in a model under a name, to be filled in with substitution variables.
///
/// Options left `nil` were not written in the model file and take the fetch request's defaults.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// What a fetch returns.
    public typealias ResultType = FetchResultType

    /// The template's name, unique in its model.
    public var name: String
    /// The fetched entity.
    public var entityName: String
    /// The predicate in Apple's format-string syntax, possibly with `$VARIABLE`s.
    public var predicate: String?
    /// The most objects it returns (`nil`: no limit).
    public var fetchLimit: Int?
    /// How many objects are read at a time.
    public var fetchBatchSize: Int?
    /// What it returns: objects, IDs, dictionaries or a count.
    public var resultType: ResultType?
    /// Whether objects of sub-entities are included.
    public var includesSubentities: Bool?
    /// Whether values are read with the objects.
    public var includesPropertyValues: Bool?
    /// Whether unsaved changes are taken into account.
    public var includesPendingChanges: Bool?
    /// Whether objects come back as faults.
    public var returnsObjectsAsFaults: Bool?
    /// Whether duplicate dictionary results are removed.
    public var returnsDistinctResults: Bool?
    /// Why the template's predicate could not be read from a compiled model (an archived predicate of a kind not
    /// decoded); `nil` when it was read. A template whose predicate could not be read is never used as if it had
    /// none: ``ManagedObjectModel/fetchRequest(fromTemplate:substitutionVariables:)`` throws.
    public var undecodablePredicate: String?

    /// Creates a template.
    /// - Parameters: See the properties of the same names; `name` and `entity` are required, and a property left
    ///   `nil` takes Core Data's default.
    public init(
        name: String, entity: String, predicate: String? = nil, fetchLimit: Int? = nil, fetchBatchSize: Int? = nil,
        resultType: ResultType? = nil, includesSubentities: Bool? = nil, includesPropertyValues: Bool? = nil,
        includesPendingChanges: Bool? = nil, returnsObjectsAsFaults: Bool? = nil,
        returnsDistinctResults: Bool? = nil
    ) {
        self.name = name
        self.entityName = entity
        self.predicate = predicate
        self.fetchLimit = fetchLimit
        self.fetchBatchSize = fetchBatchSize
        self.resultType = resultType
        self.includesSubentities = includesSubentities
        self.includesPropertyValues = includesPropertyValues
        self.includesPendingChanges = includesPendingChanges
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.returnsDistinctResults = returnsDistinctResults
    }
}
