public import Foundation

/// A value for a format specifier in ``ObjectPredicate/init(format:_:)``: `%@` takes any value, `%K` a key path,
/// `%d %i %ld %lld %u` an integer, `%f %lf %e %g` a number, `%s %c` a string.
public struct FormatArgument: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral
{
    /// The value.
    public var constant: PredicateConstant

    /// An argument holding a constant.
    /// - Parameter constant: the constant.
    public init(_ constant: PredicateConstant) { self.constant = constant }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Int) { constant = .integer(Int64(value)) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Int64) { constant = .integer(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Double) { constant = .double(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Decimal) { constant = .decimal(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: String) { constant = .string(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Bool) { constant = .boolean(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Date) { constant = .date(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: UUID) { constant = .uuid(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: URL) { constant = .url(value) }
    /// An argument for a `%@`, `%d` or `%f` placeholder.
    /// - Parameter value: The value.
    public init(_ value: Data) { constant = .data(value) }
    /// An attribute value, converted to the matching constant.
    /// - Parameter value: The value.
    public init(_ value: AttributeValue) { constant = PredicateConstant(value) }
    /// An integer literal.
    /// - Parameter value: The integer.
    public init(integerLiteral value: Int) { self.init(value) }
    /// A floating-point literal.
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) { self.init(value) }
    /// A string literal.
    /// - Parameter value: The string.
    public init(stringLiteral value: String) { self.init(value) }
    /// A boolean literal.
    /// - Parameter value: The boolean.
    public init(booleanLiteral value: Bool) { self.init(value) }
    /// `nil`: the predicate's `NULL`.
    /// - Parameter nilLiteral: the `nil` literal.
    public init(nilLiteral: ()) { constant = .null }
    /// An array (for `IN` and aggregates).
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: FormatArgument...) { constant = .array(elements.map(\.constant)) }

    /// A key path for `%K`.
    /// - Parameter path: the key path.
    /// - Returns: the argument.
    public static func keyPath(_ path: String) -> FormatArgument { FormatArgument(PredicateConstant.string(path)) }
}
