import CSQLite
import Foundation
public import ObjectGraph

extension SQLiteStore: CheckableStore {
    /// Checks the file with SQL, each check one query over a table (bounded memory, however large the store):
    /// `PRAGMA integrity_check`, rows whose `Z_ENT` the model lacks, keys above `Z_PRIMARYKEY.Z_MAX`, foreign keys,
    /// hidden keys and join-table rows naming rows that do not exist, one-to-one pairs that do not point back,
    /// uniqueness constraints, and externally stored values whose file is missing. Inverses of other relationships
    /// cannot disagree in this layout: both sides are read from one column or one join table.
    /// - Parameter limit: the most problems of each kind to list (the rest are counted).
    /// - Returns: the problems found and how many of each kind there were.
    /// - Throws: `StoreError` when a check's query cannot run.
    public func checkStructure(limit: Int) throws(StoreError) -> StoreCheckResult {
        guard let schema else { throw StoreError(.unsupported, path: database.path, "the store is not loaded") }
        var result = StoreCheckResult(coveredKinds: [
            .sqlite, .unknownEntity, .primaryKey, .danglingReference, .inverseMismatch, .uniqueness, .externalData,
        ])
        let limit = max(limit, 1)
        let file = description.url?.path ?? database.path
        do {
            try checkIntegrity(into: &result, limit: limit, file: file)
            if result.problems.contains(where: { $0.kind == .sqlite }) {
                // A damaged file answers other queries unreliably; what integrity_check said is the finding.
                result.coveredKinds = [.sqlite]
                return result
            }
            let maxima = try primaryKeyMaxima()
            for root in model.entities.filter({ $0.parentName == nil }).map(\.name).sorted() {
                try checkRows(of: root, schema: schema, maxima: maxima, into: &result, limit: limit)
            }
            for entity in model.entities.sorted(by: { $0.name < $1.name }) {
                try checkReferences(of: entity, schema: schema, into: &result, limit: limit)
                try checkUniqueness(of: entity, schema: schema, into: &result, limit: limit)
                try checkExternalData(of: entity, schema: schema, into: &result, limit: limit)
            }
        } catch {
            throw StoreError(error.code == .notAStore ? .corrupt : .io, path: file, error.message)
        }
        result.problems.sort()
        return result
    }

    private func id(_ entity: String, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: key)
    }

    /// The entity a row's `Z_ENT` names, or `fallback` when it names none.
    private func entityName(_ number: SQLiteValue, schema: SQLiteSchema, fallback: String) -> String {
        if case .integer(let n) = number, let name = schema.entityByNumber[n] { return name }
        return fallback
    }

    private static func integer(_ value: SQLiteValue) -> Int64? {
        if case .integer(let n) = value { return n }
        return nil
    }

    private static func numberList(_ numbers: [Int64]) -> String {
        numbers.isEmpty ? "NULL" : numbers.map(String.init).joined(separator: ", ")
    }

    private func checkIntegrity(into result: inout StoreCheckResult, limit: Int, file: String) throws(SQLiteStoreError)
    {
        // SQLite reads the argument as a number of errors only within 32 bits (a larger one names a table), and
        // stops at it: a larger limit asks for every error SQLite finds.
        for row in try database.query("PRAGMA integrity_check(\(min(max(limit, 1), Int(Int32.max))))") {
            guard case .text(let message) = row.first ?? .null else { continue }
            if message != "ok" {
                result.add(
                    StoreProblem(object: file, kind: .sqlite, detail: "integrity_check: \(Diagnostics.quote(message))"),
                    limit: limit)
            }
        }
    }

    /// `Z_MAX` of each entity number, as recorded.
    private func primaryKeyMaxima() throws(SQLiteStoreError) -> [Int64: Int64] {
        var maxima: [Int64: Int64] = [:]
        for row in try database.query("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY") {
            if let number = Self.integer(row[0]) { maxima[number] = Self.integer(row[1]) ?? 0 }
        }
        return maxima
    }

    /// Rows of a hierarchy's table whose `Z_ENT` is not one of the hierarchy's entities, and keys above `Z_MAX`.
    private func checkRows(
        of root: String, schema: SQLiteSchema, maxima: [Int64: Int64], into result: inout StoreCheckResult,
        limit: Int
    ) throws(SQLiteStoreError) {
        let table = schema.rawTable(of: root)
        guard try database.hasTable(table) else { return }
        let q = SQLiteSchema.q(table)
        let numbers = schema.numbers(of: model.entityAndDescendants(of: root))
        try database.query(
            "SELECT Z_PK, Z_ENT FROM \(q) WHERE Z_ENT IS NULL OR Z_ENT NOT IN (\(Self.numberList(numbers))) ORDER BY Z_PK"
        ) { statement in
            let key = sqlite3_column_int64(statement, 0)
            let number = SQLiteDatabase.column(statement, 1)
            let other = Self.integer(number).flatMap { schema.entityByNumber[$0] }
            let what =
                other.map { "names \($0), which is not stored in \(table)" }
                ?? "names no entity of the model"
            result.add(
                StoreProblem(
                    id(root, key), .unknownEntity,
                    "\(table) row Z_PK \(key) has Z_ENT \(Self.integer(number).map(String.init) ?? "NULL"), which \(what)"
                ), limit: limit)
        }
        let maximum = maxima[schema.number(root)] ?? 0
        try database.query(
            "SELECT Z_PK, Z_ENT FROM \(q) WHERE Z_PK > ? ORDER BY Z_PK", [.integer(maximum)]
        ) { statement in
            let key = sqlite3_column_int64(statement, 0)
            let entity = entityName(SQLiteDatabase.column(statement, 1), schema: schema, fallback: root)
            result.add(
                StoreProblem(
                    id(entity, key), .primaryKey,
                    "Z_PK \(key) is above Z_PRIMARYKEY.Z_MAX (\(maximum)) of \(root): a new object would reuse the key"),
                limit: limit)
        }
    }

    /// Foreign keys, hidden keys and join-table rows of the relationships an entity declares that name rows that do
    /// not exist, and one-to-one pairs that do not point back.
    private func checkReferences(
        of entity: EntityDescription, schema: SQLiteSchema, into result: inout StoreCheckResult, limit: Int
    ) throws(SQLiteStoreError) {
        let table = schema.rawTable(of: entity.name)
        guard try database.hasTable(table) else { return }
        let sources = Self.numberList(schema.numbers(of: model.entityAndDescendants(of: entity.name)))
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
            let destination = relationship.destinationEntityName
            let destinationTable = schema.rawTable(of: destination)
            guard try database.hasTable(destinationTable) else { continue }
            let destinations = Self.numberList(schema.numbers(of: model.entityAndDescendants(of: destination)))
            /// Whether a row of the destination's entities has the key in `column`.
            func exists(_ column: String) -> String {
                "EXISTS (SELECT 1 FROM \(SQLiteSchema.q(destinationTable)) d WHERE d.Z_PK = \(column) AND d.Z_ENT IN (\(destinations)))"
            }
            /// Reports each row of `sql` (the owner's key, its Z_ENT, the key it names) as a dangling reference.
            func reportDangling(_ sql: String, place: String) throws(SQLiteStoreError) {
                try database.query(sql) { statement in
                    let key = sqlite3_column_int64(statement, 0)
                    let owner = entityName(SQLiteDatabase.column(statement, 1), schema: schema, fallback: entity.name)
                    let target = SQLiteDatabase.column(statement, 2)
                    result.add(
                        StoreProblem(
                            id(owner, key), .danglingReference, key: relationship.name,
                            "\(relationship.name) names \(Self.describe(target, destination, identifier)), which does not exist (\(place))"
                        ), limit: limit)
                }
            }
            if !relationship.isToMany {
                guard let column = schema.toOneColumns[entity.name]?[relationship.name]?.column else { continue }
                let c = SQLiteSchema.q(column)
                try reportDangling(
                    "SELECT s.Z_PK, s.Z_ENT, s.\(c) FROM \(SQLiteSchema.q(table)) s WHERE s.Z_ENT IN (\(sources)) AND s.\(c) IS NOT NULL AND NOT \(exists("s.\(c)")) ORDER BY s.Z_PK",
                    place: "\(table).\(column)")
                try checkOneToOneInverse(
                    of: entity, relationship, column: column, schema: schema, sources: sources, into: &result,
                    limit: limit)
                continue
            }
            switch schema.toManyStorage[entity.name]?[relationship.name] {
            case .joinTable(let join, let sourceColumn, let destinationColumn, _):
                guard try database.hasTable(join) else { continue }
                let (s, d) = (SQLiteSchema.q(sourceColumn), SQLiteSchema.q(destinationColumn))
                try reportDangling(
                    "SELECT j.\(s), (SELECT o.Z_ENT FROM \(SQLiteSchema.q(table)) o WHERE o.Z_PK = j.\(s)), j.\(d) FROM \(SQLiteSchema.q(join)) j WHERE NOT \(exists("j.\(d)")) ORDER BY j.\(s), j.\(d)",
                    place: "join table \(join)")
            case .hiddenKey(let hiddenTable, let column, _):
                // The destination rows carry the owner's key: an owner that does not exist leaves them dangling.
                let c = SQLiteSchema.q(column)
                let ownerExists =
                    "EXISTS (SELECT 1 FROM \(SQLiteSchema.q(table)) o WHERE o.Z_PK = h.\(c) AND o.Z_ENT IN (\(sources)))"
                let sql =
                    "SELECT h.Z_PK, h.Z_ENT, h.\(c) FROM \(SQLiteSchema.q(hiddenTable)) h WHERE h.\(c) IS NOT NULL AND NOT \(ownerExists) ORDER BY h.Z_PK"
                try database.query(sql) { statement in
                    let key = sqlite3_column_int64(statement, 0)
                    let member = entityName(SQLiteDatabase.column(statement, 1), schema: schema, fallback: destination)
                    let owner = SQLiteDatabase.column(statement, 2)
                    result.add(
                        StoreProblem(
                            id(member, key), .danglingReference,
                            "is listed in \(entity.name).\(relationship.name) of \(Self.describe(owner, entity.name, identifier)), which does not exist (\(hiddenTable).\(column))"
                        ), limit: limit)
                }
            default:
                // One-to-many: the inverse to-one's foreign key, checked with the to-one.
                continue
            }
        }
    }

    /// A one-to-one relationship keeps a foreign key on both sides: `A.r = B` must come with `B.inverse = A`.
    private func checkOneToOneInverse(
        of entity: EntityDescription, _ relationship: RelationshipDescription, column: String, schema: SQLiteSchema,
        sources: String, into result: inout StoreCheckResult, limit: Int
    ) throws(SQLiteStoreError) {
        guard let inverse = model.inverse(of: relationship), !inverse.isToMany, !inverse.isTransient else { return }
        let destination = relationship.destinationEntityName
        let declaring = schema.declaringEntity(of: inverse.name, from: destination)
        guard let inverseColumn = schema.toOneColumns[declaring]?[inverse.name]?.column else { return }
        let table = SQLiteSchema.q(schema.rawTable(of: entity.name))
        let destinationTable = SQLiteSchema.q(schema.rawTable(of: destination))
        let destinations = Self.numberList(schema.numbers(of: model.entityAndDescendants(of: destination)))
        let (c, ic) = (SQLiteSchema.q(column), SQLiteSchema.q(inverseColumn))
        let sql = """
            SELECT s.Z_PK, s.Z_ENT, d.Z_PK, d.Z_ENT, d.\(ic) FROM \(table) s JOIN \(destinationTable) d ON d.Z_PK = s.\(c) \
            WHERE s.Z_ENT IN (\(sources)) AND d.Z_ENT IN (\(destinations)) AND (d.\(ic) IS NULL OR d.\(ic) != s.Z_PK) \
            ORDER BY s.Z_PK
            """
        try database.query(sql) { statement in
            let key = sqlite3_column_int64(statement, 0)
            let owner = entityName(SQLiteDatabase.column(statement, 1), schema: schema, fallback: entity.name)
            let target = id(
                entityName(SQLiteDatabase.column(statement, 3), schema: schema, fallback: destination),
                sqlite3_column_int64(statement, 2))
            let back = SQLiteDatabase.column(statement, 4)
            let names = back == .null ? "is nil" : "names \(Self.describe(back, entity.name, identifier))"
            result.add(
                StoreProblem(
                    id(owner, key), .inverseMismatch, key: relationship.name,
                    "\(relationship.name) names \(target.uriString), whose \(inverse.name) \(names)"), limit: limit)
        }
    }

    /// Rows of an entity (and its sub-entities) sharing the values of one of the uniqueness constraints it declares;
    /// a NULL never collides. Each row after the first of a group is reported.
    private func checkUniqueness(
        of entity: EntityDescription, schema: SQLiteSchema, into result: inout StoreCheckResult, limit: Int
    ) throws(SQLiteStoreError) {
        let table = schema.rawTable(of: entity.name)
        guard try database.hasTable(table) else { return }
        let sources = Self.numberList(schema.numbers(of: model.entityAndDescendants(of: entity.name)))
        for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
            let columns = constraint.compactMap {
                schema.attributeColumns[entity.name]?[$0]?.column ?? schema.toOneColumns[entity.name]?[$0]?.column
            }
            // A constraint on something without a column of its own (a composite, a to-many) is left to Core Data.
            guard columns.count == constraint.count, !columns.contains("") else { continue }
            let quoted = columns.map(SQLiteSchema.q)
            let sql = """
                SELECT s.Z_PK, s.Z_ENT, (SELECT MIN(f.Z_PK) FROM \(SQLiteSchema.q(table)) f WHERE f.Z_ENT IN (\(sources)) \
                AND \(quoted.map { "f.\($0) IS s.\($0)" }.joined(separator: " AND "))) AS first \
                FROM \(SQLiteSchema.q(table)) s WHERE s.Z_ENT IN (\(sources)) \
                AND \(quoted.map { "s.\($0) IS NOT NULL" }.joined(separator: " AND ")) AND s.Z_PK > first \
                ORDER BY s.Z_PK
                """
            try database.query(sql) { statement in
                let key = sqlite3_column_int64(statement, 0)
                let owner = entityName(SQLiteDatabase.column(statement, 1), schema: schema, fallback: entity.name)
                let first = sqlite3_column_int64(statement, 2)
                result.add(
                    StoreProblem(
                        id(owner, key), .uniqueness, key: constraint.joined(separator: ","),
                        "\(constraint.joined(separator: ", ")) has the same value as in \(table) row Z_PK \(first) (uniqueness constraint of \(entity.name))"
                    ), limit: limit)
            }
        }
    }

    /// Attributes an entity declares that allow external storage, whose stored reference names a file that is not
    /// in the store's external data folder.
    private func checkExternalData(
        of entity: EntityDescription, schema: SQLiteSchema, into result: inout StoreCheckResult, limit: Int
    ) throws(SQLiteStoreError) {
        let table = schema.rawTable(of: entity.name)
        guard try database.hasTable(table) else { return }
        let sources = Self.numberList(schema.numbers(of: model.entityAndDescendants(of: entity.name)))
        for attribute in entity.attributes where attribute.allowsExternalBinaryDataStorage && !attribute.isTransient {
            guard let column = schema.attributeColumns[entity.name]?[attribute.name]?.column, !column.isEmpty else {
                continue
            }
            let c = SQLiteSchema.q(column)
            try database.query(
                "SELECT Z_PK, Z_ENT, \(c) FROM \(SQLiteSchema.q(table)) WHERE Z_ENT IN (\(sources)) AND typeof(\(c)) = 'blob' AND substr(\(c), 1, 1) = x'02' ORDER BY Z_PK"
            ) { statement in
                guard case .blob(let bytes) = SQLiteDatabase.column(statement, 2) else { return }
                let key = sqlite3_column_int64(statement, 0)
                let owner = entityName(SQLiteDatabase.column(statement, 1), schema: schema, fallback: entity.name)
                let name = String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                let problem: String?
                if name.isEmpty || name.contains("/") || name == "." || name == ".." {
                    problem = "the external data reference '\(Diagnostics.quote(name))' is not a file name"
                } else if let directory = externalDataDirectory {
                    var isFolder: ObjCBool = false
                    let path = directory.appendingPathComponent(name).path
                    problem =
                        FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
                        ? nil : "the external data file \(path) is missing"
                } else {
                    problem = "the value is stored externally, but the store has no external data folder"
                }
                if let problem {
                    result.add(StoreProblem(id(owner, key), .externalData, key: attribute.name, problem), limit: limit)
                }
            }
        }
    }

    /// `Entity/pN` as a URI for a stored key, or the stored value as it is when it is not a key.
    private static func describe(_ value: SQLiteValue, _ entity: String, _ store: String) -> String {
        guard case .integer(let key) = value else { return "the non-key value \(SQLiteValueCoding.raw(value))" }
        return ManagedObjectID(entityName: entity, storeIdentifier: store, primaryKey: key).uriString
    }
}
