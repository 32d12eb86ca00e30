import CBenchSQLite
import CBenchXML2
import Foundation

/// The floor of `docutil convert` from the company document's XML store to SQLite (`Benchmarks/cli-bench`):
/// libxml2's `xmlTextReader` over the file and the raw SQLite C API inserting the same rows into the same tables
/// and indexes, in one transaction. It knows the company model (tables, columns, entity numbers) instead of reading
/// it, and binds values as the file spells them (no base64 or UUID decoding): less work than a conversion does.
/// `docutil-bench convert-floor XML SQLITE`.
enum ConvertFloor {
    static let schema = """
        CREATE TABLE ZDEPARTMENT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
        CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZACTIVE INTEGER, ZAGE INTEGER,
            ZID INTEGER, ZDEPARTMENT INTEGER, ZMANAGER INTEGER, ZLEVEL INTEGER, ZJOINED TIMESTAMP, ZSALARY FLOAT,
            ZBONUS DECIMAL, ZEMAIL VARCHAR, ZNAME VARCHAR, ZBADGE BLOB, ZPHOTO BLOB);
        CREATE TABLE Z_2FRIENDS (Z_2FRIENDS1 INTEGER, Z_2FRIENDS INTEGER, PRIMARY KEY (Z_2FRIENDS1, Z_2FRIENDS));
        CREATE INDEX ZPERSON_ZDEPARTMENT_INDEX ON ZPERSON (ZDEPARTMENT);
        CREATE INDEX ZPERSON_ZMANAGER_INDEX ON ZPERSON (ZMANAGER);
        CREATE INDEX ZPERSON_Z_ENT_INDEX ON ZPERSON (Z_ENT);
        CREATE INDEX Z_2FRIENDS_Z_2FRIENDS_INDEX ON Z_2FRIENDS (Z_2FRIENDS, Z_2FRIENDS1);
        """
    /// Person's columns after Z_PK, Z_ENT, Z_OPT, by the XML store's attribute and relationship names.
    static let personColumns = [
        "active", "age", "id", "department", "manager", "level", "joined", "salary", "bonus", "email", "name", "badge",
        "photo",
    ]
    static let textColumns: Set<String> = ["email", "name", "badge", "photo"]
    static let realColumns: Set<String> = ["joined", "salary", "bonus"]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(xml: String, sqlite: String) throws {
        unlink(sqlite)
        var db: OpaquePointer?
        guard sqlite3_open(sqlite, &db) == SQLITE_OK, let db else {
            throw Failure(description: "cannot open \(sqlite)")
        }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw Failure(description: String(cString: sqlite3_errmsg(db)))
            }
        }
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw Failure(description: String(cString: sqlite3_errmsg(db)))
            }
            return statement
        }
        try exec("PRAGMA journal_mode = DELETE")
        try exec(schema)
        try exec("BEGIN")
        let department = try prepare("INSERT INTO ZDEPARTMENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 1, 1, ?)")
        let person = try prepare(
            "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, \(personColumns.map { "Z" + $0.uppercased() }.joined(separator: ", "))) VALUES (?, ?, 1\(String(repeating: ", ?", count: personColumns.count)))"
        )
        let friend = try prepare("INSERT OR IGNORE INTO Z_2FRIENDS (Z_2FRIENDS1, Z_2FRIENDS) VALUES (?, ?)")
        defer { for s in [department, person, friend] { sqlite3_finalize(s) } }
        let index = Dictionary(uniqueKeysWithValues: personColumns.enumerated().map { ($1, Int32($0 + 3)) })

        guard let reader = xmlReaderForFile(xml, nil, 0) else { throw Failure(description: "cannot read \(xml)") }
        defer { xmlFreeTextReader(reader) }
        func attribute(_ name: String) -> String? {
            guard let value = xmlTextReaderGetAttribute(reader, name) else { return nil }
            defer { free(value) }  // libxml2 allocates with malloc (its default xmlFree)
            return String(cString: value)
        }
        func key(_ id: Substring) -> Int64 { Int64(id.dropFirst()) ?? 0 }
        var entity = ""
        var pk: Int64 = 0
        while xmlTextReaderRead(reader) == 1 {
            let type = xmlTextReaderNodeType(reader)
            guard let rawName = xmlTextReaderConstName(reader) else { continue }
            let name = String(cString: rawName)
            if type == 15, name == "object" {
                let statement = entity == "DEPARTMENT" ? department : person
                guard sqlite3_step(statement) == SQLITE_DONE else {
                    throw Failure(description: String(cString: sqlite3_errmsg(db)))
                }
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
                continue
            }
            guard type == 1 else { continue }
            switch name {
            case "object":
                entity = attribute("type") ?? ""
                pk = key((attribute("id") ?? "z0")[...])
                if entity == "DEPARTMENT" {
                    sqlite3_bind_int64(department, 1, pk)
                } else {
                    sqlite3_bind_int64(person, 1, pk)
                    sqlite3_bind_int64(person, 2, entity == "MANAGER" ? 3 : 2)
                }
            case "attribute":
                guard let property = attribute("name"), let text = xmlTextReaderReadString(reader) else { continue }
                defer { free(text) }
                if entity == "DEPARTMENT" {
                    sqlite3_bind_text(department, 2, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                } else if let column = index[property] {
                    if textColumns.contains(property) {
                        sqlite3_bind_text(person, column, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                    } else if realColumns.contains(property) {
                        sqlite3_bind_double(person, column, strtod(text, nil))
                    } else {
                        sqlite3_bind_int64(person, column, strtoll(text, nil, 10))
                    }
                }
            case "relationship":
                guard entity != "DEPARTMENT", let property = attribute("name"), let refs = attribute("idrefs") else {
                    continue
                }
                if property == "friends" {
                    for ref in refs.split(separator: " ") {
                        sqlite3_bind_int64(friend, 1, pk)
                        sqlite3_bind_int64(friend, 2, key(ref))
                        guard sqlite3_step(friend) == SQLITE_DONE else {
                            throw Failure(description: String(cString: sqlite3_errmsg(db)))
                        }
                        sqlite3_reset(friend)
                    }
                } else if let column = index[property], let first = refs.split(separator: " ").first {
                    sqlite3_bind_int64(person, column, key(first))
                }
            default:
                continue
            }
        }
        try exec("COMMIT")
    }
}
