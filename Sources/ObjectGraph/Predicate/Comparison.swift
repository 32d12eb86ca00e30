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
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        /// - Parameter rawValue: The option bits.
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

    /// The left-hand expression.
    public var lhs: ObjectExpression
    /// The comparison operator.
    public var op: Operator
    /// The right-hand expression.
    public var rhs: ObjectExpression
    /// `ANY`, `ALL`, `NONE` or direct.
    public var modifier: Modifier
    /// String options: `[c]` case-insensitive, `[d]` diacritic-insensitive, `[n]` normalized.
    public var options: Options

    /// Creates a comparison.
    /// - Parameters:
    ///   - lhs: the left-hand expression.
    ///   - op: the operator.
    ///   - rhs: the right-hand expression.
    ///   - modifier: `ANY`, `ALL`, `NONE` or direct.
    ///   - options: string options.
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
