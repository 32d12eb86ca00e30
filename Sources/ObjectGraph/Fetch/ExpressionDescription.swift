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
    /// - Parameters:
    ///   - name: the key the result has in each dictionary.
    ///   - expression: the expression.
    ///   - resultType: the type of its result.
    public init(name: String, expression: ObjectExpression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }

    /// An aggregate over a key path of all matching objects.
    /// - Parameters:
    ///   - function: `sum`, `average`, `min`, `max` or `count`.
    ///   - keyPath: the key path aggregated.
    ///   - name: the key the result has.
    ///   - resultType: the type of its result.
    /// - Returns: the expression description.
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
