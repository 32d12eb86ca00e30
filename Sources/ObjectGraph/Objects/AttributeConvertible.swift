public import Foundation

/// A Swift type that typed properties of managed object subclasses can use: `String`, the integer types, `Double`,
/// `Float`, `Bool`, `Date`, `Data`, `UUID`, `URL` and `Decimal`.
public protocol AttributeConvertible {
    /// The value as an attribute value.
    var attributeValue: AttributeValue { get }
    /// The Swift value of an attribute value, or `nil` when it is null or of another kind.
    init?(attributeValue: AttributeValue)
}

extension String: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .string(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard case .string(let s) = attributeValue else { return nil }
        self = s
    }
}

extension Int: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .integer64(Int64(self)) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard let v = attributeValue.int64Value, let i = Int(exactly: v) else { return nil }
        self = i
    }
}

extension Int16: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .integer16(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard let v = attributeValue.int64Value, let i = Int16(exactly: v) else { return nil }
        self = i
    }
}

extension Int32: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .integer32(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard let v = attributeValue.int64Value, let i = Int32(exactly: v) else { return nil }
        self = i
    }
}

extension Int64: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .integer64(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard let v = attributeValue.int64Value else { return nil }
        self = v
    }
}

extension Double: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .double(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard case .boolean = attributeValue else {
            guard let d = attributeValue.doubleValue else { return nil }
            self = d
            return
        }
        return nil
    }
}

extension Float: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .float(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard let d = Double(attributeValue: attributeValue) else { return nil }
        self = Float(d)
    }
}

extension Bool: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .boolean(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard case .boolean(let b) = attributeValue else { return nil }
        self = b
    }
}

extension Date: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .date(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard case .date(let d) = attributeValue else { return nil }
        self = d
    }
}

extension Data: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .binary(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .binary(let d), .transformable(let d): self = d
        default: return nil
        }
    }
}

extension UUID: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .uuid(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard case .uuid(let u) = attributeValue else { return nil }
        self = u
    }
}

extension URL: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .uri(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .uri(let u), .objectID(let u): self = u
        default: return nil
        }
    }
}

extension Decimal: AttributeConvertible {
    /// The value as an attribute value of the matching type.
    public var attributeValue: AttributeValue { .decimal(self) }
    /// The value an attribute value holds, or `nil` when it holds another type.
    /// - Parameter attributeValue: The attribute value.
    public init?(attributeValue: AttributeValue) {
        guard let d = attributeValue.decimalValue else { return nil }
        self = d
    }
}
