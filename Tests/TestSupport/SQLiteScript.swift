import CSQLite
public import Foundation

/// Runs SQL on a database file with the sqlite3 C API: how tests damage a store the way another program could.
public enum SQLiteScript {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Executes `sql` (one or more statements) on the database at `url`.
    public static func execute(_ url: URL, _ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close(db)
            throw Failure(description: "cannot open \(url.path)")
        }
        defer { sqlite3_close(db) }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw Failure(description: "\(sql): \(text)")
        }
    }
}
