import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// The README's example, kept compiling and running.
struct ReadmeExampleTests {
    @Test func theReadmeExampleRuns() throws {
        let loaded = try ModelLoader.load(from: Fixtures.project("Library.xcdatamodeld"))
        let model = loaded.model
        for name in model.entityNames {
            _ = (name, model.ancestors(of: name), model.allAttributes(of: name).map(\.name))
        }
        #expect(model.entityVersionHashes["Book"]?.count == 32)

        let library = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Book", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [RelationshipDescription(name: "borrower", destination: "Friend", inverse: "books")]),
            EntityDescription(
                name: "Friend",
                relationships: [
                    RelationshipDescription(name: "books", destination: "Book", inverse: "borrower", toMany: true)
                ]),
        ])
        #expect(try XcodeModelWriter.contents(of: library).contains("<entity name=\"Book\""))

        let adults = try ObjectPredicate(format: "age >= %d AND ANY friends.name BEGINSWITH[cd] %@", 18, "bo")
        let row: PredicateValue = .dictionary([
            "age": .integer(30), "friends": .collection([.dictionary(["name": .string("Bob")])], ordered: false),
        ])
        #expect(try adults.evaluate(with: row))
        #expect(adults.format == "age >= 18 AND ANY friends.name BEGINSWITH[cd] \"bo\"")

        let coordinator = PersistentStoreCoordinator(model: library)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Dune"), forKey: "title")
        let friend = try context.insertNewObject(forEntityName: "Friend")
        try book.setObject(friend, forKey: "borrower")
        context.processPendingChanges()
        try context.save()
        let lent = try context.fetch(
            FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "borrower != nil")))
        #expect(lent.first === book)
        #expect(try friend.objects(forKey: "books").first === book)
    }
}
