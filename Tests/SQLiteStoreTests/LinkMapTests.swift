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
        guard case .joinTable(let table, let source, let target, _)? = store.schema.toManyStorage["Person"]?["friends"]
        else {
            Issue.record("friends are not in a join table")
            return
        }
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
        let map = try #require(try EntityNumbers.read("ZT", from: database, known: [2: "Person", 3: "Boss"]))
        for (key, number) in rows { #expect(map.number(of: key) == number, "key \(key)") }
        for missing: Int64 in [0, -1, 501_000, sparse ? 1_500 : 501] { #expect(map.number(of: missing) == nil) }
    }

    @Test func aRowOfAnUnknownEntityRefusesTheMap() throws {
        let database = try Self.database(rows: [(1, 2), (2, 9), (3, 2)])
        #expect(try EntityNumbers.read("ZT", from: database, known: [2: "Person"]) == nil)
    }
}
