import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// A store starts from a copy of the schema built the first time its model was opened with the same entity numbers:
/// the copy is the schema as built (every property), a copy per store, numbers honoured, a store that changes its
/// copy to fit its file leaves the next store's as built, and what is kept does not keep the model.
struct SchemaCacheTests {
    /// Inheritance, attributes, a to-one, a many-to-many (a join table), and an ordered to-many without an inverse.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true),
                    RelationshipDescription(name: "team", destination: "Team", inverse: "members"),
                ]),
            EntityDescription(
                name: "Manager", parent: "Person", attributes: [AttributeDescription(name: "level", type: .integer16)]),
            EntityDescription(
                name: "Team", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "members", destination: "Person", inverse: "team", toMany: true),
                    RelationshipDescription(name: "notes", destination: "Note", toMany: true, ordered: true),
                ]),
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)]),
        ])
    }

    /// Each stored property of a schema, by name, as text.
    static func properties(_ schema: SQLiteSchema) -> [String: String] {
        var properties: [String: String] = [:]
        for child in Mirror(reflecting: schema).children {
            if let label = child.label { properties[label] = String(reflecting: child.value) }
        }
        return properties
    }

    @Test func aCopyHoldsEveryPropertyOfTheSchemaAsBuilt() throws {
        let model = try Self.model()
        let built = try SQLiteSchema.of(model, numbers: nil)
        let copy = try SQLiteSchema.of(model, numbers: nil)
        #expect(copy !== built)
        // (The copy shares its values' storage with the parts kept, those of `built`: the same text.)
        #expect(Self.properties(copy) == Self.properties(built))
        #expect(Self.properties(copy).count >= 11)
        #expect(copy.createStatements == (try SQLiteSchema(model: model)).createStatements)
    }

    /// What is kept with the model does not hold the model: a model nothing else holds is freed after stores were
    /// opened with it (a process that reads a model from each document it opens would otherwise keep every one).
    @Test func aModelStoresWereOpenedWithIsFreedWhenNothingHoldsIt() throws {
        SQLiteStore.register()
        weak var gone: ManagedObjectModel?
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("freed.sqlite")
        try {
            let model = try Self.model()
            gone = model
            for _ in 0..<2 {
                let store = try PersistentStoreCoordinator(model: model).addPersistentStore(type: "SQLite", url: url)
                store.close()
            }
            _ = try SQLiteSchema.of(model, numbers: nil)
        }()
        #expect(gone == nil)
    }

    @Test func eachNumberingHasItsOwnSchema() throws {
        let model = try Self.model()
        let numbers: [String: Int64] = ["Manager": 7, "Note": 3, "Person": 6, "Team": 9]
        let renumbered = try SQLiteSchema.of(model, numbers: numbers)
        let plain = try SQLiteSchema.of(model, numbers: nil)
        let again = try SQLiteSchema.of(model, numbers: numbers)
        #expect(renumbered.entityName(number: 7) == "Manager")
        #expect(again.entityName(number: 7) == "Manager")
        #expect(again.entityName(number: 9) == "Team")
        #expect(plain.entityName(number: 7) == nil)
        #expect(plain.entities["Manager"]?.number == (try SQLiteSchema(model: model)).entities["Manager"]?.number)
    }

    /// A store made by an earlier docutil without the order column of an ordered to-many without an inverse: the
    /// store's schema is changed to read it in key order. A new store opened after it with the same model still gets
    /// the column, and its schema no such change.
    @Test func aSchemaChangedForOneFileLeavesTheNextStoresAsBuilt() throws {
        SQLiteStore.register()
        let model = try Self.model()
        let directory = try Fixtures.temporaryDirectory()
        let old = directory.appendingPathComponent("old.sqlite")
        let first = try PersistentStoreCoordinator(model: model).addPersistentStore(type: "SQLite", url: old)
        first.close()
        let orderColumn = try #require(
            try ToOneReadTests.columns(old, table: "ZNOTE").first { $0.hasPrefix("Z_FOK_") })
        try execute(old, "ALTER TABLE ZNOTE DROP COLUMN \(orderColumn)")

        // Opened twice: the schema built for its numbers, then a copy of the one kept.
        for _ in 0..<2 {
            let reconciled = try #require(
                try PersistentStoreCoordinator(model: model).addPersistentStore(type: "SQLite", url: old)
                    as? SQLiteStore)
            #expect(reconciled.schema.orderedByKey == ["Team.notes"])
            reconciled.close()
        }

        let fresh = directory.appendingPathComponent("fresh.sqlite")
        let store = try #require(
            try PersistentStoreCoordinator(model: model).addPersistentStore(type: "SQLite", url: fresh) as? SQLiteStore)
        #expect(store.schema.orderedByKey.isEmpty)
        store.close()
        #expect(try ToOneReadTests.columns(fresh, table: "ZNOTE").contains(orderColumn))
        let reopened = try #require(
            try PersistentStoreCoordinator(model: model).addPersistentStore(type: "SQLite", url: fresh) as? SQLiteStore)
        #expect(reopened.schema.orderedByKey.isEmpty)
        reopened.close()
    }
}
