import Foundation

/// Where in a source a value was read: a line and column (CSV, TSV, JSON), a key path (property lists, keyed
/// archives), or a table row (SQLite).
public enum ImportPlace: Sendable, Hashable {
    case position(line: Int, column: Int)
    case keyPath(String)
    case row(table: String, rowid: Int64, column: String?)

    /// The place in `FILE:LINE:COLUMN` form (or `FILE: key path`, `FILE: table T rowid N`).
    /// - Parameter file: the source's path.
    /// - Returns: the place, for messages.
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
