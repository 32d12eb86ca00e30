import CSQLite
import Foundation

/// A minimal connection to one SQLite database file, closed when released.
///
/// Not `Sendable`: a connection is used from one isolation domain at a time.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    let path: String

    init(path: String, readOnly: Bool) throws(SQLiteStoreError) {
        self.path = path
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteStoreError(.io, path: path, message, resultCode: status)
        }
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        sqlite3_close(handle)
    }

    /// Runs `sql` and returns the rows, each column as Swift value (`Int64`, `Double`, `String`, `Data` or nil).
    func query(_ sql: String) throws(SQLiteStoreError) -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw error(status)
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[SQLiteValue]] = []
        while true {
            status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(status) }
            var row: [SQLiteValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let bytes = sqlite3_column_blob(statement, column), count > 0 {
                        row.append(.blob(Data(bytes: bytes, count: count)))
                    } else {
                        row.append(.blob(Data()))
                    }
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Whether a table with this name exists.
    func hasTable(_ name: String) throws(SQLiteStoreError) -> Bool {
        let escaped = name.replacingOccurrences(of: "'", with: "''")
        return !(try query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(escaped)'")).isEmpty
    }

    private func error(_ status: Int32) -> SQLiteStoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        let code: SQLiteStoreError.Code = (status == SQLITE_NOTADB || status == SQLITE_CORRUPT) ? .notAStore : .io
        return SQLiteStoreError(code, path: path, message, resultCode: status)
    }
}

/// One column value of a SQLite row.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
