/// Executes a fetch request over candidate objects already limited to its entity: filters, sorts, skips, limits,
/// and builds dictionary, aggregate and count results. The context and the atomic stores use this; the SQLite
/// store turns the same request into SQL.
public enum InMemoryFetch {
    /// Runs `request` over `candidates`.
    /// - Parameters:
    ///   - request: the fetch request.
    ///   - candidates: the objects to choose from, of the request's entity (and sub-entities when it includes them).
    ///   - allProperties: the attribute names to fetch for dictionary results when the request names none.
    /// - Returns: objects, IDs, dictionaries or a count, as the request's result type says.
    /// - Throws: ``ObjectPredicateError`` when the predicate cannot be evaluated (e.g. a variable has no value).
    public static func execute(
        _ request: FetchRequest, over candidates: [PredicateValue], allProperties: [String] = []
    ) throws(ObjectPredicateError) -> FetchResult {
        var matches: [PredicateValue] = []
        if let predicate = request.predicate {
            var evaluator = ExpressionEvaluator(object: .null, variables: [:])
            for candidate in candidates {
                evaluator.start(with: candidate)
                if try evaluator.evaluate(predicate) { matches.append(candidate) }
            }
        } else {
            matches = candidates
        }
        if !request.sortDescriptors.isEmpty {
            // A stable sort: equal objects keep their store order.
            let order = try request.sortDescriptors.stablySorted(matches)
            matches = order.map { matches[$0] }
        }
        switch request.resultType {
        case .count:
            return .count(window(matches.count, request))
        case .managedObject, .managedObjectID:
            return .objects(Array(slice(matches, request)))
        case .dictionary:
            let columns = request.propertiesToFetch ?? allProperties.map { .property($0) }
            var rows = try dictionaries(matches, columns: columns, request: request)
            if request.returnsDistinctResults {
                var distinct: [[String: PredicateValue]] = []
                for row in rows
                where !distinct.contains(where: { ValueComparison.equal(.dictionary($0), .dictionary(row)) }) {
                    distinct.append(row)
                }
                rows = distinct
            }
            return .dictionaries(Array(slice(rows, request)))
        }
    }

    private static func window(_ count: Int, _ request: FetchRequest) -> Int {
        let afterOffset = max(0, count - max(0, request.fetchOffset))
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    private static func slice<T>(_ items: [T], _ request: FetchRequest) -> ArraySlice<T> {
        let start = min(items.count, max(0, request.fetchOffset))
        return items[start..<(start + window(items.count, request))]
    }

    private static func dictionaries(
        _ matches: [PredicateValue], columns: [PropertyToFetch], request: FetchRequest
    ) throws(ObjectPredicateError) -> [[String: PredicateValue]] {
        let hasAggregates = columns.contains {
            if case .expression(let d) = $0 { return d.aggregate != nil }
            return false
        }
        guard hasAggregates || request.propertiesToGroupBy != nil else {
            var rows: [[String: PredicateValue]] = []
            for match in matches { rows.append(try row(match, columns)) }
            return rows
        }
        // Group (one group of everything when no grouping is given), then aggregate per group.
        let groupKeys = request.propertiesToGroupBy ?? []
        var groups: [(key: [PredicateValue], members: [PredicateValue])] = []
        for match in matches {
            var key: [PredicateValue] = []
            for path in groupKeys { key.append(try ExpressionEvaluator.follow(split(path), from: match)) }
            if let i = groups.firstIndex(where: {
                ValueComparison.equal(.collection($0.key, ordered: true), .collection(key, ordered: true))
            }) {
                groups[i].members.append(match)
            } else {
                groups.append((key, [match]))
            }
        }
        if groups.isEmpty && groupKeys.isEmpty { groups = [([], [])] }
        var rows: [[String: PredicateValue]] = []
        for group in groups {
            var result: [String: PredicateValue] = [:]
            for column in columns {
                switch column {
                case .property(let name):
                    result[name] =
                        try group.members.first.map { (m) throws(ObjectPredicateError) in
                            try ExpressionEvaluator.follow(split(name), from: m)
                        } ?? .null
                case .expression(let description):
                    if let (function, argument) = description.aggregate {
                        var values: [PredicateValue] = []
                        for member in group.members { values.append(try argument.value(with: member)) }
                        let name = function == .count ? "count" : function.rawValue
                        result[description.name] = try FunctionLibrary.call(
                            name, [.collection(values.filter { !$0.isNull || function == .count }, ordered: true)])
                    } else {
                        result[description.name] =
                            try group.members.first.map { (m) throws(ObjectPredicateError) in
                                try description.expression.value(with: m)
                            } ?? .null
                    }
                }
            }
            if let having = request.havingPredicate, !(try having.evaluate(with: .dictionary(result))) { continue }
            rows.append(result)
        }
        return rows
    }

    private static func row(_ object: PredicateValue, _ columns: [PropertyToFetch]) throws(ObjectPredicateError)
        -> [String:
        PredicateValue]
    {
        var result: [String: PredicateValue] = [:]
        for column in columns {
            switch column {
            case .property(let name): result[name] = try ExpressionEvaluator.follow(split(name), from: object)
            case .expression(let d): result[d.name] = try d.expression.value(with: object)
            }
        }
        return result
    }

    private static func split(_ path: String) -> ArraySlice<String> {
        path.split(separator: ".").map(String.init)[...]
    }
}
