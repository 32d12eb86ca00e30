import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// Batched reads ask SQLite for a key range when the keys are dense and for a list of keys otherwise; either way they
/// return exactly the rows asked for, never a neighbour of another entity sharing the table.
struct RangeReadTests {
    @Test func keysSplitIntoRangesWhenDenseAndListsWhenSparse() {
        #expect(Array(KeyChunks([5, 3, 4, 3, 1, 2], limit: 500)) == [.range(lower: 1, upper: 5)])
        #expect(Array(KeyChunks([1, 1_000, 2_000_000], limit: 500)) == [.list([1, 1_000, 2_000_000])])
        let dense = Array(KeyChunks(Array(1...1_200), limit: 500))
        #expect(
            dense == [
                .range(lower: 1, upper: 500), .range(lower: 501, upper: 1_000), .range(lower: 1_001, upper: 1_200),
            ])
        // Every other key: twice the rows asked for is not dense.
        let halves = Array(KeyChunks(stride(from: 2, through: 2_000, by: 2).map { Int64($0) }, limit: 500))
        #expect(halves.count == 2)
        #expect(halves.allSatisfy { if case .list(let keys) = $0 { keys.count == 500 } else { false } })
        #expect(Array(KeyChunks([Int64.min, Int64.max], limit: 500)) == [.list([Int64.min, Int64.max])])
        #expect(Array(KeyChunks([], limit: 500)).isEmpty)
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                    relationships: [
                        RelationshipDescription(name: "members", destination: "Person", inverse: "team", toMany: true)
                    ]),
                EntityDescription(
                    name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
                    relationships: [
                        RelationshipDescription(name: "team", destination: "Team", inverse: "members"),
                        RelationshipDescription(
                            name: "friends", destination: "Person", inverse: "friends", toMany: true),
                    ]),
                EntityDescription(
                    name: "Boss", parent: "Person", attributes: [AttributeDescription(name: "rank", type: .integer32)]),
            ],
            configurations: [])
    }

    /// Three teams and `count` people, every third a boss, person i in team i mod 3 unless `teamless(i)`, friends
    /// with i+1 and i+7 (and so with i-1 and i-7).
    static func populate(_ context: ManagedObjectContext, count: Int, teamless: (Int) -> Bool = { _ in false })
        throws
    {
        let teams = try (0..<3).map { i in
            let team = try context.insertNewObject(forEntityName: "Team")
            try team.setAttributeValue(.string("T\(i)"), forKey: "name")
            return team
        }
        var people: [ManagedObject] = []
        for i in 0..<count {
            let person = try context.insertNewObject(forEntityName: i % 3 == 2 ? "Boss" : "Person")
            try person.setAttributeValue(.string("P\(i)"), forKey: "name")
            if !teamless(i) { try person.setObject(teams[i % 3], forKey: "team") }
            people.append(person)
        }
        for (i, person) in people.enumerated() {
            let friends = try person.mutableObjects(forKey: "friends")
            try friends.add(people[(i + 1) % count])
            try friends.add(people[(i + 7) % count])
        }
    }

    /// People and bosses interleaved in one table (every third row a boss), friends in a join table, teams by key.
    @Test func rangeReadsReturnOnlyTheRowsAskedFor() throws {
        SQLiteStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("people.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Self.populate(context, count: 600)
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        var onlyPeople = FetchRequest(entityName: "Person")
        onlyPeople.includesSubentities = false
        let plain = try reader.fetch(onlyPeople)
        #expect(plain.count == 400)
        #expect(plain.allSatisfy { $0.entity.name == "Person" })
        let ids = plain.map(\.objectID)
        reader.reset()
        let read = try reader.objects(with: ids)
        #expect(read.map(\.objectID) == ids)
        #expect(read.allSatisfy { $0.entity.name == "Person" })
        try reader.prefetchToManyRelationships(of: read)
        for object in read {
            let i = Int(try object.attributeValue(forKey: "name").stringValue?.dropFirst() ?? "") ?? -1
            let expected = Set([(i + 1) % 600, (i + 7) % 600, (i + 599) % 600, (i + 593) % 600].map { "P\($0)" })
            let friends = Set(
                try object.objects(forKey: "friends").map { try $0.attributeValue(forKey: "name").stringValue ?? "" })
            #expect(friends == expected, "\(object.objectID)")
        }
        let bosses = try reader.fetch(FetchRequest(entityName: "Boss"))
        try reader.prefetchToManyRelationships(of: bosses)
        #expect(bosses.count == 200)
        for boss in bosses { #expect(try boss.objects(forKey: "friends").count == 4) }
        let readTeams = try reader.fetch(FetchRequest(entityName: "Team"))
        try reader.prefetchToManyRelationships(of: readTeams)
        #expect(try readTeams.map { try $0.objects(forKey: "members").count }.sorted() == [200, 200, 200])
    }
}
