import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// Derived attributes are evaluated when saving, in every store type: counts and sums over to-manys, key paths
/// through to-ones, string functions; SQLite stores also get Apple's triggers for counts.
@Suite struct DerivedAttributeTests {
    static let entities = """
        <entity name="Author">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book">
            <attribute name="title" attributeType="String"/>
            <attribute name="pagesCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count" usesScalarValueType="YES"/>
            <attribute name="totalWords" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@sum.words" usesScalarValueType="YES"/>
            <attribute name="authorName" optional="YES" attributeType="String" derived="YES" derivationExpression="author.name"/>
            <attribute name="shout" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(title)"/>
            <attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
        </entity>
        <entity name="Page">
            <attribute name="words" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/>
        </entity>
        """

    @Test(arguments: ["SQLite", "XML", "Binary"])
    func derivedValuesAreRightAfterEverySave(type: String) throws {
        DocumentStack.registerStoreTypes()
        let model = try MigrationSupport.model(Self.entities)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("library.store")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: type, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let author = try context.insertNewObject(forEntityName: "Author")
        try author.setValue(.string("Le Guin"), forKey: "name")
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Éarthsea"), forKey: "title")
        try book.setObject(author, forKey: "author")
        var pages: [ManagedObject] = []
        for words in [100, 250, 50] {
            let page = try context.insertNewObject(forEntityName: "Page")
            try page.setAttributeValue(.integer32(Int32(words)), forKey: "words")
            try page.setObject(book, forKey: "book")
            pages.append(page)
        }
        try context.save()
        func values() throws -> [String] {
            try ["pagesCount", "totalWords", "authorName", "shout"].map { "\(try book.value(forKey: $0))" }
        }
        #expect(
            try values() == [
                "\(PredicateValue.integer(3))", "\(PredicateValue.integer(400))", #"string("Le Guin")"#,
                #"string("ÉARTHSEA")"#,
            ])
        #expect(try book.value(forKey: "searchTitle") == .string("earthsea"))
        context.delete(pages[0])
        try book.setValue(.string("Tombs"), forKey: "title")
        try context.save()
        #expect(try book.value(forKey: "pagesCount") == .integer(2))
        #expect(try book.value(forKey: "totalWords") == .integer(300))
        #expect(try book.value(forKey: "shout") == .string("TOMBS"))
        #expect(try book.value(forKey: "searchTitle") == .string("tombs"))

        // What the file holds: read again by a new coordinator.
        let again = PersistentStoreCoordinator(model: model)
        try again.addPersistentStore(type: type, url: url)
        let reader = ManagedObjectContext(coordinator: again)
        let stored = try #require(try reader.fetch(FetchRequest(entityName: "Book")).first)
        #expect(try stored.value(forKey: "pagesCount") == .integer(2))
        #expect(try stored.value(forKey: "totalWords") == .integer(300))
        #expect(try stored.value(forKey: "authorName") == .string("Le Guin"))
    }

    /// A derivation docutil can't evaluate stops the save with the object and attribute named; nothing is written.
    @Test func anExpressionThatCannotBeEvaluatedStopsTheSave() throws {
        DocumentStack.registerStoreTypes()
        let model = try MigrationSupport.model(
            Self.entities.replacingOccurrences(of: "uppercase:(title)", with: "nosuchfunction:(title)"))
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("library.xml")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let book = try context.insertNewObject(forEntityName: "Book")
        try book.setValue(.string("Earthsea"), forKey: "title")
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.description.contains("derived attribute shout"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
