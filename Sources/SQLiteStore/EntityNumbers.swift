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
    /// Otherwise the keys, ascending, and their numbers.
    private let keys: [Int64]
    private let numbers: [Int64]

    /// Reads the keys and entity numbers of `table`; `nil` when a row has a key or a number the map cannot stand for
    /// (the caller then joins the table as before, which reports such rows).
    static func read(_ table: String, from database: SQLiteDatabase, known: [Int64: String]) throws(SQLiteStoreError)
        -> EntityNumbers?
    {
        // Without an order SQLite reads the table's Z_ENT index when it has one (a covering index: a fraction of the
        // table's pages), the rows then in entity order; keys dense enough for a direct table need no order.
        guard let (keys, numbers) = try pairs("SELECT Z_PK, Z_ENT FROM \(table)", database, known) else { return nil }
        if let dense = Self.dense(keys, numbers) { return dense }
        // Sparse keys are kept sorted: read again in key order.
        guard let (sorted, sortedNumbers) = try pairs("SELECT Z_PK, Z_ENT FROM \(table) ORDER BY Z_PK", database, known)
        else { return nil }
        return EntityNumbers(keys: sorted, numbers: sortedNumbers)
    }

    /// The keys and entity numbers `sql` reads; `nil` when a row has a key or a number the map cannot stand for.
    private static func pairs(_ sql: String, _ database: SQLiteDatabase, _ known: [Int64: String])
        throws(SQLiteStoreError) -> ([Int64], [Int64])?
    {
        var keys: [Int64] = []
        var numbers: [Int64] = []
        var usable = true
        // Rows come in runs of one entity (index order) or mostly of one: a number is checked once per run.
        var checked: Int64? = nil
        try database.query(sql, []) { (statement) throws(SQLiteStoreError) in
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
    }

    private init(keys: [Int64], numbers: [Int64]) {
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
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? numbers[low] : nil
    }
}

/// What batched reads of links into one table have learnt since the database last changed: how many links they read
/// through joins with the table, and the table's ``EntityNumbers`` once that count passes the point where one pass
/// over the table's `Z_ENT` index costs less than looking up each link's row.
struct LinkReads {
    /// `PRAGMA data_version` and the connection's total changes when this began: any change makes it stale.
    let stamp: [Int64]
    /// The count of joined links past which the map is read: a quarter of the table's rows (its largest key), at
    /// least ``SQLiteStore/linkReadsBeforeMap``. Measured on a 100,000-row table: mapping costs about 36 ns a row, a
    /// joined link 260 ns (rows near each other) to 800 ns (rows spread over the table), so the map pays from a
    /// seventh to a twentieth of the rows; a quarter keeps small reads (a `query`'s prefetch) on the join.
    let threshold: Int
    /// Links read through joins so far.
    var joined = 0
    /// The map, once read.
    var map: EntityNumbers?
    /// Whether the table has a row the map cannot stand for (then links are always joined, and the join reports it).
    var mapRefused = false

    /// The links a join may still read before it is stopped for the map; `nil` when the map is refused.
    var budget: Int? { mapRefused ? nil : threshold - joined }
}
