import CSQLite

/// The entity number (`Z_ENT`) of every row of one table by key, read from the table's `Z_ENT` index in one pass: what
/// reading the destinations of a join table in many batches needs instead of looking each destination row up in its
/// table (a `dump` of 600,000 links spent a fifth of its reading there).
///
/// Made only from a table whose every row has a positive integer key and an entity number the store knows, so a key it
/// lacks is a key the table lacks (the join it stands for would have left that link out too).
struct EntityNumbers {
    /// Keys and numbers when the keys are dense enough for a direct table (`numbers[key - first]`, 0 for none).
    private let first: Int64
    private let dense: [Int64]?
    /// Otherwise the keys, ascending, and their numbers: every row's, or (with `common`) only the exceptions'.
    private let keys: [Int64]
    private let numbers: [Int64]
    /// When the table has a row for every key from `first` through `last` and all but the rows in `keys` are of one
    /// entity: that entity's number (see ``mostlyOne(_:from:known:likely:atMost:shape:)``).
    private let common: Int64?
    private let last: Int64
    /// With `common`: a bit per key from `first` through `last`, set for the keys in `keys` (the exceptions), so that
    /// most lookups answer `common` from one bit instead of a binary search of the exceptions (a link of a query's or
    /// a dump's to-many relationships is looked up here).
    private let exceptions: [UInt64]

    /// Reads the keys and entity numbers of `table`; `nil` when a row has a key or a number the map cannot stand for
    /// (the caller then joins the table as before, which reports such rows).
    /// - Parameters:
    ///   - likely: entity numbers most rows may be of: a map of the exceptions is tried first, for the first of them
    ///     (``mostlyOne(_:from:known:likely:atMost:shape:)``, up to half the rows).
    ///   - rows: the table's largest key.
    ///   - shape: the table's shape when already read.
    static func read(
        _ table: String, from database: SQLiteDatabase, known: [Int64: String], likely: [Int64], rows: Int,
        shape: Shape? = nil
    ) throws(SQLiteStoreError) -> EntityNumbers? {
        if !likely.isEmpty {
            switch try mostlyOne(table, from: database, known: known, likely: likely, atMost: rows / 2, shape: shape) {
            case .success(let map): return map
            case .failure(.unusable): return nil
            case .failure(.notApplicable): break
            }
        }
        // Without an order SQLite reads the table's Z_ENT index when it has one (a covering index: a fraction of the
        // table's pages), the rows then in entity order; keys dense enough for a direct table need no order.
        guard let (keys, numbers) = try pairs("SELECT Z_PK, Z_ENT FROM \(table)", database, known) else { return nil }
        if let dense = Self.dense(keys, numbers) { return dense }
        // Sparse keys are kept sorted: read again in key order.
        guard let (sorted, sortedNumbers) = try pairs("SELECT Z_PK, Z_ENT FROM \(table) ORDER BY Z_PK", database, known)
        else { return nil }
        return EntityNumbers(keys: sorted, numbers: sortedNumbers)
    }

    /// What a table's declaration says of its keys and entity numbers, from SQLite's pragmas.
    struct Shape {
        /// `Z_PK` is the table's rowid (`INTEGER PRIMARY KEY` of a rowid table): its keys are distinct integers.
        var keyIsRowID = false
        /// `Z_ENT` has integer affinity: a number stored as text or as a whole real is kept as an integer.
        var numberIsInteger = false
        /// An index (not partial) starts with `Z_ENT`: rows of one entity are found without reading the others.
        var numberIsIndexed = false

        /// Reads the shape of `table` (an SQL name, quoted).
        init(_ table: String, from database: SQLiteDatabase) throws(SQLiteStoreError) {
            var keyColumns = 0
            for row in try database.query("PRAGMA table_info(\(table))") where row.count >= 6 {
                guard case .text(let name) = row[1] else { continue }
                let declared = if case .text(let type) = row[2] { type.uppercased() } else { "" }
                if case .integer(let key) = row[5], key > 0 {
                    keyColumns += 1
                    keyIsRowID = name == "Z_PK" && declared == "INTEGER"
                }
                if name == "Z_ENT" { numberIsInteger = declared.contains("INT") }
            }
            if keyColumns != 1 { keyIsRowID = false }
            for row in try database.query("PRAGMA index_list(\(table))") where row.count >= 5 {
                // A primary key index: a WITHOUT ROWID table, or a key that is not the rowid.
                if case .text("pk") = row[3] { keyIsRowID = false }
                guard case .text(let index) = row[1], case .integer(0) = row[4] else { continue }
                let columns = try database.query("PRAGMA index_info(\(SQLiteDatabase.quote(index)))")
                if columns.contains(where: { $0.count >= 3 && $0[0] == .integer(0) && $0[2] == .text("Z_ENT") }) {
                    numberIsIndexed = true
                }
            }
        }
    }

    /// Why ``mostlyOne(_:from:known:likely:atMost:shape:)`` made no map.
    enum Refusal: Error {
        /// The table's shape or keys do not allow it, or no likely entity has few enough exceptions: a full map (or
        /// the join) still can.
        case notApplicable
        /// A row has a key or a number no map can stand for (the join reports it).
        case unusable
    }

    /// A map of a table whose keys run without a gap and whose rows are all of one entity but a few: the exceptions are
    /// read (through the `Z_ENT` index when there is one), not every row. Tried for each of `likely` (entity numbers,
    /// most likely first) while the table has an index on `Z_ENT`, else for the first only (each try is then a scan).
    /// - Parameters:
    ///   - cap: the most exceptions read for one try.
    ///   - shape: the table's shape when already read (else it is read here).
    static func mostlyOne(
        _ table: String, from database: SQLiteDatabase, known: [Int64: String], likely: [Int64], atMost cap: Int,
        shape given: Shape? = nil
    ) throws(SQLiteStoreError) -> Result<EntityNumbers, Refusal> {
        let shape: Shape
        if let given { shape = given } else { shape = try Shape(table, from: database) }
        guard shape.keyIsRowID, shape.numberIsInteger,
            case .integer(let count)? = try database.query("SELECT COUNT(*) FROM \(table)").first?.first,
            case .integer(let low)? = try database.query("SELECT MIN(Z_PK) FROM \(table)").first?.first,
            case .integer(let high)? = try database.query("SELECT MAX(Z_PK) FROM \(table)").first?.first,
            low > 0, high >= low, high - low == count - 1
        else { return .failure(.notApplicable) }
        // Distinct integer keys from `low` through `high`, as many as the rows: every key in between has its row.
        let sql =
            shape.numberIsIndexed
            ? "SELECT Z_PK, Z_ENT FROM \(table) WHERE Z_ENT < ?1 UNION ALL SELECT Z_PK, Z_ENT FROM \(table) WHERE Z_ENT > ?1 UNION ALL SELECT Z_PK, Z_ENT FROM \(table) WHERE Z_ENT IS NULL LIMIT \(cap + 1)"
            : "SELECT Z_PK, Z_ENT FROM \(table) WHERE Z_ENT IS NOT ?1 LIMIT \(cap + 1)"
        for common in likely.prefix(shape.numberIsIndexed ? 3 : 1) where known[common] != nil {
            // Each exception checked as every row of a full map is.
            guard let (keys, numbers) = try pairs(sql, database, known, bindings: [.integer(common)]) else {
                return .failure(.unusable)
            }
            if keys.count <= cap {
                return .success(EntityNumbers(first: low, last: high, common: common, keys: keys, numbers: numbers))
            }
        }
        return .failure(.notApplicable)
    }

    /// The keys and entity numbers `sql` reads; `nil` when a row has a key or a number the map cannot stand for.
    private static func pairs(
        _ sql: String, _ database: SQLiteDatabase, _ known: [Int64: String], bindings: [SQLiteValue] = []
    ) throws(SQLiteStoreError) -> ([Int64], [Int64])? {
        var keys: [Int64] = []
        var numbers: [Int64] = []
        var usable = true
        // Rows come in runs of one entity (index order) or mostly of one: a number is checked once per run.
        var checked: Int64? = nil
        try database.query(sql, bindings) { (statement) throws(SQLiteStoreError) in
            guard usable else { return }
            // Types first: SQLite leaves a column's type undefined once its value was read as another type.
            guard sqlite3_column_type(statement, 0) == SQLITE_INTEGER,
                sqlite3_column_type(statement, 1) == SQLITE_INTEGER
            else {
                usable = false
                return
            }
            let number = sqlite3_column_int64(statement, 1)
            guard sqlite3_column_int64(statement, 0) > 0, number == checked || known[number] != nil else {
                usable = false
                return
            }
            checked = number
            keys.append(sqlite3_column_int64(statement, 0))
            numbers.append(number)
        }
        return usable ? (keys, numbers) : nil
    }

    /// A direct table of keys in any order, when they are dense enough (as in ``init(keys:numbers:)``).
    private static func dense(_ keys: [Int64], _ numbers: [Int64]) -> EntityNumbers? {
        guard let low = keys.min(), let high = keys.max() else { return EntityNumbers(keys: [], numbers: []) }
        let span = high - low
        guard span >= 0, span < Int64(keys.count) * 4 else { return nil }
        var dense = [Int64](repeating: 0, count: Int(span) + 1)
        for (key, number) in zip(keys, numbers) { dense[Int(key - low)] = number }
        return EntityNumbers(first: low, dense: dense)
    }

    private init(first: Int64, dense: [Int64]) {
        self.first = first
        self.dense = dense
        self.keys = []
        self.numbers = []
        common = nil
        last = 0
        exceptions = []
    }

    private init(first: Int64, last: Int64, common: Int64, keys: [Int64], numbers: [Int64]) {
        self.first = first
        self.last = last
        self.common = common
        dense = nil
        let sorted = zip(keys, numbers).sorted { $0.0 < $1.0 }
        self.keys = sorted.map(\.0)
        self.numbers = sorted.map(\.1)
        // Every exception is a row of the table, so within `first...last` (a range as long as the table).
        var bits = [UInt64](repeating: 0, count: Int((last - first) >> 6) + 1)
        for key in keys where key >= first && key <= last {
            let offset = Int(key - first)
            bits[offset >> 6] |= 1 << UInt64(offset & 63)
        }
        exceptions = bits
    }

    private init(keys: [Int64], numbers: [Int64]) {
        common = nil
        last = 0
        exceptions = []
        first = keys.first ?? 0
        let span = (keys.last ?? 0) - first
        if span >= 0, span < Int64(max(keys.count, 1)) * 4 {
            var dense = [Int64](repeating: 0, count: Int(span) + 1)
            for (key, number) in zip(keys, numbers) { dense[Int(key - first)] = number }
            self.dense = dense
            self.keys = []
            self.numbers = []
        } else {
            dense = nil
            self.keys = keys
            self.numbers = numbers
        }
    }

    /// The entity number of the row with `key`, or `nil` when the table has no such row.
    func number(of key: Int64) -> Int64? {
        if let dense {
            guard key >= first, key - first < Int64(dense.count) else { return nil }
            let number = dense[Int(key - first)]
            return number == 0 ? nil : number
        }
        if let common {
            guard key >= first, key <= last else { return nil }
            let offset = Int(key - first)
            if exceptions[offset >> 6] & (1 << UInt64(offset & 63)) == 0 { return common }
        }
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? numbers[low] : common
    }
}

/// What batched reads of links into one table have learnt since the database last changed: how many links they read
/// through joins with the table, and the table's ``EntityNumbers`` once that count passes the point where one pass
/// over the table's `Z_ENT` index costs less than looking up each link's row.
struct LinkReads {
    /// `PRAGMA data_version` and the connection's total changes when this began: any change makes it stale.
    let stamp: [Int64]
    /// The table's largest key.
    let rows: Int
    /// The table's shape (read once while this stands; `nil` for an empty table).
    var shape: EntityNumbers.Shape? = nil
    /// The count of joined links past which the map is read: a quarter of the table's rows (its largest key), at
    /// least ``SQLiteStore/linkReadsBeforeMap``. First measured in time on a 100,000-row table (mapping about 36 ns a
    /// row, a joined link 260–800 ns); in instructions (callgrind, the company document's 100,000 people) a full map
    /// read through the `Z_ENT` index costs about 1,070 a row and a joined link 1,300 (rows near each other) to 2,600,
    /// so the full map pays later than the first figures said. The threshold is kept: the map of exceptions
    /// (``EntityNumbers/mostlyOne(_:from:known:likely:atMost:shape:)``) is tried first, and where it applies costs
    /// little.
    let threshold: Int
    /// For a table with an index on `Z_ENT`: the count of joined links past which a map of the rows not of the
    /// likely entity is tried (reading those rows alone); `nil` once tried, or without such an index.
    var earlyThreshold: Int? = nil
    /// Whether that map was tried and did not apply (then the full map is read at `threshold`).
    var triedMostlyOne = false
    /// Links read through joins so far.
    var joined = 0
    /// The map, once read.
    var map: EntityNumbers?
    /// Whether the table has a row the map cannot stand for (then links are always joined, and the join reports it).
    var mapRefused = false

    /// The links a join may still read before it is stopped for the map; `nil` when the map is refused.
    var budget: Int? { mapRefused ? nil : Swift.min(earlyThreshold ?? threshold, threshold) - joined }
}
