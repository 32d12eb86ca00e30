import Foundation
import ObjectGraph
import Testing

/// The lending library of the Core Data talks: books lent to friends.
enum Library {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Book",
                attributes: [
                    AttributeDescription(name: "title", type: .string, isOptional: false),
                    AttributeDescription(name: "pages", type: .integer32, defaultValue: .integer32(100)),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "borrower", destination: "Friend", inverse: "books", deleteRule: .nullify)
                ]),
            EntityDescription(
                name: "Friend",
                attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                relationships: [
                    RelationshipDescription(
                        name: "books", destination: "Book", inverse: "borrower", toMany: true, deleteRule: .nullify)
                ]),
        ])
    }

    static func stack() throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: "InMemory")
        return (coordinator, ManagedObjectContext(coordinator: coordinator))
    }
}

/// A typed subclass: properties go through the same change tracking.
final class Book: ManagedObject {
    var title: String? {
        get { self["title"] }
        set { self["title"] = newValue }
    }
    var pages: Int? {
        get { self["pages"] }
        set { self["pages"] = newValue }
    }
    var borrower: ManagedObject? {
        get { self[object: "borrower"] }
        set { self[object: "borrower"] = newValue }
    }
}

struct LendingLibraryTests {
    @Test func insertRelateUndoRedoSaveReopen() throws {
        let (coordinator, context) = try Library.stack()
        coordinator.registerClass(Book.self, forEntityName: "Book")

        // Step 1: insert a book.
        let book = try context.insert(Book.self, entityName: "Book")
        book.title = "Dune"
        #expect(book.pages == 100)
        context.processPendingChanges()
        // Step 2: insert a friend.
        let friend = try context.insertNewObject(forEntityName: "Friend")
        try friend.setValue(.string("Ann"), forKey: "name")
        context.processPendingChanges()
        // Step 3: lend the book.
        book.borrower = friend
        context.processPendingChanges()
        #expect(try friend.objects(forKey: "books").count == 1)

        // Undo each step, checking the graph, inverses included.
        context.undo()
        #expect(book.borrower == nil)
        #expect(try friend.objects(forKey: "books").isEmpty)
        context.undo()
        #expect(context.insertedObjects.count == 1)
        #expect(context.registeredObject(for: friend.objectID) == nil)
        context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(!context.hasChanges)

        // Redo all three.
        context.redo()
        context.redo()
        context.redo()
        #expect(book.title == "Dune")
        #expect(book.borrower === friend)
        #expect(try friend.objects(forKey: "books").first === book)

        try context.save()
        #expect(!context.hasChanges)
        #expect(!book.objectID.isTemporary)

        // A second context over the same coordinator sees the same state.
        let reopened = ManagedObjectContext(coordinator: coordinator)
        let books = try reopened.fetch(FetchRequest(entityName: "Book"))
        #expect(books.count == 1)
        let fetched = try #require(books.first as? Book)
        #expect(fetched.title == "Dune")
        #expect(try fetched.borrower?.value(forKey: "name").string == "Ann")
        #expect(try fetched.value(forKeyPath: "borrower.books.@count").constant == .integer(1))
    }

    @Test func undoBackToTheSavedStateIsClean() throws {
        let (_, context) = try Library.stack()
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Dune"), forKey: "title")
        try context.save()
        try book.setValue(.string("Emma"), forKey: "title")
        context.processPendingChanges()
        #expect(context.hasChanges)
        #expect(context.updatedObjects.count == 1)
        #expect(try book.changedValues()["title"] == .string("Emma"))
        #expect(try book.committedValues(forKeys: ["title"])["title"] == .string("Dune"))
        context.undo()
        #expect(try book.attributeValue(forKey: "title") == .string("Dune"))
        #expect(!context.hasChanges)
        context.redo()
        #expect(context.hasChanges)
    }
}
