import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// The catalog a store reads as it opens (one statement for every table and trigger, columns read once per table)
/// answers as the statements it replaced did: a table by its exact name, a table's columns by its name in any case of
/// ASCII letters (as `PRAGMA table_info` finds it), none for a view's name or a missing table, the tables in the
/// schema's order, and every trigger.
struct CatalogTests {
    @Test func theCatalogAnswersAsTheStatementsItReplaced() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("catalog.sqlite")
        let database = try SQLiteDatabase(path: url.path, readOnly: false, create: true)
        try database.execute(
            #"""
            CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZNAME VARCHAR);
            CREATE TABLE "Mixed Case" ("a b" INTEGER, "Ä" TEXT);
            CREATE TABLE "quo""te" (x);
            CREATE TABLE Z_1TAGS (Z_1ITEMS INTEGER, Z_2TAGS INTEGER, Z_FOK_2TAGS INTEGER);
            CREATE TABLE z_lower (Z_PK);
            CREATE TABLE "Ünïcode" (ü);
            CREATE INDEX ZITEM_ZNAME ON ZITEM (ZNAME);
            CREATE VIEW ZVIEW AS SELECT Z_PK AS k FROM ZITEM;
            CREATE TRIGGER Z_DA_ZITEM_Item_count_1 AFTER INSERT ON ZITEM BEGIN SELECT 1; END;
            CREATE TRIGGER "odd ""trigger""" AFTER DELETE ON ZITEM BEGIN SELECT 2; END;
            """#)
        var catalog = try database.catalog()

        var tables: [String] = []
        var triggers: [String] = []
        try database.query("SELECT type, name FROM sqlite_master ORDER BY rowid") { statement in
            if case .text(let type) = SQLiteDatabase.column(statement, 0),
                case .text(let name) = SQLiteDatabase.column(statement, 1)
            {
                if type == "table" { tables.append(name) }
                if type == "trigger" { triggers.append(name) }
            }
        }
        #expect(catalog.tables == tables)
        #expect(Set(catalog.triggers) == Set(triggers))
        #expect(catalog.triggers.count == 2)

        let names =
            tables + tables.map { $0.uppercased() } + tables.map { $0.lowercased() }
            + ["ZVIEW", "ZITEM_ZNAME", "Z_DA_ZITEM_Item_count_1", "missing", "", "ZITEM ", "üNÏCODE", "mixed case"]
        for name in names {
            #expect(catalog.hasTable(name) == (try database.hasTable(name)), "\(name)")
            #expect(try catalog.columns(of: name) == Set(try database.columns(of: name)), "\(name)")
        }
        #expect(catalog.hasTable("ZITEM") && !catalog.hasTable("zitem") && !catalog.hasTable("ZVIEW"))
        #expect(try catalog.columns(of: "zItem") == ["Z_PK", "Z_ENT", "ZNAME"])
        #expect(try catalog.columns(of: "missing").isEmpty)
        database.close()
    }
}
