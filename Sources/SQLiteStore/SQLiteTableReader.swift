import CSQLite
public import Foundation
import ModelFiles
import ObjectGraph

/// Reads the tables of any SQLite database, row by row, without changing it (not the file, not its side files, not
/// its folder): the source of an import from an app's own SQLite schema.
public final class SQLiteTableReader {
    private let database: SQLiteDatabase
    private let scratch: URL?
    /// The database file.
    public let url: URL

    /// Opens a database to read.
    /// - Parameter url: the database file (opened read-only).
    /// - Throws: ``SQLiteStoreError`` when the file is missing or is not a SQLite database.
    public init(url: URL) throws(SQLiteStoreError) {
        self.url = url
        guard ReadOnlyOpening.isRegularFile(url.path) else {
            throw SQLiteStoreError(.notFound, path: url.path, "no such file")
        }
        (database, scratch) = try ReadOnlyOpening.open(url.path)
    }

    deinit {
        database.close()
        if let scratch { ScratchFolders.remove(scratch) }
    }

    /// Whether the database is a Core Data store (it has a `Z_METADATA` table).
    public var isCoreDataStore: Bool {
        get throws(SQLiteStoreError) { try database.hasTable("Z_METADATA") }
    }

    /// The names of the database's own tables, in the order they were made (SQLite's internal tables left out).
    /// - Returns: the table names.
    /// - Throws: ``SQLiteStoreError`` when the schema cannot be read.
    public func tables() throws(SQLiteStoreError) -> [String] {
        try database.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid"
        ).compactMap { row in
            if case .text(let name) = row.first { return name }
            return nil
        }
    }

    /// The column names of a table, in order.
    /// - Parameter table: the table's name.
    /// - Returns: its column names.
    /// - Throws: ``SQLiteStoreError`` when the table does not exist or cannot be read.
    public func columns(of table: String) throws(SQLiteStoreError) -> [String] {
        try database.columns(of: table)
    }

    /// The rows of a table, in rowid order: each with its rowid (or its position, for a table without rowids).
    /// - Parameter table: the table's name.
    /// - Returns: a cursor over its rows, read as they are asked for.
    /// - Throws: ``SQLiteStoreError`` when the table cannot be read.
    public func rows(of table: String) throws(SQLiteStoreError) -> Rows {
        do {
            return try Rows(
                database, "SELECT rowid, * FROM \(SQLiteDatabase.quote(table)) ORDER BY rowid", numbered: false)
        } catch {
            // A WITHOUT ROWID table: rows are numbered in the order SQLite gives them.
            return try Rows(database, "SELECT NULL, * FROM \(SQLiteDatabase.quote(table))", numbered: true)
        }
    }

    /// A cursor over the rows of one table.
    public final class Rows {
        private let database: SQLiteDatabase
        private var statement: OpaquePointer?
        private let numbered: Bool
        private var count: Int64 = 0

        init(_ database: SQLiteDatabase, _ sql: String, numbered: Bool) throws(SQLiteStoreError) {
            self.database = database
            self.numbered = numbered
            var prepared: OpaquePointer?
            let status = sqlite3_prepare_v2(database.handle, sql, -1, &prepared, nil)
            guard status == SQLITE_OK, let prepared else {
                sqlite3_finalize(prepared)
                throw database.error(status, "reading \(sql.prefix(200))")
            }
            statement = prepared
        }

        deinit { sqlite3_finalize(statement) }

        /// The next row's rowid and values, or `nil` after the last.
        /// - Returns: the row, or `nil` after the last one.
        /// - Throws: ``SQLiteStoreError`` when the row cannot be read, or a text value is not UTF-8.
        public func next() throws(SQLiteStoreError) -> (rowid: Int64, cells: [SQLiteCell])? {
            guard let statement else { return nil }
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE {
                sqlite3_finalize(statement)
                self.statement = nil
                return nil
            }
            guard status == SQLITE_ROW else { throw database.error(status, "reading a row") }
            count += 1
            let rowid = numbered ? count : sqlite3_column_int64(statement, 0)
            var cells: [SQLiteCell] = []
            let columns = sqlite3_column_count(statement)
            cells.reserveCapacity(Int(max(columns - 1, 0)))
            for i in 1..<max(columns, 1) {
                switch sqlite3_column_type(statement, i) {
                case SQLITE_INTEGER: cells.append(.integer(sqlite3_column_int64(statement, i)))
                case SQLITE_FLOAT: cells.append(.real(sqlite3_column_double(statement, i)))
                case SQLITE_TEXT:
                    let length = Int(sqlite3_column_bytes(statement, i))
                    guard length > 0, let text = sqlite3_column_text(statement, i) else {
                        cells.append(.text(""))
                        continue
                    }
                    guard
                        let string = UTF8Text.string(UnsafeBufferPointer(start: text, count: length))
                    else {
                        throw SQLiteStoreError(
                            .malformed, path: database.path, "rowid \(rowid) column \(i): the text is not UTF-8")
                    }
                    cells.append(.text(string))
                case SQLITE_BLOB:
                    let length = Int(sqlite3_column_bytes(statement, i))
                    guard length > 0, let bytes = sqlite3_column_blob(statement, i) else {
                        cells.append(.blob(Data()))
                        continue
                    }
                    cells.append(.blob(Data(bytes: bytes, count: length)))
                default: cells.append(.null)
                }
            }
            return (rowid, cells)
        }
    }
}
