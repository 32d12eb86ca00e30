import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// Predicates archived in compiled models: decoded from the keys Apple's archives use, checked on a real model
/// cache, and refused (never read as "every object") when of a kind not decoded.
struct ArchivedPredicateTests {
    static let sampleModel2 =
        "sqlite/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"

    @Test(.needsRealFixtures)
    func fetchedPropertiesOfARealModelCacheReadBackAsTheirSource() throws {
        let copy = try Fixtures.copySQLiteStore(Self.sampleModel2)
        let loaded = try SQLiteStoreFile(url: copy).storedModel()
        let author = try #require(loaded.model.entity(named: "Author"))
        let predicates = Dictionary(uniqueKeysWithValues: author.fetchedProperties.map { ($0.name, $0.predicate) })
        // The app's source says "%K == $FETCH_SOURCE.%K" (authorAlias, alias) and
        // "authorAlias == $FETCH_SOURCE.alias AND (comment CONTAINS [c] $FETCHED_PROPERTY.userInfo.search)".
        #expect(predicates["feedbacks"] == "authorAlias == $FETCH_SOURCE.alias")
        #expect(
            predicates["favFeedbacks"]
                == "authorAlias == $FETCH_SOURCE.alias AND comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search")
        #expect(author.fetchedProperties.allSatisfy { $0.undecodablePredicate == nil })
        // Its derived attribute (pages.@count) reads too, as the function Core Data archives it as.
        let book = try #require(loaded.model.entity(named: "Book"))
        #expect(book.attributes.first { $0.name == "pagesCount" }?.derivationExpression == "count(pages)")
    }

    @Test func templatesOfACompiledModelDecodeOrSayWhyNot() throws {
        let loaded = try ModelLoader.load(from: Fixtures.project("Archived/Templates.mom"))
        let templates = Dictionary(uniqueKeysWithValues: loaded.model.fetchRequestTemplates.map { ($0.name, $0) })
        #expect(templates["LongBooks"]?.predicate == "pages > $MIN")
        #expect(templates["WellRatedThe"]?.predicate == "title BEGINSWITH[c] \"The\" AND rating >= 4.0")
        #expect(templates["AboutTheSea"]?.predicate == "title CONTAINS[cd] \"sea\"")
        #expect(templates["ShortOrListed"]?.predicate == "NOT pages < 300 OR title IN {\"The Road\", \"Zorba\"}")
        #expect(templates["Undecodable"]?.predicate == nil)
        #expect(templates["Undecodable"]?.undecodablePredicate?.contains("NSBlockExpression") == true)
        // Written as Xcode XML and read back, the undecodable template stays unusable.
        let again = try ModelLoader.readContents(Data(XcodeModelWriter.contents(of: loaded.model).utf8))
        #expect(throws: ObjectPredicateError.self) { try again.fetchRequest(fromTemplate: "Undecodable") }
    }

    @Test func archivesNestedPastTheLimitAreRefused() throws {
        // NOT(NOT(…)) 500 deep, built as an archive: refused, not decoded by recursion without end.
        var objects: [PropertyList] = [.string("$null")]
        objects.append(.dictionary(["$classname": .string("NSCompoundPredicate"), "$classes": .array([])]))
        objects.append(.dictionary(["$classname": .string("NSArray"), "$classes": .array([])]))
        objects.append(.dictionary(["$class": .uid(1), "NSCompoundPredicateType": .integer(1)]))
        var inner = 3
        for _ in 0..<500 {
            objects.append(.dictionary(["$class": .uid(2), "NS.objects": .array([.uid(inner)])]))
            objects.append(
                .dictionary([
                    "$class": .uid(1), "NSCompoundPredicateType": .integer(0),
                    "NSSubpredicates": .uid(objects.count - 1),
                ]))
            inner = objects.count - 1
        }
        let archive = PropertyList.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": .uid(inner)]),
            "$objects": .array(objects),
        ])
        let data = BinaryPropertyListWriter.data(archive)
        #expect(throws: ModelFileError.self) { try ArchivedPredicate.decode(data) }
    }

    @Test(.needsRealFixtures)
    func aTemplateOfARealModelFilters() throws {
        // momcom's test model, saved by Xcode: templates "FetchRequestObjects" (booleanAttribute == 1 AND
        // floatAttribute > 5) and "fetchedPropertyFetchRequest" (booleanAttribute = YES) on Entity.
        let url = Fixtures.real(
            "xcdatamodel/atomicbird__momcom__momcomTests__momcomTests.xcdatamodeld__momcTests_2.xcdatamodel__contents.xml"
        )
        let model = try ModelLoader.readContents(FileKind.readRegularFile(url))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        for (flag, float) in [(true, 1.0), (true, 6.0), (false, 7.0), (true, 9.5)] as [(Bool, Float)] {
            let entity = try context.insertNewObject(forEntityName: "Entity")
            try entity.setValue(.boolean(flag), forKey: "booleanAttribute")
            try entity.setAttributeValue(.float(float), forKey: "floatAttribute")
        }
        // Not saved: the model's own validation rules (floatAttribute at most 2.5, one otherEntities at least)
        // would refuse these objects; fetches include unsaved changes, as Core Data's do.
        let request = try model.fetchRequest(fromTemplate: "FetchRequestObjects")
        #expect(request.predicate != nil)
        let floats = try context.fetch(request).map { try $0.attributeValue(forKey: "floatAttribute") }
        #expect(Set(floats.map { "\($0)" }) == Set([AttributeValue.float(6), .float(9.5)].map { "\($0)" }))
        // Its fetched property "yesBooleans" (booleanAttribute = YES) filters too.
        let fetched = try #require(model.entity(named: "Entity")?.fetchedProperties.first { $0.name == "yesBooleans" })
        var yes = FetchRequest(entityName: "Entity")
        yes.predicate = try ObjectPredicate(format: try #require(fetched.predicate))
        #expect(try context.fetch(yes).count == 3)
    }
}
