import CSQLite
import Foundation
import ObjectGraph

/// SQLite's `SQLITE_TRANSIENT`, which does not import into Swift: SQLite copies bound values.
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// One column value of a SQLite row.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// A TEXT value that is not UTF-8, kept as its bytes (never read as a string with replacement characters).
    case invalidText(Data)
    case blob(Data)
}

/// A connection to one SQLite database file with a cache of prepared statements, closed when released.
///
/// Not `Sendable`: a connection is used from one place at a time (stores use theirs under the coordinator's lock).
final class SQLiteDatabase {
    /// (Set when the connection opens and closes, read for every statement: unchecked for exclusivity.)
    @exclusivity(unchecked) private(set) var handle: OpaquePointer?
    let path: String
    private(set) var statements: [String: OpaquePointer] = [:]
    /// Counts the times the prepared statements were all finalized: a statement kept by a caller (to step it again
    /// without looking its text up) is still good while this is unchanged.
    /// (Read for every row a save writes: unchecked for exclusivity.)
    @exclusivity(unchecked) private(set) var statementGeneration = 0
    /// The texts of the row being written with ``bindInRow(_:_:_:)``, until ``stepRow(_:sql:)``.
    private let rowTexts = RowTexts()

    /// Opens a database file.
    /// - Parameter parameters: SQLite URI parameters (`mode=ro`, `immutable=1`); the file is then opened as a
    ///   `file:` URI with its path percent-encoded.
    init(path: String, readOnly: Bool, create: Bool = false, parameters: [(String, String)] = [])
        throws(SQLiteStoreError)
    {
        self.path = path
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        var name = path
        if !parameters.isEmpty {
            flags |= SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?" + parameters.map { "\($0)=\($1)" }.joined(separator: "&")
        }
        let status = sqlite3_open_v2(name, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteStoreError(.io, path: path, message, resultCode: status)
        }
        sqlite3_busy_timeout(handle, 5_000)
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        close()
    }

    /// Finalizes every statement and closes the connection; later calls fail with SQLITE_MISUSE (never crash).
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        statementGeneration += 1
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// A path as the path part of a `file:` URI: every byte but unreserved characters and `/` percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    func error(_ status: Int32, _ context: String = "") -> SQLiteStoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        let primary = status & 0xFF
        let code: SQLiteStoreError.Code
        switch primary {
        case SQLITE_NOTADB, SQLITE_CORRUPT: code = .notAStore
        // A statement that does not prepare names a table or column the file lacks: the store is malformed.
        case SQLITE_ERROR where context.hasPrefix("preparing"): code = .malformed
        default: code = .io
        }
        return SQLiteStoreError(
            code, path: path, context.isEmpty ? message : "\(context): \(message)", resultCode: status)
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(SQLiteStoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteStoreError(.io, path: path, "\(text) (in: \(sql.prefix(120)))", resultCode: status)
        }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    func statement(_ sql: String) throws(SQLiteStoreError) -> OpaquePointer {
        if let cached = statements[sql] {
            sqlite3_reset(cached)
            sqlite3_clear_bindings(cached)
            return cached
        }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, "preparing \(sql.prefix(200))") }
        if statements.count > 512 {
            for s in statements.values { sqlite3_finalize(s) }
            statements.removeAll()
            statementGeneration += 1
        }
        statements[sql] = statement
        return statement
    }

    func bind(_ statement: OpaquePointer, _ values: [SQLiteValue]) throws(SQLiteStoreError) {
        for (i, value) in values.enumerated() { try bind(statement, Int32(i + 1), value) }
    }

    /// Binds one parameter (numbered from 1).
    func bind(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteStoreError) {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(statement, index)
        case .integer(let v): status = sqlite3_bind_int64(statement, index, v)
        case .real(let v): status = sqlite3_bind_double(statement, index, v)
        case .text(let s):
            // By its length: a string may hold U+0000, which a C string would end at.
            var s = s
            status = s.withUTF8 { bytes in
                // An empty string still needs a pointer (NULL would bind NULL); nothing is read from it.
                let text =
                    bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
                    ?? UnsafePointer<CChar>(bitPattern: 1)
                return sqlite3_bind_text64(
                    statement, index, text, UInt64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        case .invalidText(let d):
            // Bound back as the TEXT bytes it was read as.
            status = d.withUnsafeBytes {
                sqlite3_bind_text64(
                    statement, index,
                    $0.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) }
                        ?? UnsafePointer<CChar>(bitPattern: 1), UInt64($0.count), sqliteTransient,
                    UInt8(SQLITE_UTF8))
            }
        case .blob(let d):
            status = d.withUnsafeBytes {
                sqlite3_bind_blob64(
                    statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count),
                    sqliteTransient)
            }
        }
        if status != SQLITE_OK { throw error(status, "binding") }
    }

    /// Binds one parameter of a row that ``stepRow(_:sql:)`` then writes (or ``abandonRow(_:)`` gives up): a text's
    /// bytes are copied into the connection's row space, which SQLite reads in place, without a copy of its own.
    func bindInRow(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteStoreError) {
        guard case .text(var s) = value else {
            try bind(statement, index, value)
            return
        }
        let status = s.withUTF8 { bytes in bindTextInRow(statement, index, bytes) }
        if status != SQLITE_OK { throw error(status, "binding") }
    }

    /// Binds a text's UTF-8 bytes as ``bindInRow(_:_:_:)`` does (copied into the row space); SQLite's status.
    func bindTextInRow(_ statement: OpaquePointer, _ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        // By its length: a string may hold U+0000, which a C string would end at.
        sqlite3_bind_text64(statement, index, rowTexts.copy(bytes), UInt64(bytes.count), nil, UInt8(SQLITE_UTF8))
    }

    /// Runs a statement whose row was bound with ``bindInRow(_:_:_:)``, then resets it and clears its bindings (no
    /// binding is left pointing into the row space, which the next row uses again).
    func stepRow(_ statement: OpaquePointer, sql: String) throws(SQLiteStoreError) {
        defer { abandonRow(statement) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw error(status, "running \(sql.prefix(200))") }
    }

    /// Runs a statement whose every parameter was bound for this row with ``bindInRow(_:_:_:)`` (a run of inserts),
    /// then resets it. Its bindings are not cleared: the next row of the run binds every parameter again before it
    /// steps, and ``statement(_:)`` clears them before any other use (SQLite reads a binding only when it steps).
    func stepBoundRow(_ statement: OpaquePointer, sql: String) throws(SQLiteStoreError) {
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else {
            let failure = error(status, "running \(sql.prefix(200))")
            abandonRow(statement)
            throw failure
        }
        sqlite3_reset(statement)
        rowTexts.reset()
    }

    /// Gives up a row bound with ``bindInRow(_:_:_:)`` (a value failed before it was written): the statement is reset
    /// and its bindings cleared, and the row space is free again.
    func abandonRow(_ statement: OpaquePointer) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        rowTexts.reset()
    }

    static func column(_ statement: OpaquePointer, _ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, i))
            guard count > 0, let text = sqlite3_column_text(statement, i) else { return .text("") }
            let bytes = UnsafeBufferPointer(start: text, count: count)
            guard let string = UTF8Text.string(bytes) else { return .invalidText(Data(bytes)) }
            return .text(string)
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, i))
            guard count > 0, let bytes = sqlite3_column_blob(statement, i) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// Whether SQLite's plan for `sql` sorts its rows in a temporary b-tree for its `ORDER BY` (from `EXPLAIN QUERY
    /// PLAN`, prepared and let go here: not kept with the statements). Parameters need no values for the plan.
    func sortsInTemporaryTree(_ sql: String) throws(SQLiteStoreError) -> Bool {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard status == SQLITE_OK, let statement else { throw error(status, "preparing \(sql.prefix(200))") }
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return false }
            guard step == SQLITE_ROW else { throw error(step, "planning \(sql.prefix(200))") }
            // The columns are id, parent, notused and detail.
            if let detail = sqlite3_column_text(statement, 3),
                String(cString: detail).contains("TEMP B-TREE FOR ORDER BY")
            {
                return true
            }
        }
    }

    /// Runs a statement with bindings and calls `row` for each result row.
    func query(_ sql: String, _ bindings: [SQLiteValue] = [], row: (OpaquePointer) throws(SQLiteStoreError) -> Void)
        throws(SQLiteStoreError)
    {
        let statement = try statement(sql)
        defer { sqlite3_reset(statement) }
        try bind(statement, bindings)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw error(status, "running \(sql.prefix(200))") }
            try row(statement)
        }
    }

    /// Runs a statement and returns every row as values.
    func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteStoreError) -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try query(sql, bindings) { (statement) throws(SQLiteStoreError) in
            rows.append((0..<sqlite3_column_count(statement)).map { Self.column(statement, $0) })
        }
        return rows
    }

    /// Runs a prepared statement that returns no rows again, with new values (every parameter bound).
    /// - Parameters:
    ///   - statement: from ``statement(_:)``.
    ///   - bindings: a value for each parameter.
    ///   - sql: its text, for the error message.
    func step(_ statement: OpaquePointer, _ bindings: [SQLiteValue], sql: String) throws(SQLiteStoreError) {
        try bind(statement, bindings)
        try step(statement, sql: sql)
    }

    /// Runs a statement whose parameters are bound, then resets it.
    func step(_ statement: OpaquePointer, sql: String) throws(SQLiteStoreError) {
        defer { sqlite3_reset(statement) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw error(status, "running \(sql.prefix(200))") }
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteStoreError) {
        try step(try statement(sql), bindings, sql: sql)
    }

    /// The tables and triggers of the database, read with one statement (asking table by table took a statement for
    /// each); the columns of a table are read when first asked for.
    func catalog() throws(SQLiteStoreError) -> SQLiteCatalog {
        var catalog = SQLiteCatalog(database: self)
        try query("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger')") {
            (statement) throws(SQLiteStoreError) in
            guard case .text(let type) = Self.column(statement, 0), case .text(let name) = Self.column(statement, 1)
            else { return }
            catalog.add(type: type, name: name)
        }
        return catalog
    }

    /// Whether a table with this name exists.
    func hasTable(_ name: String) throws(SQLiteStoreError) -> Bool {
        !(try query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)])).isEmpty
    }

    /// The column names of a table, in order.
    func columns(of table: String) throws(SQLiteStoreError) -> [String] {
        try query("PRAGMA table_info(\(Self.quote(table)))").compactMap { row in
            if case .text(let name) = row[1] { return name }
            return nil
        }
    }

    static func quote(_ identifier: String) -> String {
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// What a database holds, as a store opening checks it (see ``SQLiteDatabase/catalog()``): its tables and triggers by
/// name, and the columns of the tables asked about.
struct SQLiteCatalog {
    let database: SQLiteDatabase
    /// The tables' names, in the order the schema lists them.
    private(set) var tables: [String] = []
    private var tableNames: Set<String> = []
    /// The triggers' names.
    private(set) var triggers: [String] = []
    /// The columns of each table asked about, as a set.
    private var columnsByName: [String: Set<String>] = [:]

    init(database: SQLiteDatabase) { self.database = database }

    /// Records one row of the catalog's statement.
    mutating func add(type: String, name: String) {
        if type == "trigger" {
            triggers.append(name)
        } else if tableNames.insert(name).inserted {
            tables.append(name)
        }
    }

    /// Whether a table of exactly this name exists (as `name = ?` in `sqlite_master` finds it).
    func hasTable(_ name: String) -> Bool { tableNames.contains(name) }

    /// The names of a table's columns (`PRAGMA table_info`, read once per table); none when there is no such table.
    mutating func columns(of table: String) throws(SQLiteStoreError) -> Set<String> {
        if let known = columnsByName[table] { return known }
        let found = Set(try database.columns(of: table))
        columnsByName[table] = found
        return found
    }
}
