import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Predicates over ``RandomGraph``'s relationships answered by the SQLite store (translated to SQL) and by the XML
/// store (evaluated in memory) over the same objects: the same objects must match. Names repeat (`same`), so that
/// comparisons between an object and its destinations hold for some and not others.
struct RandomPredicateTests {
    static let predicates: [(entity: String, format: String)] = [
        ("Node", "name == 'same'"), ("Node", "ANY friends.name == 'same'"), ("Node", "friends.@count > 1"),
        ("Node", "ANY peerOf.name BEGINSWITH 'group'"), ("Node", "group == nil"), ("Node", "next.next == nil"),
        ("Node", "SUBQUERY(friends, $f, $f.name == 'same').@count > 0"), ("Node", "ALL friends.name == 'same'"),
        ("Node", "NONE links.name == 'x'"), ("Node", "queue.@count > 0 AND queuedIn != nil"),
        ("Node", "NOT (ANY friends.friends.name == 'same')"), ("Node", "previous.group == group"),
        ("Node", "name LIKE '*e?'"), ("Node", "name MATCHES '.*[0-9]+'"), ("Node", "name CONTAINS[c] 'NODE'"),
        ("Node", "ANY taggedBy.tags.name == 'same'"), ("Node", "friends.@count == queue.@count"),
        ("Node", "next == previous"), ("Node", "ANY friends == next"), ("Node", "ANY friends IN queue"),
        ("Node", "name IN friends.name"), ("Node", "NOT name IN friends.name"),
        // The right-hand side is the evaluated object's, not each destination's.
        ("Node", "ANY friends.name == name"), ("Node", "ANY queue.name != name"), ("Node", "NONE friends.name == name"),
        ("Node", "ALL friends.name == name"), ("Node", "ALL queue.name != name"),
        ("Node", "ANY friends.group == group"),
        ("Node", "ALL queue.group == group"), ("Node", "ANY friends.next == next"),
        ("Node", "ANY friends.name BEGINSWITH name"), ("Node", "ANY friends.friends.name == name"),
        ("Group", "ANY members.name == name"), ("Group", "ANY members.rankedIn == SELF"),
        ("Group", "ALL ranked.rankedIn == SELF"), ("Group", "members.@count > 2"), ("Group", "best != nil"),
        ("Group", "ANY notes.name CONTAINS 'node'"), ("Group", "ANY ranked == best"), ("Group", "best IN notes"),
        ("Group", "peers.@count >= 2 AND linked.@count == 0"), ("Group", "ANY members.friends.name == 'same'"),
        ("Group", "ANY tags IN members"), ("Leaf", "ANY friends.name BEGINSWITH 'leaf'"), ("Leaf", "weight == nil"),
        // A key path with a collection operator is one value for the object (ANY, ALL and NONE test that value).
        ("Group", "NONE peers.peerOf.@count > 1"), ("Group", "ANY peers.@count > 1"),
        ("Group", "NONE members.@count == 0"),
        ("Group", "ALL members.friends.@count > 0"), ("Group", "ANY peers.peerOf.@count > 1"),
        ("Node", "friends.friends.@count > 2"), ("Group", "members.friends.@count > 1"),
        ("Node", "SUBQUERY(friends, $f, SUBQUERY($f.friends, $g, $g.name == 'same').@count > 0).@count > 0"),
        ("Node", "ANY friends.queue.name == 'same'"), ("Group", "ALL members.friends.name == 'same'"),
        ("Group", "ANY members.group == SELF"),
        ("Group", "SUBQUERY(members, $m, $m.next != nil).@count == members.@count"),
        ("Node", "ALL friends.friends.name != 'same'"), ("Node", "NONE friends.friends == SELF"),
        ("Node", "ANY friends.next.group == group"), ("Node", "group.members.@count > 1"),
        ("Node", "ANY group.members.name == 'same'"), ("Node", "group.best == SELF"), ("Node", "SELF IN group.notes"),
        ("Node", "ANY queuedIn.queue == SELF"), ("Group", "ANY ranked.taggedBy == SELF"),
        ("Node", "friends.@count == 0 OR NONE friends.name == 'same'"), ("Node", "NOT (friends.@count > 0)"),
        ("Group", "ANY members.friends.friends.name == name"), ("Node", "ALL friends.group.name BEGINSWITH 'group'"),
    ]

    /// The names of the objects a store's fetch returns, sorted.
    static func names(_ context: ManagedObjectContext, _ entity: String, _ format: String) throws -> [String] {
        let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
        return try context.fetch(request).map { try $0.attributeValue(forKey: "name").literalText }.sorted()
    }

    @Test func sqlAndMemoryAnswerAlike() throws {
        SQLiteStore.register()
        XMLStore.register()
        let model = try RandomGraph.model()
        for seed in UInt64(1)...8 {
            var random = RandomGraph.Generator(state: seed &* 7_368_787)
            let url = try Fixtures.temporaryDirectory().appendingPathComponent("graph.sqlite")
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            var counter = 0
            for _ in 0..<6 { try RandomGraph.edit(context, &random, counter: &counter) }
            for object in try context.fetch(FetchRequest(entityName: "Node")) where Bool.random(using: &random) {
                try object.setValue(.string("same"), forKey: "name")
            }
            try context.save()
            let copy = try Fixtures.temporaryDirectory().appendingPathComponent("graph.xml")
            let source = PersistentStoreCoordinator(model: model)
            try source.addPersistentStore(type: SQLiteStore.typeName, url: url)
            try source.migratePersistentStore(source.persistentStores[0], to: copy, type: XMLStore.typeName)
            let (sql, memory) = (
                ManagedObjectContext(coordinator: coordinator), ManagedObjectContext(coordinator: source)
            )
            for (entity, format) in Self.predicates {
                #expect(
                    try Self.names(sql, entity, format) == (try Self.names(memory, entity, format)),
                    "seed \(seed): \(entity) where \(format)")
                // Without sub-entities, and sorted through a to-one (ties alike in what is compared).
                var request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
                request.includesSubentities = false
                let key = entity == "Group" ? "best.name" : "group.name"
                request.sortDescriptors = [
                    ObjectSortDescriptor(keyPath: key, ascending: Bool.random(using: &random)),
                    ObjectSortDescriptor(keyPath: "name"),
                ]
                func rows(_ context: ManagedObjectContext) throws -> [String] {
                    try context.fetch(request).map {
                        "\(try $0.value(forKeyPath: key)) \(try $0.attributeValue(forKey: "name").literalText)"
                    }
                }
                #expect(try rows(sql) == (try rows(memory)), "seed \(seed): \(entity) only, sorted, where \(format)")
            }
        }
    }
}
