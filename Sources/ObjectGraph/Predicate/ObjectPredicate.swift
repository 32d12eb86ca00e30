/// A predicate in Apple's language: a comparison, a compound of predicates, or a constant truth value. The
/// equivalent of `NSPredicate`.
///
/// Create one from a format string with ``init(format:_:)`` and print it back with ``format``:
///
/// ```swift
/// let p = try ObjectPredicate(format: "age > %d AND name BEGINSWITH[c] %@", 30, "a")
/// p.format                                   // age > 30 AND name BEGINSWITH[c] "a"
/// try p.evaluate(with: .dictionary(["age": .integer(40), "name": .string("Alice")]))   // true
/// ```
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`.
    case `true`
    /// `FALSEPREDICATE`.
    case `false`
    /// All of the predicates (`AND`, `&&`).
    case and([ObjectPredicate])
    /// Any of the predicates (`OR`, `||`).
    case or([ObjectPredicate])
    /// The opposite (`NOT`, `!`).
    case not(ObjectPredicate)
    /// A comparison of two expressions.
    case comparison(Comparison)
}

/// A comparison `lhs OP rhs`, with an optional quantifier (`ANY`, `ALL`, `NONE`) and options (`[cd]`).
public struct Comparison: Sendable, Hashable {
    /// How the left side is quantified.
    public enum Modifier: String, Sendable, Hashable {
        /// No quantifier: the values are compared as they are.
        case direct = ""
        /// `ANY`/`SOME`: true when some element of the left collection satisfies the comparison.
        case any = "ANY"
        /// `ALL`: every element (true for an empty collection).
        case all = "ALL"
        /// `NONE`: no element (true for an empty collection).
        case none = "NONE"
    }

    /// The comparison operator.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case equal = "=="
        case notEqual = "!="
        case matches = "MATCHES"
        case like = "LIKE"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case `in` = "IN"
        case contains = "CONTAINS"
        case between = "BETWEEN"
        case utiConformsTo = "UTI-CONFORMS-TO"
        case utiEquals = "UTI-EQUALS"
    }

    /// String comparison options.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: Unicode case folding.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritics are ignored.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized (a speed hint; no effect on results here).
        public static let normalized = Options(rawValue: 4)
        /// `[l]`: locale-sensitive (no effect on results here).
        public static let localeSensitive = Options(rawValue: 8)
    }

    public var lhs: ObjectExpression
    public var op: Operator
    public var rhs: ObjectExpression
    public var modifier: Modifier
    public var options: Options

    /// Creates a comparison.
    public init(
        _ lhs: ObjectExpression, _ op: Operator, _ rhs: ObjectExpression, modifier: Modifier = .direct,
        options: Options = []
    ) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.modifier = modifier
        self.options = options
    }
}
