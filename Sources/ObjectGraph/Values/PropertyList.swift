public import Foundation

/// A property-list value: what binary (`bplist00`) and XML property lists hold, store metadata, model user info
/// and keyed archives.
///
/// One type serves every property list of the package. ``uid(_:)`` appears only in keyed archives, where it refers
/// to an entry of `$objects`; ``null`` only in binary property lists. Neither is silently dropped: a store writes
/// them where its format can hold them and refuses them where it cannot.
public enum PropertyList: Sendable, Hashable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A boolean.
    case boolean(Bool)
    /// A date.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([PropertyList])
    /// Values by string key.
    case dictionary([String: PropertyList])
    /// A reference to an object of a keyed archive, by index into `$objects`.
    case uid(Int)
    /// The null value of binary property lists.
    case null

    /// The string, for ``string(_:)``.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, for ``integer(_:)`` and for ``boolean(_:)`` (0 or 1).
    public var integer: Int64? {
        switch self {
        case .integer(let i): i
        case .boolean(let b): b ? 1 : 0
        case .real(let r): Int64(exactly: r)
        default: nil
        }
    }

    /// The boolean, for ``boolean(_:)`` and for the integers 0 and 1.
    public var boolean: Bool? {
        switch self {
        case .boolean(let b): b
        case .integer(let i): i != 0
        default: nil
        }
    }

    /// The bytes, for ``data(_:)``.
    public var data: Data? {
        if case .data(let d) = self { return d }
        return nil
    }

    /// The elements, for ``array(_:)``.
    public var array: [PropertyList]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries, for ``dictionary(_:)``.
    public var dictionary: [String: PropertyList]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// The object index, for ``uid(_:)``.
    public var uid: Int? {
        if case .uid(let u) = self { return u }
        return nil
    }

    /// The value under `key`, for dictionaries.
    /// - Parameter key: the key.
    public subscript(key: String) -> PropertyList? {
        dictionary?[key]
    }
}
