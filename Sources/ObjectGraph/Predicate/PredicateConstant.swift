public import Foundation

/// A constant in a predicate or expression: what a literal, a format argument or a substitution variable stands for.
public enum PredicateConstant: Sendable, Hashable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    /// A list of constants, e.g. a `%@` argument that is an array.
    case array([PredicateConstant])

    /// The constant for an attribute value (composites become null).
    /// - Parameter value: the attribute value.
    public init(_ value: AttributeValue) {
        switch value {
        case .null, .composite: self = .null
        case .integer16(let v): self = .integer(Int64(v))
        case .integer32(let v): self = .integer(Int64(v))
        case .integer64(let v): self = .integer(v)
        case .decimal(let v): self = .decimal(v)
        case .double(let v): self = .double(v)
        case .float(let v): self = .double(Double(v))
        case .string(let v): self = .string(v)
        case .boolean(let v): self = .boolean(v)
        case .date(let v): self = .date(v)
        case .binary(let v), .transformable(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .uri(let v), .objectID(let v): self = .url(v)
        }
    }

    /// The runtime value of this constant.
    public var value: PredicateValue {
        switch self {
        case .null: .null
        case .boolean(let b): .boolean(b)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .decimal(let d): .decimal(d)
        case .string(let s): .string(s)
        case .date(let d): .date(d)
        case .data(let d): .data(d)
        case .uuid(let u): .uuid(u)
        case .url(let u): .url(u)
        case .array(let items): .collection(items.map(\.value), ordered: true)
        }
    }
}
