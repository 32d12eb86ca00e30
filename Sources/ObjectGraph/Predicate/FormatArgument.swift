public import Foundation

/// A value for a format specifier in ``ObjectPredicate/init(format:_:)``: `%@` takes any value, `%K` a key path,
/// `%d %i %ld %lld %u` an integer, `%f %lf %e %g` a number, `%s %c` a string.
public struct FormatArgument: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral
{
    /// The value.
    public var constant: PredicateConstant

    /// An argument holding a constant.
    public init(_ constant: PredicateConstant) { self.constant = constant }
    public init(_ value: Int) { constant = .integer(Int64(value)) }
    public init(_ value: Int64) { constant = .integer(value) }
    public init(_ value: Double) { constant = .double(value) }
    public init(_ value: Decimal) { constant = .decimal(value) }
    public init(_ value: String) { constant = .string(value) }
    public init(_ value: Bool) { constant = .boolean(value) }
    public init(_ value: Date) { constant = .date(value) }
    public init(_ value: UUID) { constant = .uuid(value) }
    public init(_ value: URL) { constant = .url(value) }
    public init(_ value: Data) { constant = .data(value) }
    public init(_ value: AttributeValue) { constant = PredicateConstant(value) }
    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }
    public init(stringLiteral value: String) { self.init(value) }
    public init(booleanLiteral value: Bool) { self.init(value) }
    public init(nilLiteral: ()) { constant = .null }
    public init(arrayLiteral elements: FormatArgument...) { constant = .array(elements.map(\.constant)) }

    /// A key path for `%K`.
    public static func keyPath(_ path: String) -> FormatArgument { FormatArgument(PredicateConstant.string(path)) }
}
