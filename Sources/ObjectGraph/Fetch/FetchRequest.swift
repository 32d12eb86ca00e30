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

    /// Creates a fetch request with Core Data's defaults.
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

/// A named expression in a dictionary fetch, e.g. the maximum salary as `maxSalary`.
public struct ExpressionDescription: Sendable, Hashable {
    /// The aggregate functions a fetch computes over all matching objects.
    public enum Aggregate: String, Sendable, Hashable, CaseIterable {
        case sum, count, min, max, average
    }

    /// The key in the result dictionary.
    public var name: String
    /// The expression; an aggregate function of a key path (`max:(salary)`) is computed over all matches.
    public var expression: ObjectExpression
    /// The attribute type of the result.
    public var resultType: AttributeType

    /// Creates an expression description.
    public init(name: String, expression: ObjectExpression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }

    /// An aggregate over a key path of all matching objects.
    public static func aggregate(
        _ function: Aggregate, of keyPath: String, as name: String, resultType: AttributeType = .double
    ) -> ExpressionDescription {
        ExpressionDescription(
            name: name, expression: .function(function.rawValue + ":", [.key(keyPath)]), resultType: resultType)
    }

    /// The aggregate function and its key path, when the expression is one.
    var aggregate: (Aggregate, ObjectExpression)? {
        guard case .function(let raw, let arguments) = expression, arguments.count == 1 else { return nil }
        let name = raw.hasSuffix(":") ? String(raw.dropLast()) : raw
        guard let function = Aggregate(rawValue: name) else { return nil }
        return (function, arguments[0])
    }
}

extension ManagedObjectModel {
    /// A fetch request made from a stored template, with its `$VARIABLE`s substituted
    /// (`fetchRequestFromTemplateWithName:substitutionVariables:`).
    ///
    /// - Throws: ``ObjectPredicateError``: `unknownTemplate`, `syntaxError` for a template predicate that does not parse,
    ///   or `missingVariable` naming a variable with no value.
    public func fetchRequest(
        fromTemplate name: String, substitutionVariables: [String: PredicateConstant] = [:]
    ) throws(ObjectPredicateError) -> FetchRequest {
        guard let template = fetchRequestTemplate(named: name) else {
            let known = fetchRequestTemplates.map(\.name).sorted().joined(separator: ", ")
            throw ObjectPredicateError(
                .unknownTemplate, "no fetch request template '\(name)' (the model has: \(known))")
        }
        var request = FetchRequest(entityName: template.entityName)
        if let reason = template.undecodablePredicate {
            throw ObjectPredicateError(
                .undecodable, "template '\(name)': its predicate could not be read from the model (\(reason))")
        }
        if let text = template.predicate {
            let parsed: ObjectPredicate
            do {
                parsed = try ObjectPredicate(format: text)
            } catch {
                throw ObjectPredicateError(.syntaxError, "template '\(name)': \(error.summary)")
            }
            request.predicate = try parsed.substituting(substitutionVariables)
        }
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
}
