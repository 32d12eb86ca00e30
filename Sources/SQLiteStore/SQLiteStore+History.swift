import Foundation
public import ObjectGraph

/// Apple's persistent history in a SQLite store (`NSPersistentHistoryTrackingKey`): the tables `ATRANSACTION`,
/// `ACHANGE` and `ATRANSACTIONSTRING`, numbered 16002, 16001 and 16003 in `Z_PRIMARYKEY`. A store that has them keeps
/// them up to date: every save appends one transaction, with one change per inserted, updated and deleted object.
struct HistoryTables: Sendable {
    /// `Z_ENT` of the change rows.
    var change: Int64
    /// `Z_ENT` of the transaction rows.
    var transaction: Int64
    /// `Z_ENT` of the string rows.
    var string: Int64

    /// The numbers Core Data gives the history entities.
    static let standard = HistoryTables(change: 16001, transaction: 16002, string: 16003)

    /// Creates Apple's history tables, indexes and `Z_PRIMARYKEY` rows in a new store (the store option
    /// `persistentHistoryTracking`, Core Data's `NSPersistentHistoryTrackingKey`), inside the caller's transaction.
    static func create(in database: SQLiteDatabase) throws(SQLiteStoreError) {
        for statement in [
            """
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
            ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )
            """,
            """
            CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, \
            ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, \
            ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )
            """,
            "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
            "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ] {
            try database.execute(statement)
        }
        for (number, name) in [(16001, "CHANGE"), (16002, "TRANSACTION"), (16003, "TRANSACTIONSTRING")] {
            try database.run(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)",
                [.integer(Int64(number)), .text(name)])
        }
    }

    /// `ACHANGE.ZCHANGETYPE`: `NSPersistentHistoryChangeType`.
    enum ChangeType: Int64 {
        case insert = 0
        case update = 1
        case delete = 2
    }
}

extension SQLiteStore {
    /// The history tables of the store, when it has all three and their `Z_PRIMARYKEY` rows.
    func findHistoryTables(_ catalog: SQLiteCatalog) throws(SQLiteStoreError) -> HistoryTables? {
        guard catalog.hasTable("ATRANSACTION"), catalog.hasTable("ACHANGE"), catalog.hasTable("ATRANSACTIONSTRING")
        else { return nil }
        var numbers: [String: Int64] = [:]
        for row in try database.query(
            "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME IN ('CHANGE', 'TRANSACTION', 'TRANSACTIONSTRING')")
        {
            if case .text(let name) = row[0], case .integer(let number) = row[1] { numbers[name] = number }
        }
        guard let change = numbers["CHANGE"], let transaction = numbers["TRANSACTION"],
            let string = numbers["TRANSACTIONSTRING"]
        else { return nil }
        return HistoryTables(change: change, transaction: transaction, string: string)
    }

    /// Whether the store tracks persistent history.
    public var tracksHistory: Bool { historyTables != nil }

    /// Appends the save's transaction and changes, inside the save's SQL transaction.
    func appendHistory(_ request: IncrementalSaveRequest, tables: HistoryTables) throws(SQLiteStoreError) {
        var changes: [(HistoryTables.ChangeType, ManagedObjectID)] = []
        changes += request.inserted.map { (.insert, $0.objectID) }
        changes += request.updated.map { (.update, $0.snapshot.objectID) }
        changes += request.deleted.map { (.delete, $0.objectID) }
        guard !changes.isEmpty else { return }
        let process = ProcessInfo.processInfo.processName
        // Linux has no bundle identifier: the process name stands for it.
        let bundle = try historyString(process, tables: tables)
        let processID = try historyString(process, tables: tables)
        let transaction = try nextHistoryKeys(tables.transaction, count: 1)
        try database.run(
            """
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, ?, ?, ?)
            """,
            [
                .integer(transaction), .integer(tables.transaction), .integer(bundle), .integer(processID),
                .real(Date().timeIntervalSinceReferenceDate),
            ])
        var key = try nextHistoryKeys(tables.change, count: changes.count) - Int64(changes.count) + 1
        for (type, id) in changes {
            // The changed columns of an update (ZCOLUMNS) are left NULL: no fixture shows their encoding.
            try database.run(
                """
                INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(key), .integer(tables.change), .integer(type.rawValue),
                    .integer(schema.number(id.entityName)), .integer(id.primaryKey), .integer(transaction),
                ])
            key += 1
        }
    }

    /// Raises the `Z_MAX` of a history row by `count`; returns the new maximum.
    private func nextHistoryKeys(_ entity: Int64, count: Int) throws(SQLiteStoreError) -> Int64 {
        guard
            case .integer(let current)? = try database.query(
                "SELECT IFNULL(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(entity)]
            ).first?.first
        else {
            throw SQLiteStoreError(.malformed, path: database.path, "Z_PRIMARYKEY has no integer Z_MAX for \(entity)")
        }
        let (highest, overflow) = current.addingReportingOverflow(Int64(count))
        guard current >= 0, !overflow else {
            throw SQLiteStoreError(.malformed, path: database.path, "Z_PRIMARYKEY.Z_MAX of \(entity) is \(current)")
        }
        try database.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(highest), .integer(entity)])
        return highest
    }

    /// The number of a name in `ATRANSACTIONSTRING`, added when new.
    private func historyString(_ name: String, tables: HistoryTables) throws(SQLiteStoreError) -> Int64 {
        if case .integer(let key)? = try database.query(
            "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [.text(name)]
        ).first?.first {
            return key
        }
        let key = try nextHistoryKeys(tables.string, count: 1)
        try database.run(
            "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
            [.integer(key), .integer(tables.string), .text(name)])
        return key
    }

    /// The number of persistent-history transactions the store holds (`nil` when it does not track history).
    /// - Returns: how many transactions there are, or `nil`.
    /// - Throws: `StoreError` when the history table cannot be read.
    public func historyTransactionCount() throws(StoreError) -> Int? {
        guard historyTables != nil else { return nil }
        do {
            guard case .integer(let count)? = try database.query("SELECT COUNT(*) FROM ATRANSACTION").first?.first
            else { return 0 }
            return Int(count)
        } catch {
            throw storeError(error)
        }
    }

    /// Every persistent-history transaction with its changes, oldest first. A change naming an entity number the
    /// model lacks is an error (named), not skipped.
    /// - Returns: the transactions.
    /// - Throws: `StoreError` when the history tables cannot be read or name an unknown entity.
    public func history() throws(StoreError) -> [HistoryTransaction] {
        guard historyTables != nil else { return [] }
        do throws(SQLiteStoreError) {
            var strings: [Int64: String] = [:]
            for row in try database.query("SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING") {
                if case .integer(let key) = row[0], case .text(let name) = row[1] { strings[key] = name }
            }
            func name(_ reference: SQLiteValue, _ direct: SQLiteValue) -> String? {
                if case .text(let text) = direct { return text }
                if case .integer(let key) = reference { return strings[key] }
                return nil
            }
            var transactions: [HistoryTransaction] = []
            var index: [Int64: Int] = [:]
            for row in try database.query(
                """
                SELECT Z_PK, ZTIMESTAMP, ZAUTHORTS, ZAUTHOR, ZBUNDLEIDTS, ZBUNDLEID, ZCONTEXTNAMETS, ZCONTEXTNAME,
                ZPROCESSIDTS, ZPROCESSID FROM ATRANSACTION ORDER BY Z_PK
                """)
            {
                guard case .integer(let key) = row[0] else { continue }
                var timestamp: Date?
                switch row[1] {
                case .real(let seconds): timestamp = Date(timeIntervalSinceReferenceDate: seconds)
                case .integer(let seconds): timestamp = Date(timeIntervalSinceReferenceDate: Double(seconds))
                default: break
                }
                index[key] = transactions.count
                transactions.append(
                    HistoryTransaction(
                        number: key, timestamp: timestamp, author: name(row[2], row[3]), bundleID: name(row[4], row[5]),
                        contextName: name(row[6], row[7]), processID: name(row[8], row[9]), changes: []))
            }
            for row in try database.query(
                "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, Z_PK FROM ACHANGE ORDER BY Z_PK")
            {
                guard case .integer(let type) = row[0], case .integer(let entity) = row[1],
                    case .integer(let key) = row[2], case .integer(let transaction) = row[3],
                    let position = index[transaction]
                else {
                    throw SQLiteStoreError(
                        .malformed, path: database.path, "ACHANGE row \(row[4]) is not a change of a known transaction")
                }
                guard let entityName = schema.entityByNumber[entity] else {
                    throw SQLiteStoreError(
                        .malformed, path: database.path,
                        "ACHANGE row \(row[4]) names entity number \(entity), which the model lacks")
                }
                let typeName = HistoryTables.ChangeType(rawValue: type).map { "\($0)" } ?? "type \(type)"
                transactions[position].changes.append(
                    (typeName, ManagedObjectID(entityName: entityName, storeIdentifier: identifier, primaryKey: key)))
            }
            return transactions
        } catch {
            throw storeError(error)
        }
    }
}
