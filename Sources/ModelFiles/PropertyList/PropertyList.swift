public import Foundation

/// A property-list value, as read from a binary (`bplist00`) or XML property list.
///
/// ``uid(_:)`` appears only in keyed archives, where it refers to an entry of `$objects`.
public enum PropertyList: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyList])
    case dictionary([String: PropertyList])
    case uid(Int)
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
    public subscript(key: String) -> PropertyList? {
        dictionary?[key]
    }

    /// Reads a property list in either format, choosing by the first bytes.
    /// - Throws: ``ModelFileError`` naming the offset or line of the problem.
    public static func read(_ data: Data) throws(ModelFileError) -> PropertyList {
        if data.starts(with: Array("bplist".utf8)) {
            var reader = BinaryPropertyListReader(data: data)
            return try reader.read()
        }
        return try XMLPropertyListReader.read(data)
    }
}
