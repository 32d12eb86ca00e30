public import Foundation

/// Where in a source a value was read: a line and column (CSV, TSV, JSON), a key path (property lists, keyed
/// archives), or a table row (SQLite).
public enum ImportPlace: Sendable, Hashable {
    case position(line: Int, column: Int)
    case keyPath(String)
    case row(table: String, rowid: Int64, column: String?)

    /// The place in `FILE:LINE:COLUMN` form (or `FILE: key path`, `FILE: table T rowid N`).
    public func described(in file: String) -> String {
        switch self {
        case .position(let line, let column): "\(file):\(line):\(column)"
        case .keyPath(let path): "\(file): \(path.isEmpty ? "(root)" : path)"
        case .row(let table, let rowid, let column):
            "\(file): table \(table) rowid \(rowid)\(column.map { " column \($0)" } ?? "")"
        }
    }

    /// The key path of an element or member below this place (for key-path places; positions stay as they are).
    func appending(_ component: String) -> ImportPlace {
        guard case .keyPath(let path) = self else { return self }
        return .keyPath(path.isEmpty ? component : path + "." + component)
    }
}

/// A value read from a source, before it is converted to an attribute's type.
public indirect enum ImportValue: Sendable {
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

/// A value and where it was read.
public struct ImportNode: Sendable {
    public var value: ImportValue
    public var place: ImportPlace

    public init(_ value: ImportValue, at place: ImportPlace) {
        self.value = value
        self.place = place
    }
}

/// A named value of a record (a JSON member, a dictionary entry, a column).
public struct ImportField: Sendable {
    public var name: String
    public var node: ImportNode

    public init(name: String, node: ImportNode) {
        self.name = name
        self.node = node
    }
}
