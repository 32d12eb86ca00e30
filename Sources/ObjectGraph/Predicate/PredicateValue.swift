public import Foundation

/// A value while a predicate is evaluated: a constant, a collection, a dictionary, or an object read by key.
public enum PredicateValue {
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
    /// A to-many value or an aggregate; `ordered` for arrays and ordered sets.
    case collection([PredicateValue], ordered: Bool)
    /// A dictionary row: key-value access reads its entries.
    case dictionary([String: PredicateValue])
    /// An object with key-value access, compared by identity.
    case object(any KeyValueCoding)

    /// The value for an attribute value; a composite value becomes a dictionary of its members, so that key paths
    /// such as `magnitude.richter` reach them.
    /// - Parameter value: the attribute value.
    public init(_ value: AttributeValue) {
        if case .composite(let members) = value {
            self = .dictionary(members.mapValues { PredicateValue($0) })
        } else {
            self = PredicateConstant(value).value
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The elements, for collections.
    public var elements: [PredicateValue]? {
        if case .collection(let items, _) = self { return items }
        return nil
    }

    /// The string, for strings.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value as a constant, when it is one (objects and dictionaries are not).
    public var constant: PredicateConstant? {
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
        case .collection(let items, _):
            items.allSatisfy { $0.constant != nil } ? .array(items.map { $0.constant! }) : nil
        case .dictionary, .object: nil
        }
    }

    /// Reads a key: a dictionary entry, an object's property, or — for a collection — the key of every element
    /// (nested collections are flattened, so a path through several to-many relationships yields one collection).
    /// - Parameter key: the key.
    /// - Returns: the value; ``null`` for a key a dictionary lacks.
    /// - Throws: ``ObjectPredicateError`` when an object cannot give the key's value.
    public func value(forKey key: String) throws(ObjectPredicateError) -> PredicateValue {
        switch self {
        case .dictionary(let entries): return entries[key] ?? .null
        case .object(let object): return try object.predicateValue(forKey: key)
        case .collection(let items, let ordered):
            var result: [PredicateValue] = []
            result.reserveCapacity(items.count)
            for item in items {
                let value = try item.value(forKey: key)
                if case .collection(let inner, _) = value { result += inner } else { result.append(value) }
            }
            return .collection(result, ordered: ordered)
        default:
            return .null
        }
    }
}

extension PredicateValue: Equatable {
    /// Structural equality: same kind and value; objects by identity; collections element by element.
    /// - Parameters:
    ///   - lhs: one value.
    ///   - rhs: the other.
    /// - Returns: whether they are equal.
    public static func == (lhs: PredicateValue, rhs: PredicateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.boolean(let a), .boolean(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.url(let a), .url(let b)): a == b
        case (.collection(let a, let x), .collection(let b, let y)): x == y && a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        case (.object(let a), .object(let b)): a === b
        default: false
        }
    }
}
