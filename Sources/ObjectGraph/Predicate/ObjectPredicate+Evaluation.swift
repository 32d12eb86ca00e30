public import Foundation

extension ObjectPredicate {
    /// Evaluates the predicate against an object (a dictionary row, a managed object, or any value).
    ///
    /// - Parameters:
    ///   - object: what `SELF` and plain key paths refer to.
    ///   - variables: values for `$VARIABLE`s that were not substituted.
    /// - Returns: whether the predicate holds.
    /// - Throws: ``ObjectPredicateError`` for a variable with no value or a function that cannot be evaluated.
    public func evaluate(with object: PredicateValue, variables: [String: PredicateValue] = [:])
        throws(ObjectPredicateError)
        -> Bool
    {
        var evaluator = ExpressionEvaluator(object: object, variables: variables)
        return try evaluator.evaluate(self)
    }

    /// Evaluates the predicate against a dictionary row.
    /// - Parameter row: the row.
    /// - Returns: whether the predicate holds.
    /// - Throws: ``ObjectPredicateError`` as ``evaluate(with:variables:)`` does.
    public func evaluate(with row: [String: PredicateValue]) throws(ObjectPredicateError) -> Bool {
        try evaluate(with: .dictionary(row))
    }
}

extension ObjectExpression {
    /// The expression's value for an object.
    /// - Parameters:
    ///   - object: what `SELF` and plain key paths refer to.
    ///   - variables: values for `$VARIABLE`s.
    /// - Returns: the value.
    /// - Throws: ``ObjectPredicateError`` for a variable with no value or a function that cannot be evaluated.
    public func value(with object: PredicateValue, variables: [String: PredicateValue] = [:])
        throws(ObjectPredicateError)
        -> PredicateValue
    {
        var evaluator = ExpressionEvaluator(object: object, variables: variables)
        return try evaluator.value(of: self)
    }
}

/// Evaluates predicates and expressions for one object.
///
/// The cost of one evaluation is bounded: a `SUBQUERY` that does not use the variables of the subqueries around it
/// has the same value for every element they range over, so it is evaluated once per object and remembered (nested
/// subqueries take linear, not exponential, time); and every evaluation has a budget of ``stepLimit`` steps, past
/// which it fails with ``ObjectPredicateError/Code/tooComplex`` instead of running for hours.
struct ExpressionEvaluator {
    /// The most steps (predicates and expressions evaluated) one object's evaluation may take.
    static let stepLimit = 20_000_000

    var object: PredicateValue {
        didSet { subqueryCache.removeAll(keepingCapacity: true) }
    }
    var variables: [String: PredicateValue]
    var steps = 0
    /// Variables bound by the subqueries being evaluated, innermost last.
    var bound: [String] = []
    /// Values of subqueries that use none of the ``bound`` variables, for the current object.
    var subqueryCache: [ObjectExpression: PredicateValue] = [:]

    init(object: PredicateValue, variables: [String: PredicateValue]) {
        self.object = object
        self.variables = variables
    }

    /// Starts a new object's evaluation: its own budget and cache.
    mutating func start(with object: PredicateValue) {
        self.object = object
        steps = 0
    }

    mutating func step() throws(ObjectPredicateError) {
        steps += 1
        if steps > Self.stepLimit {
            throw ObjectPredicateError(
                .tooComplex, "the predicate takes more than \(Self.stepLimit) steps for one object; simplify it")
        }
    }

    mutating func evaluate(_ predicate: ObjectPredicate) throws(ObjectPredicateError) -> Bool {
        try step()
        switch predicate {
        case .true: return true
        case .false: return false
        case .and(let parts):
            for part in parts where !(try evaluate(part)) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part) { return true }
            return false
        case .not(let inner): return !(try evaluate(inner))
        case .comparison(let c): return try evaluate(c)
        }
    }

    private mutating func evaluate(_ c: Comparison) throws(ObjectPredicateError) -> Bool {
        let left = try value(of: c.lhs)
        let right = try value(of: c.rhs)
        if c.modifier == .direct { return try Self.compare(left, c.op, right, c.options) }
        let elements: [PredicateValue]
        switch left {
        case .collection(let items, _): elements = items
        case .null: elements = []
        case .dictionary(let entries): elements = Array(entries.values)
        default: elements = [left]
        }
        switch c.modifier {
        case .any:
            for element in elements where try Self.compare(element, c.op, right, c.options) { return true }
            return false
        case .all:
            for element in elements where try !Self.compare(element, c.op, right, c.options) { return false }
            return true
        case .none:
            for element in elements where try Self.compare(element, c.op, right, c.options) { return false }
            return true
        case .direct: return false
        }
    }

    static func compare(
        _ left: PredicateValue, _ op: Comparison.Operator, _ right: PredicateValue, _ options: Comparison.Options
    ) throws(ObjectPredicateError) -> Bool {
        switch op {
        case .equal: return ValueComparison.equal(left, right, options)
        case .notEqual: return !ValueComparison.equal(left, right, options)
        case .lessThan: return ValueComparison.order(left, right, options) == .orderedAscending
        case .lessThanOrEqual:
            guard let o = ValueComparison.order(left, right, options) else { return false }
            return o != .orderedDescending
        case .greaterThan: return ValueComparison.order(left, right, options) == .orderedDescending
        case .greaterThanOrEqual:
            guard let o = ValueComparison.order(left, right, options) else { return false }
            return o != .orderedAscending
        case .between:
            guard case .collection(let bounds, _) = right, bounds.count == 2,
                let low = ValueComparison.order(left, bounds[0], options),
                let high = ValueComparison.order(left, bounds[1], options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            switch (left, right) {
            case (.string(let needle), .string(let haystack)):
                return ValueComparison.fold(haystack, options).contains(ValueComparison.fold(needle, options))
                    || needle.isEmpty
            case (_, .collection(let items, _)): return items.contains { ValueComparison.equal(left, $0, options) }
            case (_, .dictionary(let entries)):
                return entries.values.contains { ValueComparison.equal(left, $0, options) }
            default: return false
            }
        case .contains:
            switch (left, right) {
            case (.string(let haystack), .string(let needle)):
                return needle.isEmpty
                    || ValueComparison.fold(haystack, options).contains(ValueComparison.fold(needle, options))
            case (.collection(let items, _), _): return items.contains { ValueComparison.equal($0, right, options) }
            case (.dictionary(let entries), _):
                return entries.values.contains { ValueComparison.equal($0, right, options) }
            default: return false
            }
        case .beginsWith:
            guard case .string(let s) = left, case .string(let prefix) = right else { return false }
            return ValueComparison.fold(s, options).hasPrefix(ValueComparison.fold(prefix, options))
        case .endsWith:
            guard case .string(let s) = left, case .string(let suffix) = right else { return false }
            return ValueComparison.fold(s, options).hasSuffix(ValueComparison.fold(suffix, options))
        case .like:
            guard case .string(let s) = left, case .string(let pattern) = right else { return false }
            return ValueComparison.like(s, pattern, options)
        case .matches:
            guard case .string(let s) = left, case .string(let pattern) = right else { return false }
            return try ValueComparison.matches(s, pattern, options)
        case .utiEquals:
            return ValueComparison.equal(left, right, [.caseInsensitive])
        case .utiConformsTo:
            // Type conformance needs Apple's UTI database; only identical types conform here.
            return ValueComparison.equal(left, right, [.caseInsensitive])
        }
    }

    // MARK: - Expressions

    mutating func value(of expression: ObjectExpression) throws(ObjectPredicateError) -> PredicateValue {
        try step()
        switch expression {
        case .constant(let c): return c.value
        case .evaluatedObject: return object
        case .variable(let name):
            guard let v = variables[name] else {
                throw ObjectPredicateError(.missingVariable, "no value for variable $\(name)")
            }
            return v
        case .keyPath(let base, let path):
            return try Self.follow(path[...], from: try value(of: base))
        case .function(let name, let arguments):
            var values: [PredicateValue] = []
            for argument in arguments { values.append(try value(of: argument)) }
            return try FunctionLibrary.call(name, values)
        case .methodCall(_, let selector, _):
            throw ObjectPredicateError(
                .unsupportedFunction, "FUNCTION(…, '\(selector)') calls an Objective-C method; it is not supported")
        case .arithmetic(let op, let lhs, let rhs):
            return try FunctionLibrary.arithmetic(op, try value(of: lhs), try value(of: rhs))
        case .negation(let operand):
            return try FunctionLibrary.arithmetic(.subtract, .integer(0), try value(of: operand))
        case .aggregate(let items):
            var values: [PredicateValue] = []
            for item in items { values.append(try value(of: item)) }
            return .collection(values, ordered: true)
        case .subquery(let collection, let variable, let predicate):
            let invariant = !bound.isEmpty && Self.isInvariant(expression, under: bound)
            if invariant, let known = subqueryCache[expression] { return known }
            let source = try value(of: collection)
            let elements: [PredicateValue]
            switch source {
            case .collection(let items, _): elements = items
            case .null: elements = []
            default: elements = [source]
            }
            let saved = variables[variable]
            bound.append(variable)
            defer {
                variables[variable] = saved
                bound.removeLast()
            }
            var result: [PredicateValue] = []
            for element in elements {
                variables[variable] = element
                if try evaluate(predicate) { result.append(element) }
            }
            let value = PredicateValue.collection(result, ordered: false)
            if invariant { subqueryCache[expression] = value }
            return value
        case .index(let base, let kind):
            let collection = try value(of: base)
            switch (collection, kind) {
            case (.collection(let items, _), .first): return items.first ?? .null
            case (.collection(let items, _), .last): return items.last ?? .null
            case (.collection(let items, _), .size): return .integer(Int64(items.count))
            case (.dictionary(let entries), .size): return .integer(Int64(entries.count))
            case (.collection(let items, _), .at(let e)):
                guard case .integer(let i) = try value(of: e), i >= 0, i < items.count else { return .null }
                return items[Int(i)]
            case (.dictionary(let entries), .at(let e)):
                guard case .string(let key) = try value(of: e) else { return .null }
                return entries[key] ?? .null
            default: return .null
            }
        case .cast(let e, let type):
            return try Self.cast(try value(of: e), to: type)
        case .conditional(let condition, let whenTrue, let whenFalse):
            return try evaluate(condition) ? try value(of: whenTrue) : try value(of: whenFalse)
        case .assignment(let name, let e):
            let v = try value(of: e)
            variables[name] = v
            return v
        case .setOperation(let op, let lhs, let rhs):
            let a = try value(of: lhs).elements ?? []
            let b = try value(of: rhs).elements ?? []
            var result: [PredicateValue] = []
            func add(_ v: PredicateValue) {
                if !result.contains(where: { ValueComparison.equal($0, v) }) { result.append(v) }
            }
            switch op {
            case .union: (a + b).forEach(add)
            case .intersect: a.filter { x in b.contains { ValueComparison.equal(x, $0) } }.forEach(add)
            case .minus: a.filter { x in !b.contains { ValueComparison.equal(x, $0) } }.forEach(add)
            }
            return .collection(result, ordered: false)
        case .anyKey:
            throw ObjectPredicateError(.unsupportedFunction, "ANYKEY is a Spotlight feature and cannot be evaluated")
        }
    }

    /// Whether a subquery uses none of `bound` (the variables of the subqueries around it) and assigns nothing, so
    /// that its value is the same for each of their elements.
    static func isInvariant(_ subquery: ObjectExpression, under bound: [String]) -> Bool {
        let outer = Set(bound)
        var expressions: [ObjectExpression] = [subquery]
        var predicates: [ObjectPredicate] = []
        while !expressions.isEmpty || !predicates.isEmpty {
            if let p = predicates.popLast() {
                switch p {
                case .true, .false: break
                case .and(let parts), .or(let parts): predicates += parts
                case .not(let inner): predicates.append(inner)
                case .comparison(let c): expressions += [c.lhs, c.rhs]
                }
                continue
            }
            guard let e = expressions.popLast() else { break }
            switch e {
            case .constant, .evaluatedObject, .anyKey: break
            case .variable(let name): if outer.contains(name) { return false }
            case .assignment: return false
            case .keyPath(let base, _): expressions.append(base)
            case .function(_, let arguments), .aggregate(let arguments): expressions += arguments
            case .methodCall(let receiver, _, let arguments): expressions += [receiver] + arguments
            case .arithmetic(_, let l, let r), .setOperation(_, let l, let r): expressions += [l, r]
            case .negation(let inner), .cast(let inner, _): expressions.append(inner)
            case .index(let base, let kind):
                expressions.append(base)
                if case .at(let position) = kind { expressions.append(position) }
            case .conditional(let condition, let a, let b):
                predicates.append(condition)
                expressions += [a, b]
            case .subquery(let collection, _, let predicate):
                // A variable of the same name bound inside shadows the outer one; being cautious costs only speed.
                expressions.append(collection)
                predicates.append(predicate)
            }
        }
        return true
    }

    /// Follows a key path, applying collection operators (`@count`, `@sum.x`, …) where they appear.
    static func follow(_ path: ArraySlice<String>, from start: PredicateValue) throws(ObjectPredicateError)
        -> PredicateValue
    {
        var current = start
        var index = path.startIndex
        while index < path.endIndex {
            let component = path[index]
            index += 1
            guard component.hasPrefix("@") else {
                current = try current.value(forKey: component)
                continue
            }
            let elements: [PredicateValue]
            switch current {
            case .collection(let items, _): elements = items
            case .dictionary(let entries): elements = Array(entries.values)
            case .null: elements = []
            default: elements = [current]
            }
            let rest = path[index...]
            var mapped: [PredicateValue] = []
            if component == "@count" {
                current = .integer(Int64(elements.count))
                continue
            }
            for element in elements { mapped.append(try follow(rest, from: element)) }
            switch component {
            case "@sum": return try FunctionLibrary.call("sum", [.collection(mapped, ordered: true)])
            case "@avg": return try FunctionLibrary.call("average", [.collection(mapped, ordered: true)])
            case "@min": return try FunctionLibrary.call("min", [.collection(mapped, ordered: true)])
            case "@max": return try FunctionLibrary.call("max", [.collection(mapped, ordered: true)])
            case "@unionOfObjects": return .collection(mapped, ordered: true)
            case "@distinctUnionOfObjects": return .collection(distinct(mapped), ordered: false)
            case "@unionOfArrays", "@unionOfSets":
                return .collection(mapped.flatMap { $0.elements ?? [$0] }, ordered: true)
            case "@distinctUnionOfArrays", "@distinctUnionOfSets":
                return .collection(distinct(mapped.flatMap { $0.elements ?? [$0] }), ordered: false)
            default:
                throw ObjectPredicateError(.unsupportedFunction, "unknown collection operator \(component)")
            }
        }
        return current
    }

    static func distinct(_ values: [PredicateValue]) -> [PredicateValue] {
        var result: [PredicateValue] = []
        for v in values where !v.isNull && !result.contains(where: { ValueComparison.equal($0, v) }) {
            result.append(v)
        }
        return result
    }

    /// `CAST(value, 'Type')` for NSDate, NSNumber, NSString, NSDecimalNumber, NSData, NSUUID and NSURL.
    static func cast(_ value: PredicateValue, to type: String) throws(ObjectPredicateError) -> PredicateValue {
        func fail() -> ObjectPredicateError {
            ObjectPredicateError(.invalidArgument, "cannot CAST \(value.debugText) to \(type)")
        }
        if case .null = value { return .null }
        switch type {
        case "NSDate", "Date":
            switch value {
            case .date: return value
            case .string(let s):
                if let seconds = Double(s) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
                guard let date = DateText.parse(s) else { throw fail() }
                return .date(date)
            default:
                guard let seconds = ValueComparison.double(value) else { throw fail() }
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
        case "NSNumber":
            switch value {
            case .integer, .double, .decimal: return value
            case .boolean(let b): return .integer(b ? 1 : 0)
            case .date(let d): return .double(d.timeIntervalSinceReferenceDate)
            case .string(let s):
                let t = s.trimmingCharacters(in: .whitespaces)
                if let i = Int64(t) { return .integer(i) }
                if let d = Double(t) { return .double(d) }
                throw fail()
            default: throw fail()
            }
        case "NSDecimalNumber":
            switch value {
            case .string(let s):
                guard let d = try? AttributeValue(parsing: s, as: .decimal), case .decimal(let decimal) = d else {
                    throw fail()
                }
                return .decimal(decimal)
            default:
                guard let d = ValueComparison.decimal(value) else { throw fail() }
                return .decimal(d)
            }
        case "NSString":
            return .string(value.textValue)
        case "NSData":
            guard case .string(let s) = value, let d = Data(base64Encoded: s) else { throw fail() }
            return .data(d)
        case "NSUUID":
            guard case .string(let s) = value, let u = UUID(uuidString: s) else { throw fail() }
            return .uuid(u)
        case "NSURL":
            guard case .string(let s) = value, let u = URL(string: s) else { throw fail() }
            return .url(u)
        default:
            throw ObjectPredicateError(.invalidArgument, "unknown CAST type '\(type)'")
        }
    }
}

extension PredicateValue {
    /// Text for `CAST(…, 'NSString')` and messages.
    var textValue: String {
        switch self {
        case .null: ""
        case .boolean(let b): b ? "1" : "0"
        case .integer(let i): String(i)
        case .double(let d): "\(d)"
        case .decimal(let d): DecimalText.string(d)
        case .string(let s): s
        case .date(let d): String(d.timeIntervalSinceReferenceDate)
        case .data(let d): d.base64EncodedString()
        case .uuid(let u): u.uuidString
        case .url(let u): u.absoluteString
        case .collection(let items, _): "(" + items.map(\.textValue).joined(separator: ", ") + ")"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { "\($0) = \(entries[$0]!.textValue)" }.joined(separator: "; ") + "}"
        case .object(let o): "<\(type(of: o))>"
        }
    }

    /// A short description for error messages.
    var debugText: String {
        if case .string(let s) = self { return "\"\(s)\"" }
        return textValue
    }
}

extension Comparison {
    /// Whether the comparison holds between two values, with Apple's semantics (nil, numeric coercion, string
    /// options). Stores use this to evaluate string operators inside SQL with exactly the in-memory result.
    /// - Parameters:
    ///   - left: the left-hand value.
    ///   - right: the right-hand value.
    /// - Returns: whether the comparison holds.
    /// - Throws: ``ObjectPredicateError`` `invalidPattern` for a `MATCHES` pattern that is not a regular expression.
    public func holds(_ left: PredicateValue, _ right: PredicateValue) throws(ObjectPredicateError) -> Bool {
        try ExpressionEvaluator.compare(left, op, right, options)
    }
}

extension ObjectSortDescriptor {
    /// Orders two strings the way a sort descriptor with `comparison` does.
    /// - Parameters:
    ///   - a: one string.
    ///   - b: the other.
    ///   - comparison: how to compare them.
    /// - Returns: their order.
    public static func compareStrings(_ a: String, _ b: String, _ comparison: Comparison) -> ComparisonResult {
        order(.string(a), .string(b), comparison)
    }
}
