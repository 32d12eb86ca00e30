/// An expression in a predicate: a constant, a key path, a variable, a function, arithmetic, an aggregate, a
/// subquery, an index or a cast. The equivalent of `NSExpression`.
public indirect enum ObjectExpression: Sendable, Hashable {
    /// A literal or format-argument value.
    case constant(PredicateConstant)
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    /// `$NAME`: a substitution variable, or the element variable of a `SUBQUERY`.
    case variable(String)
    /// A key path read from a base expression: `name`, `author.name`, `$x.title`, `@count`, `books.@sum.price`.
    /// A plain key path has ``evaluatedObject`` as its base.
    case keyPath(ObjectExpression, [String])
    /// A function: a predicate-language function (`now()`, `sum(…)`, `lowercase(…)`) or a selector-style name
    /// (`modulus:by:(…)`).
    case function(String, [ObjectExpression])
    /// `FUNCTION(receiver, 'selector:', args…)`: a method call, parsed and printed but never evaluated.
    case methodCall(ObjectExpression, String, [ObjectExpression])
    /// Arithmetic: `+ - * / **`.
    case arithmetic(ArithmeticOperator, ObjectExpression, ObjectExpression)
    /// Unary minus on a non-constant.
    case negation(ObjectExpression)
    /// `{a, b, c}`.
    case aggregate([ObjectExpression])
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the collection that satisfy the predicate.
    case subquery(ObjectExpression, variable: String, ObjectPredicate)
    /// `collection[index]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
    case index(ObjectExpression, IndexKind)
    /// `CAST(value, 'NSDate' | 'NSNumber' | 'NSString' | …)`.
    case cast(ObjectExpression, String)
    /// `TERNARY(predicate, then, else)`.
    case conditional(ObjectPredicate, ObjectExpression, ObjectExpression)
    /// `$name := expression`.
    case assignment(String, ObjectExpression)
    /// `{…} UNION {…}`, `INTERSECT`, `MINUS`.
    case setOperation(SetOperator, ObjectExpression, ObjectExpression)
    /// `ANYKEY` (Spotlight only; parsed and printed, never evaluated).
    case anyKey

    /// The key path `path` on `SELF`, split at dots.
    /// - Parameter path: a key path such as `author.name`.
    /// - Returns: the expression.
    public static func key(_ path: String) -> ObjectExpression {
        .keyPath(.evaluatedObject, path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// A constant string.
    /// - Parameter s: the string.
    /// - Returns: the expression.
    public static func string(_ s: String) -> ObjectExpression { .constant(.string(s)) }

    /// A constant integer.
    /// - Parameter i: the integer.
    /// - Returns: the expression.
    public static func integer(_ i: Int64) -> ObjectExpression { .constant(.integer(i)) }
}

/// An arithmetic operator.
public enum ArithmeticOperator: String, Sendable, Hashable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case power = "**"

    var precedence: Int {
        switch self {
        case .add, .subtract: 1
        case .multiply, .divide: 2
        case .power: 4
        }
    }
}

/// A set operator between two aggregates.
public enum SetOperator: String, Sendable, Hashable {
    case union = "UNION"
    case intersect = "INTERSECT"
    case minus = "MINUS"
}

/// What an index expression selects.
public indirect enum IndexKind: Sendable, Hashable {
    case at(ObjectExpression)
    case first
    case last
    case size
}
