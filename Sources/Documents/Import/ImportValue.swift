public import Foundation

/// A value read from a source, before it is converted to an attribute's type.
public enum ImportValue: Sendable {
    /// No value (JSON `null`, a property list's `NSNull`, SQL `NULL`).
    case null
    /// A CSV or TSV cell: parsed by the attribute's type; an empty cell is nil.
    case text(String)
    /// A string (JSON, property list, SQLite text): parsed by the attribute's type unless that is String.
    case string(String)
    /// A whole number.
    case integer(Int64)
    /// A JSON number that is not a whole number fitting 64 bits, as written (kept exact for decimals).
    case number(String)
    /// A floating-point number.
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([ImportNode])
    case object([ImportField])

    /// A few words naming the kind of value, for messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .text, .string: "a string"
        case .integer, .number, .real: "a number"
        case .bool: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
