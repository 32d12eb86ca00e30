/// A description of what to fetch: an entity, a predicate, an order, a range and the form of the results.
public struct FetchRequest: Sendable, Hashable {
    /// The entity to fetch.
    public var entityName: String
    /// Which objects; `nil` fetches all.
    public var predicate: ObjectPredicate?
    /// The order of the results.
    public var sortDescriptors: [ObjectSortDescriptor]
    /// The most results to return; 0 for no limit.
    public var fetchLimit: Int
    /// How many results to skip.
    public var fetchOffset: Int
    /// How many objects an incremental store loads at a time; 0 for all at once.
    public var fetchBatchSize: Int
    /// Objects, object IDs, dictionaries or a count.
    public var resultType: FetchResultType
    /// Whether objects of sub-entities are included.
    public var includesSubentities: Bool
    /// Whether unsaved changes in the context are taken into account.
    public var includesPendingChanges: Bool
    /// Whether objects arrive as faults (values loaded on first access).
    public var returnsObjectsAsFaults: Bool
    /// Whether property values are fetched at all (for object results).
    public var includesPropertyValues: Bool
    /// For dictionary results: whether equal dictionaries are returned once.
    public var returnsDistinctResults: Bool
    /// For dictionary results: which properties and expressions to fetch; `nil` for every attribute.
    public var propertiesToFetch: [PropertyToFetch]?
    /// For dictionary results: the properties to group aggregates by.
    public var propertiesToGroupBy: [String]?
    /// For grouped dictionary results: which groups to keep.
    public var havingPredicate: ObjectPredicate?
    /// Relationship key paths whose destinations are loaded with the results.
    public var relationshipKeyPathsForPrefetching: [String]
    /// The most matches a store needs to return, the first in the request's order (0: every match): set by a context
    /// on the request it passes down when its offset and limit can be taken from that many (with room for its unsaved
    /// changes), so that a store that orders and selects by itself reads no more rows than that. A store may return
    /// more; the context applies ``fetchOffset`` and ``fetchLimit`` itself.
    package var storeLimit = 0

    /// Creates a fetch request with Core Data's defaults.
    /// - Parameters:
    ///   - entityName: the entity to fetch (sub-entities are included by default).
    ///   - predicate: which objects; `nil` for all.
    ///   - sortDescriptors: the order; none for the store's order.
    ///   - fetchLimit: the most objects returned; 0 for no limit.
    ///   - fetchOffset: how many matching objects to skip.
    ///   - resultType: objects, IDs, dictionaries or a count.
    public init(
        entityName: String, predicate: ObjectPredicate? = nil, sortDescriptors: [ObjectSortDescriptor] = [],
        fetchLimit: Int = 0,
        fetchOffset: Int = 0, resultType: FetchResultType = .managedObject
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = 0
        self.resultType = resultType
        self.includesSubentities = true
        self.includesPendingChanges = true
        self.returnsObjectsAsFaults = true
        self.includesPropertyValues = true
        self.returnsDistinctResults = false
        self.propertiesToFetch = nil
        self.propertiesToGroupBy = nil
        self.havingPredicate = nil
        self.relationshipKeyPathsForPrefetching = []
    }
}

extension ManagedObjectModel {
    /// A fetch request made from a stored template, with its `$VARIABLE`s substituted
    /// (`fetchRequestFromTemplateWithName:substitutionVariables:`).
    ///
    /// - Parameters:
    ///   - name: the template's name.
    ///   - substitutionVariables: values for its `$VARIABLE`s.
    /// - Returns: the fetch request.
    /// - Throws: ``ObjectPredicateError``: `unknownTemplate`, `syntaxError` for a template predicate that does not parse,
    ///   or `missingVariable` naming a variable with no value.
    public func fetchRequest(
        fromTemplate name: String, substitutionVariables: [String: PredicateConstant] = [:]
    ) throws(ObjectPredicateError) -> FetchRequest {
        let (template, parsed) = try parsedTemplate(named: name)
        var request = FetchRequest(entityName: template.entityName)
        if let parsed { request.predicate = try parsed.substituting(substitutionVariables) }
        request.fetchLimit = template.fetchLimit ?? 0
        request.fetchBatchSize = template.fetchBatchSize ?? 0
        request.resultType = template.resultType ?? .managedObject
        request.includesSubentities = template.includesSubentities ?? true
        request.includesPropertyValues = template.includesPropertyValues ?? true
        request.includesPendingChanges = template.includesPendingChanges ?? true
        request.returnsObjectsAsFaults = template.returnsObjectsAsFaults ?? true
        request.returnsDistinctResults = template.returnsDistinctResults ?? false
        return request
    }

    /// A stored template and its predicate, parsed (`nil` when it has none), as
    /// ``fetchRequest(fromTemplate:substitutionVariables:)`` reads them: for code that needs the template's variables.
    /// - Parameter name: the template's name.
    /// - Throws: ``ObjectPredicateError``: `unknownTemplate`, `undecodable`, or `syntaxError` for a predicate that does
    ///   not parse.
    package func parsedTemplate(named name: String) throws(ObjectPredicateError) -> (
        FetchRequestTemplate, ObjectPredicate?
    ) {
        guard let template = fetchRequestTemplate(named: name) else {
            let known = fetchRequestTemplates.map(\.name).sorted().joined(separator: ", ")
            throw ObjectPredicateError(
                .unknownTemplate, "no fetch request template '\(name)' (the model has: \(known))")
        }
        if let reason = template.undecodablePredicate {
            throw ObjectPredicateError(
                .undecodable, "template '\(name)': its predicate could not be read from the model (\(reason))")
        }
        guard let text = template.predicate else { return (template, nil) }
        do {
            return (template, try ObjectPredicate(format: text))
        } catch {
            throw ObjectPredicateError(.syntaxError, "template '\(name)': \(error.summary)")
        }
    }
}
