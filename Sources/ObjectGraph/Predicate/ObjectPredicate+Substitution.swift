extension ObjectPredicate {
    /// Replaces `$VARIABLE`s with values (`withSubstitutionVariables` in Core Data).
    ///
    /// Variables bound by a `SUBQUERY` are left alone.
    /// - Parameter values: variable name (without `$`) → value.
    /// - Returns: the predicate with the values in place.
    /// - Throws: ``ObjectPredicateError`` with code `missingVariable`, naming the first variable that has no value.
    public func substituting(_ values: [String: PredicateConstant]) throws(ObjectPredicateError) -> ObjectPredicate {
        var substitution = Substitution(values: values)
        return try substitution.predicate(self)
    }

    /// Replaces the `$VARIABLE`s that have values and leaves the others in place.
    /// - Parameter values: variable name (without `$`) → value.
    /// - Returns: the predicate with those values in place.
    public func substitutingAvailable(_ values: [String: PredicateConstant]) -> ObjectPredicate {
        var substitution = Substitution(values: values, leavesMissing: true)
        return (try? substitution.predicate(self)) ?? self
    }

    /// The names of the free `$VARIABLE`s (not bound by a `SUBQUERY`), sorted.
    public var variableNames: [String] {
        var collector = Substitution(values: [:], leavesMissing: true, collecting: true)
        _ = try? collector.predicate(self)
        return collector.found.sorted()
    }
}

extension ObjectExpression {
    /// Replaces `$VARIABLE`s with values.
    /// - Parameter values: variable name (without `$`) → value.
    /// - Returns: the expression with the values in place.
    /// - Throws: ``ObjectPredicateError`` `missingVariable` naming the first variable without a value.
    public func substituting(_ values: [String: PredicateConstant]) throws(ObjectPredicateError) -> ObjectExpression {
        var substitution = Substitution(values: values)
        return try substitution.expression(self)
    }
}

/// Walks a predicate replacing variables, or (when `collecting`) only noting their names.
private struct Substitution {
    var values: [String: PredicateConstant]
    var leavesMissing = false
    var collecting = false
    var bound: [String] = []
    var found: Set<String> = []

    mutating func predicate(_ p: ObjectPredicate) throws(ObjectPredicateError) -> ObjectPredicate {
        switch p {
        case .true, .false: return p
        case .and(let parts): return .and(try parts.map { (q) throws(ObjectPredicateError) in try predicate(q) })
        case .or(let parts): return .or(try parts.map { (q) throws(ObjectPredicateError) in try predicate(q) })
        case .not(let inner): return .not(try predicate(inner))
        case .comparison(var c):
            c.lhs = try expression(c.lhs)
            c.rhs = try expression(c.rhs)
            return .comparison(c)
        }
    }

    mutating func expression(_ e: ObjectExpression) throws(ObjectPredicateError) -> ObjectExpression {
        switch e {
        case .constant, .evaluatedObject, .anyKey: return e
        case .variable(let name):
            if bound.contains(name) { return e }
            if collecting {
                found.insert(name)
                return e
            }
            guard let value = values[name] else {
                if leavesMissing { return e }
                throw ObjectPredicateError(.missingVariable, "no value for variable $\(name)")
            }
            return .constant(value)
        case .keyPath(let base, let path):
            let newBase = try expression(base)
            if case .constant(let c) = newBase, case .evaluatedObject = base { return .constant(c) }
            return .keyPath(newBase, path)
        case .function(let name, let args):
            return .function(name, try args.map { (a) throws(ObjectPredicateError) in try expression(a) })
        case .methodCall(let receiver, let selector, let args):
            return .methodCall(
                try expression(receiver), selector,
                try args.map { (a) throws(ObjectPredicateError) in try expression(a) })
        case .arithmetic(let op, let a, let b): return .arithmetic(op, try expression(a), try expression(b))
        case .negation(let a): return .negation(try expression(a))
        case .aggregate(let items):
            let replaced = try items.map { (a) throws(ObjectPredicateError) in try expression(a) }
            let constants = replaced.compactMap { item -> PredicateConstant? in
                if case .constant(let c) = item { return c }
                return nil
            }
            return constants.count == replaced.count ? .constant(.array(constants)) : .aggregate(replaced)
        case .subquery(let collection, let variable, let p):
            let newCollection = try expression(collection)
            bound.append(variable)
            defer { bound.removeLast() }
            return .subquery(newCollection, variable: variable, try predicate(p))
        case .index(let base, let kind):
            if case .at(let i) = kind { return .index(try expression(base), .at(try expression(i))) }
            return .index(try expression(base), kind)
        case .cast(let a, let type): return .cast(try expression(a), type)
        case .conditional(let p, let a, let b):
            return .conditional(try predicate(p), try expression(a), try expression(b))
        case .assignment(let name, let a):
            bound.append(name)
            return .assignment(name, try expression(a))
        case .setOperation(let op, let a, let b): return .setOperation(op, try expression(a), try expression(b))
        }
    }
}
