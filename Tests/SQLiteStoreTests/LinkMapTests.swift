import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// Batched reads of a join table's links switch, after enough links, from joining the destination table to a map of
/// its rows' entities read once: they must give exactly what the join gives, links to missing rows left out, and see
/// every change made since the map was read, by this connection or another.
struct LinkMapTests {
    static let count = 7_000

    /// People and bosses (every third a boss) in one table; friends in a join table, i with i+1 and i+7; teams by key.
    static func store() throws -> (PersistentStoreCoordinator, SQLiteStore, URL) {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("links.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try RangeReadTests.model())
        let store = try #require(
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        // Every fifth person in no team.
        try RangeReadTests.populate(context, count: count) { $0 % 5 == 0 }
        try context.save()
        return (coordinator, store, url)
    }

    /// Every owner's friends, read in batches of a thousand (4,000 links a batch: the map takes over during the second).
    static func batched(_ store: SQLiteStore, _ owners: [ManagedObjectID]) throws -> [ManagedObjectID:
        [ManagedObjectID]]
    {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        var start = 0
        while start < owners.count {
            let batch = Array(owners[start..<min(start + 1_000, owners.count)])
            for (owner, ids) in try store.destinations(of: batch, relationship: "friends") { result[owner] = ids }
            start += batch.count
        }
        return result
    }

    /// The join table of Person.friends and its two key columns (`nil` if the store keeps them otherwise).
    static func friendsJoin(_ store: SQLiteStore) -> (table: String, source: String, target: String)? {
        guard case .joinTable(let table, let source, let target, _)? = store.schema.toManyStorage["Person"]?["friends"]
        else { return nil }
        return (table, source, target)
    }

    static func owners(_ coordinator: PersistentStoreCoordinator) throws -> [ManagedObjectID] {
        try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Person")).map(\.objectID)
            .sorted { $0.primaryKey < $1.primaryKey }
    }

    @Test func batchedLinksAreWhatTheJoinGives() throws {
        let (coordinator, store, _) = try Self.store()
        let owners = try Self.owners(coordinator)
        #expect(owners.count == Self.count)
        let batched = try Self.batched(store, owners)
        #expect(store.linkReads.values.contains { $0.map != nil })
        for owner in owners {
            // One object's destinations always come through the join.
            let joined = try store.destinations(of: owner, relationship: "friends")
            #expect(batched[owner] == joined, "\(owner)")
            #expect(joined.count == 4)
        }
        #expect(batched.values.contains { $0.contains { $0.entityName == "Boss" } })
        // A foreign key's links (a team's members) come from the same map once it is read.
        let teams = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Team"))
            .map(\.objectID)
        let members = try store.destinations(of: teams, relationship: "members")
        for team in teams {
            let joined = try store.destinations(of: team, relationship: "members")
            #expect(members[team] == joined, "\(team)")
            #expect(joined.count > 1_800)
        }
        #expect(members.values.contains { $0.contains { $0.entityName == "Boss" } })
    }

    @Test func aLinkToAMissingRowIsLeftOutAndChangesAreSeen() throws {
        let (coordinator, store, url) = try Self.store()
        let owners = try Self.owners(coordinator)
        _ = try Self.batched(store, owners)
        // The last owner's batch is read through the map (the first batch is joined).
        let first = try #require(owners.last)
        let (table, source, target) = try #require(Self.friendsJoin(store), "friends are not in a join table")
        // Another connection adds a link to a row that does not exist and one to an existing boss.
        try SQLiteScript.execute(
            url,
            "INSERT INTO \"\(table)\" (\"\(source)\", \"\(target)\") VALUES (\(first.primaryKey), 999999), (\(first.primaryKey), 3)"
        )
        var after = try Self.batched(store, owners)
        #expect(store.linkReads.values.contains { $0.map != nil })
        var joined = try store.destinations(of: first, relationship: "friends")
        #expect(after[first] == joined)
        #expect(joined.count == 5)
        #expect(joined.contains { $0.primaryKey == 3 && $0.entityName == "Boss" })
        // This connection deletes a boss: the map read before must not bring it back.
        let context = ManagedObjectContext(coordinator: coordinator)
        let boss = try context.existingObject(with: try #require(joined.first { $0.primaryKey == 3 }))
        context.delete(boss)
        try context.save()
        after = try Self.batched(store, owners)
        joined = try store.destinations(of: first, relationship: "friends")
        #expect(after[first] == joined)
        #expect(!joined.contains { $0.primaryKey == 3 })
        #expect(joined.count == 4)
    }

    /// Few owners with many links (three teams, 5,600 members): the join is stopped once its links pass the count at
    /// which the map pays, and every owner's links come from the map, the same as the join's. A table the map cannot
    /// stand for (a row of an unknown entity) is read through the join to the end, which reports the row.
    @Test func fewOwnersWithManyLinksSwitchToTheMap() throws {
        let (coordinator, store, url) = try Self.store()
        let teams = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Team"))
            .map(\.objectID).sorted { $0.primaryKey < $1.primaryKey }
        #expect(store.linkReads.isEmpty)
        let members = try store.destinations(of: teams, relationship: "members")
        let table = store.schema.table(of: "Person")
        #expect(store.linkReads[table]?.map != nil)
        var total = 0
        for team in teams {
            let joined = try store.destinations(of: team, relationship: "members")
            #expect(members[team] == joined, "\(team)")
            total += joined.count
        }
        #expect(total == Self.count - Self.count / 5)
        #expect(total > SQLiteStore.linkReadsBeforeMap)

        // The last member read (the last team's last) becomes a row of no known entity.
        let lastTeam = try #require(teams.last)
        let last = try #require(try store.destinations(of: lastTeam, relationship: "members").last)
        try SQLiteScript.execute(url, "UPDATE \(table) SET Z_ENT = 99 WHERE Z_PK = \(last.primaryKey)")
        #expect(throws: StoreError.self) { try store.destinations(of: teams, relationship: "members") }
        #expect(store.linkReads[table]?.mapRefused == true)
        #expect(throws: StoreError.self) { try store.destinations(of: lastTeam, relationship: "members") }
    }
}

/// The map of a table's entity numbers, read through its `Z_ENT` index (rows in entity order), answers by key alike
/// for dense keys and sparse ones, and is refused for a row it cannot stand for.
struct EntityNumbersTests {
    static func database(rows: [(Int64, Int64)]) throws -> SQLiteDatabase {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("numbers.sqlite")
        let database = try SQLiteDatabase(path: url.path, readOnly: false, create: true)
        try database.execute("CREATE TABLE ZT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZNAME VARCHAR)")
        try database.execute("CREATE INDEX ZT_Z_ENT_INDEX ON ZT (Z_ENT)")
        for (key, number) in rows {
            try database.run("INSERT INTO ZT VALUES (?, ?, 'x')", [.integer(key), .integer(number)])
        }
        return database
    }

    @Test(arguments: [false, true])
    func everyKeyHasItsNumber(sparse: Bool) throws {
        // Entities 2 and 3 interleaved, so that index order is not key order.
        var rows: [(Int64, Int64)] = []
        for i in Int64(1)...500 {
            let key: Int64 = sparse ? i * 1_000 : i
            let number: Int64 = i % 3 == 0 ? 3 : 2
            rows.append((key, number))
        }
        let database = try Self.database(rows: rows)
        let map = try #require(
            try EntityNumbers.read("ZT", from: database, known: [2: "Person", 3: "Boss"], likely: [], rows: 500))
        for (key, number) in rows { #expect(map.number(of: key) == number, "key \(key)") }
        for missing: Int64 in [0, -1, 501_000, sparse ? 1_500 : 501] { #expect(map.number(of: missing) == nil) }
    }

    @Test func aRowOfAnUnknownEntityRefusesTheMap() throws {
        let database = try Self.database(rows: [(1, 2), (2, 9), (3, 2)])
        #expect(try EntityNumbers.read("ZT", from: database, known: [2: "Person"], likely: [], rows: 3) == nil)
        #expect(try EntityNumbers.read("ZT", from: database, known: [2: "Person"], likely: [2], rows: 3) == nil)
    }

    /// Rows 1...600, every seventh of entity 3, the rest of entity 2.
    static let mostly: [(Int64, Int64)] = (Int64(1)...600).map { ($0, $0 % 7 == 0 ? 3 : 2) }

    static func mostlyOne(_ database: SQLiteDatabase, likely: [Int64], atMost cap: Int) throws -> EntityNumbers? {
        switch try attempt(database, likely: likely, atMost: cap) {
        case .success(let map): map
        case .failure: nil
        }
    }

    static func attempt(_ database: SQLiteDatabase, likely: [Int64] = [2], atMost cap: Int = 600) throws -> Result<
        EntityNumbers, EntityNumbers.Refusal
    > {
        try EntityNumbers.mostlyOne("ZT", from: database, known: [2: "Person", 3: "Boss"], likely: likely, atMost: cap)
    }

    /// A table whose keys run without a gap is mapped by the rows not of its most common entity: every key answers as
    /// in the full map, with an index on `Z_ENT` (the likely entities tried in turn) or without (the first only).
    @Test(arguments: [true, false])
    func aMapOfTheExceptionsAnswersLikeTheFullMap(indexed: Bool) throws {
        let database = try Self.database(rows: Self.mostly)
        if !indexed { try database.execute("DROP INDEX ZT_Z_ENT_INDEX") }
        #expect(try EntityNumbers.Shape("\"ZT\"", from: database).numberIsIndexed == indexed)
        let map = try #require(try Self.mostlyOne(database, likely: [2], atMost: 100))
        for (key, number) in Self.mostly { #expect(map.number(of: key) == number, "key \(key)") }
        for missing: Int64 in [0, -1, 601, 1_000] { #expect(map.number(of: missing) == nil) }
        // Entity 3 first: 514 exceptions, more than allowed; then entity 2, with an index only.
        let second = try Self.mostlyOne(database, likely: [3, 2], atMost: 100)
        #expect((second != nil) == indexed)
        if let second { for (key, number) in Self.mostly { #expect(second.number(of: key) == number) } }
    }

    /// Keys with a gap, a key that is not the rowid, or entity numbers without integer affinity: no map of the
    /// exceptions (a full map or the join still reads such a table).
    @Test(arguments: [
        "DELETE FROM ZT WHERE Z_PK = 300",
        "CREATE TABLE ZT2 (Z_PK INT PRIMARY KEY, Z_ENT INTEGER, ZNAME VARCHAR)",
        "CREATE TABLE ZT2 (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZNAME VARCHAR) WITHOUT ROWID",
        "CREATE TABLE ZT2 (Z_PK INTEGER PRIMARY KEY, Z_ENT, ZNAME VARCHAR)",
    ])
    func aTableWithAGapOrAnotherShapeIsNotMappedByItsExceptions(sql: String) throws {
        let database = try Self.database(rows: Self.mostly)
        try database.execute(sql)
        if sql.hasPrefix("CREATE") {
            try database.execute("INSERT INTO ZT2 SELECT * FROM ZT")
            try database.execute("DROP TABLE ZT")
            try database.execute("ALTER TABLE ZT2 RENAME TO ZT")
            try database.execute("CREATE INDEX ZT_Z_ENT_INDEX ON ZT (Z_ENT)")
        }
        guard case .failure(.notApplicable) = try Self.attempt(database) else {
            Issue.record("mapped by its exceptions after: \(sql)")
            return
        }
        // The full map still stands for the table.
        let map = try #require(
            try EntityNumbers.read("ZT", from: database, known: [2: "Person", 3: "Boss"], likely: [2], rows: 600))
        #expect(map.number(of: 7) == 3)
        #expect(map.number(of: 8) == 2)
    }

    /// An exception of no known entity, a number that is not an integer, or none: the map is refused outright.
    @Test(arguments: ["9", "NULL", "'x'", "2.5", "x'02'"])
    func anExceptionNoMapCanStandForRefusesIt(number: String) throws {
        let database = try Self.database(rows: Self.mostly)
        try database.execute("UPDATE ZT SET Z_ENT = \(number) WHERE Z_PK = 450")
        guard case .failure(.unusable) = try Self.attempt(database) else {
            Issue.record("not refused for Z_ENT = \(number)")
            return
        }
    }
}

/// A table mostly of one entity with an index on `Z_ENT` (people, one in fifty a boss) is mapped by its exceptions after
/// the first thousand joined links: links read through it are the join's, a gap in the keys (a row deleted by another
/// connection) sends reads back to the join, and a row of an unknown entity refuses the map.
struct ExceptionMapTests {
    static let count = 3_000

    static func store() throws -> (PersistentStoreCoordinator, SQLiteStore, URL, [ManagedObjectID]) {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("mostly.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try RangeReadTests.model())
        let store = try #require(
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator)
        var people: [ManagedObject] = []
        for i in 0..<count {
            let person = try context.insertNewObject(forEntityName: i % 50 == 0 ? "Boss" : "Person")
            try person.setAttributeValue(.string("P\(i)"), forKey: "name")
            people.append(person)
        }
        for (i, person) in people.enumerated() {
            let friends = try person.mutableObjects(forKey: "friends")
            try friends.add(people[(i + 1) % count])
            try friends.add(people[(i + 7) % count])
        }
        try context.save()
        return (coordinator, store, url, try LinkMapTests.owners(coordinator))
    }

    static func expectBatchedIsJoined(_ store: SQLiteStore, _ owners: [ManagedObjectID]) throws {
        let batched = try LinkMapTests.batched(store, owners)
        for owner in owners {
            #expect(batched[owner] == (try store.destinations(of: owner, relationship: "friends")), "\(owner)")
        }
        #expect(batched.values.contains { $0.contains { $0.entityName == "Boss" } })
    }

    @Test func linksThroughTheMapOfExceptionsAreTheJoins() throws {
        let (_, store, url, owners) = try Self.store()
        let table = store.schema.table(of: "Person")
        // 500 owners, 2,000 links: past the first thousand, below the full map's count.
        try Self.expectBatchedIsJoined(store, Array(owners.prefix(500)))
        #expect(store.linkReads[table]?.map != nil)
        #expect(store.linkReads[table]?.joined ?? .max < SQLiteStore.linkReadsBeforeMap)

        // Another connection deletes a person in the middle, and its links: keys now have a gap.
        let gone = owners[1_500].primaryKey
        let (join, source, target) = try #require(LinkMapTests.friendsJoin(store), "friends are not in a join table")
        try SQLiteScript.execute(
            url,
            "DELETE FROM \(table) WHERE Z_PK = \(gone); DELETE FROM \"\(join)\" WHERE \"\(source)\" = \(gone) OR \"\(target)\" = \(gone)"
        )
        try Self.expectBatchedIsJoined(store, Array(owners.prefix(500)))
        #expect(store.linkReads[table]?.map == nil)
        #expect(store.linkReads[table]?.triedMostlyOne == true)
        #expect(store.linkReads[table]?.mapRefused == false)
    }

    @Test func aRowOfAnUnknownEntityRefusesTheMapOfExceptions() throws {
        let (_, store, url, owners) = try Self.store()
        let table = store.schema.table(of: "Person")
        try SQLiteScript.execute(url, "UPDATE \(table) SET Z_ENT = 99 WHERE Z_PK = \(owners[2_000].primaryKey)")
        #expect(throws: StoreError.self) { try LinkMapTests.batched(store, owners) }
        #expect(store.linkReads[table]?.mapRefused == true)
    }
}
