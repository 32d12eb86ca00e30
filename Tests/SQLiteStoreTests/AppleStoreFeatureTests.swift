import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// CoreDataPlus's SampleModel2_V1 store: Apple's derived-attribute triggers (`Z_DA_…`, calling
/// `NSCoreDataDATrigger…AffectedObjectValue`) and persistent history (`ATRANSACTION`, `ACHANGE`).
@Suite(.needsRealFixtures) struct AppleStoreFeatureTests {
    static let store = "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"

    static func open(_ url: URL) throws -> (ManagedObjectContext, SQLiteStore) {
        SQLiteStore.register()
        let model = try SQLiteStoreFile(url: url).storedModel().model
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try #require(try coordinator.addPersistentStore(type: "SQLite", url: url) as? SQLiteStore)
        return (ManagedObjectContext(coordinator: coordinator), store)
    }

    static func book(_ context: ManagedObjectContext, _ key: Int64) throws -> ManagedObject {
        try context.existingObject(
            with: ManagedObjectID(
                entityName: "Book", storeIdentifier: context.persistentStoreCoordinator.persistentStores[0].identifier,
                primaryKey: key))
    }

    /// Deleting, moving and inserting pages: the triggers keep `pagesCount` right in the file, and the context
    /// reads the new values after the save.
    @Test func derivedAttributeTriggersRunAndTheContextSeesTheirValues() throws {
        let url = try Fixtures.copySQLiteStore(Self.store)
        let (context, _) = try Self.open(url)
        let first = try Self.book(context, 1)
        let second = try Self.book(context, 2)
        let before = (
            try first.value(forKey: "pagesCount"), try second.value(forKey: "pagesCount"),
            try first.objects(forKey: "pages").count, try second.objects(forKey: "pages").count
        )
        #expect(before.0 == .integer(Int64(before.2)))
        let pages = try first.objects(forKey: "pages")
        context.delete(pages[0])
        try pages[1].setObject(second, forKey: "book")
        let page = try context.insertNewObject(forEntityName: "Page")
        try page.setAttributeValue(.integer32(1), forKey: "number")
        try page.setValue(.boolean(false), forKey: "isBookmarked")
        try page.setAttributeValue(.binary(Data([1, 2, 3])), forKey: "content")
        try page.setObject(second, forKey: "book")
        try context.save()
        #expect(try first.value(forKey: "pagesCount") == .integer(Int64(before.2 - 2)))
        #expect(try second.value(forKey: "pagesCount") == .integer(Int64(before.3 + 2)))
        #expect(try scalar(url, "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = 1") == Int64(before.2 - 2))
        #expect(try scalar(url, "SELECT COUNT(*) FROM ZPAGE WHERE ZBOOK = 2") == Int64(before.3 + 2))
    }

    /// One transaction per save, with one change per inserted, updated and deleted object, in Apple's layout.
    @Test func aSaveAppendsOneHistoryTransaction() throws {
        let url = try Fixtures.copySQLiteStore(Self.store)
        let (context, store) = try Self.open(url)
        #expect(try store.historyTransactionCount() == 1)
        let feedback = try context.fetch(FetchRequest(entityName: "Feedback"))
        try feedback[0].setValue(.string("edited"), forKey: "comment")
        context.delete(feedback[1])
        let inserted = try context.insertNewObject(forEntityName: "Feedback")
        try inserted.setValue(.uuid(UUID()), forKey: "bookID")
        try inserted.setValue(.string("someone"), forKey: "authorAlias")
        try inserted.setValue(.double(4.5), forKey: "rating")
        try context.save()
        let history = try store.history()
        #expect(history.count == 2)
        let last = try #require(history.last)
        #expect(last.number == 2)
        #expect(last.processID == ProcessInfo.processInfo.processName)
        #expect(
            Set(last.changes.map { "\($0.type) \($0.object.entityName)/p\($0.object.primaryKey)" }) == [
                "update Feedback/p\(feedback[0].objectID.primaryKey)",
                "delete Feedback/p\(feedback[1].objectID.primaryKey)",
                "insert Feedback/p\(inserted.objectID.primaryKey)",
            ])
        // Apple's bookkeeping: Z_MAX of the history rows, the process name once in ATRANSACTIONSTRING.
        #expect(try scalar(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'TRANSACTION'") == 2)
        #expect(try scalar(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'CHANGE'") == 5471)
        #expect(try scalar(url, "SELECT COUNT(*) FROM ACHANGE WHERE ZTRANSACTIONID = 2 AND Z_ENT = 16001") == 3)
        #expect(try scalar(url, "SELECT ZPROCESSIDTS = ZBUNDLEIDTS FROM ATRANSACTION WHERE Z_PK = 2") == 1)
        // The first transaction, Apple's, reads back with its names.
        #expect(history[0].bundleID == "com.apple.dt.xctest.tool")
        #expect(history[0].processID == "xctest")
        #expect(history[0].changes.count == 5468)
        // A second save with the process name already there adds no string.
        try feedback[0].setValue(.string("again"), forKey: "comment")
        try context.save()
        #expect(try scalar(url, "SELECT COUNT(*) FROM ATRANSACTIONSTRING") == 3)
        #expect(try store.historyTransactionCount() == 3)
    }

    /// A store without history tables gets none.
    @Test func aStoreWithoutHistoryGetsNone() throws {
        let url = try Fixtures.copySQLiteStore(
            "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite")
        let (context, store) = try Self.open(url)
        #expect(!store.tracksHistory)
        let people = try context.fetch(FetchRequest(entityName: "Person"))
        try people[0].setValue(.string("Renamed"), forKey: "firstName")
        try context.save()
        #expect(try scalar(url, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'ATRANSACTION'") == 0)
        #expect(try store.historyTransactionCount() == nil)
    }
}

/// A store we create for a model with a counting derived attribute gets Apple's triggers: saves keep the count,
/// and the context reads it after each save.
@Suite(.needsRealFixtures) struct DerivedAttributeTriggerTests {
    @Test func ourStoresKeepCountsThroughTheirTriggers() throws {
        SQLiteStore.register()
        let apple = try Fixtures.copySQLiteStore(AppleStoreFeatureTests.store)
        let model = try SQLiteStoreFile(url: apple).storedModel().model
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("books.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let writer = try context.insertNewObject(forEntityName: "Author")
        try writer.setValue(.string("alias"), forKey: "alias")
        try writer.setAttributeValue(.integer16(40), forKey: "age")
        func book(_ n: Int) throws -> ManagedObject {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string("title \(n)"), forKey: "title")
            try book.setValue(.uuid(UUID()), forKey: "uniqueID")
            try book.setValue(.decimal(Decimal(n)), forKey: "price")
            try book.setValue(.date(Date(timeIntervalSinceReferenceDate: 0)), forKey: "publishedAt")
            try book.setAttributeValue(.transformable(Data([1])), forKey: "cover")
            try book.setObject(writer, forKey: "author")
            return book
        }
        func page(_ n: Int, of book: ManagedObject) throws -> ManagedObject {
            let page = try context.insertNewObject(forEntityName: "Page")
            try page.setAttributeValue(.integer32(Int32(n)), forKey: "number")
            try page.setValue(.boolean(false), forKey: "isBookmarked")
            try page.setAttributeValue(.transformable(Data([2])), forKey: "content")
            try page.setObject(book, forKey: "book")
            return page
        }
        let first = try book(1)
        let second = try book(2)
        let pages = try (1...3).map { try page($0, of: first) }
        _ = try page(4, of: second)
        try context.save()
        #expect(try first.value(forKey: "pagesCount") == .integer(3))
        #expect(try second.value(forKey: "pagesCount") == .integer(1))
        try pages[0].setObject(second, forKey: "book")
        context.delete(pages[1])
        try context.save()
        #expect(try first.value(forKey: "pagesCount") == .integer(1))
        #expect(try second.value(forKey: "pagesCount") == .integer(2))
        #expect(try scalar(url, "SELECT ZPAGESCOUNT FROM ZBOOK WHERE ZTITLE = 'title 2'") == 2)
    }
}
