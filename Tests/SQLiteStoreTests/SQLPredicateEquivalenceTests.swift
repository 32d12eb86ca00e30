import Foundation
import ObjectGraph
import TestSupport
import Testing

@testable import SQLiteStore

/// Runs every case of the predicate suite as a fetch against the same people in a SQLite store and in the in-memory
/// store and requires the same objects back. The SQLite store answers in SQL where the translator can say the whole
/// predicate, and evaluates the rest in memory on the narrowed rows; both paths must agree with in-memory evaluation.
@Suite(.serialized) struct SQLPredicateEquivalenceTests {
    static func model() throws -> ManagedObjectModel {
        func attribute(_ name: String, _ type: AttributeType) -> AttributeDescription {
            AttributeDescription(name: name, type: type)
        }
        return try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Person",
                    attributes: [
                        attribute("name", .string), attribute("age", .integer64), attribute("height", .double),
                        attribute("salary", .decimal), attribute("isActive", .boolean), attribute("isAdmin", .boolean),
                        attribute("nickname", .string), attribute("birthday", .date), attribute("city", .string),
                        attribute("email", .string), attribute("title", .string), attribute("notes", .string),
                        attribute("quote", .string), attribute("zero", .integer64), attribute("negative", .integer32),
                        attribute("big", .integer64), attribute("uuid", .uuid), attribute("homepage", .uri),
                        attribute("avatar", .binary), attribute("size", .integer16), attribute("first", .string),
                    ],
                    relationships: [
                        RelationshipDescription(name: "manager", destination: "Person", inverse: "reports"),
                        RelationshipDescription(
                            name: "reports", destination: "Person", inverse: "manager", toMany: true),
                        RelationshipDescription(
                            name: "friends", destination: "Person", inverse: "friendOf", toMany: true),
                        RelationshipDescription(
                            name: "friendOf", destination: "Person", inverse: "friends", toMany: true),
                        RelationshipDescription(name: "address", destination: "Address", inverse: "residents"),
                    ]),
                EntityDescription(
                    name: "Address",
                    attributes: [attribute("city", .string), attribute("zip", .string)],
                    relationships: [
                        RelationshipDescription(
                            name: "residents", destination: "Person", inverse: "address", toMany: true),
                        RelationshipDescription(name: "country", destination: "Country", inverse: "addresses"),
                    ]),
                EntityDescription(
                    name: "Country", attributes: [attribute("code", .string)],
                    relationships: [
                        RelationshipDescription(
                            name: "addresses", destination: "Address", inverse: "country", toMany: true)
                    ]),
            ],
            configurations: [])
    }

    /// Alice is the suite's person; Bob, Carol and Dave her friends; Eve has nothing but a name. The others vary the
    /// values so that every operator sees matches, misses and nils.
    static func populate(_ context: ManagedObjectContext) throws {
        func address(_ city: String, zip: String? = nil, country: String? = nil) throws -> ManagedObject {
            let address = try context.insertNewObject(forEntityName: "Address")
            try address.setValue(.string(city), forKey: "city")
            if let zip { try address.setValue(.string(zip), forKey: "zip") }
            if let country {
                let object = try context.insertNewObject(forEntityName: "Country")
                try object.setValue(.string(country), forKey: "code")
                try address.setObject(object, forKey: "country")
            }
            return address
        }
        func person(_ name: String, _ values: [String: AttributeValue]) throws -> ManagedObject {
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue(.string(name), forKey: "name")
            for (key, value) in values { try person.setAttributeValue(value, forKey: key) }
            return person
        }
        let alice = try person(
            "Alice",
            [
                "age": .integer64(30), "height": .double(1.68), "salary": .decimal(Decimal(string: "5000.50")!),
                "isActive": .boolean(true), "isAdmin": .boolean(false), "birthday": .date(PredicateTestData.birthday),
                "city": .string("Zürich"), "email": .string("alice@example.com"), "title": .string("Dr. Strange"),
                "notes": .string("line1\nline2"), "quote": .string("say \"hi\""), "zero": .integer64(0),
                "negative": .integer32(-5), "big": .integer64(Int64.max), "uuid": .uuid(PredicateTestData.uuid),
                "homepage": .uri(URL(string: "https://example.com/alice")!), "avatar": .binary(Data([1, 2, 3])),
                "size": .integer16(3), "first": .string("reserved"),
            ])
        try alice.setObject(try address("Paris", zip: "75001", country: "FR"), forKey: "address")
        let bob = try person(
            "Bob",
            [
                "age": .integer64(25), "height": .double(1.8), "isActive": .boolean(false), "city": .string("Berlin"),
                "nickname": .string("Al"), "email": .string("BOB@EXAMPLE.ORG"), "zero": .integer64(1),
                "negative": .integer32(5), "title": .string("Mr."), "salary": .decimal(4000),
            ])
        try bob.setObject(try address("Berlin", country: "DE"), forKey: "address")
        try bob.setObject(alice, forKey: "manager")
        let carol = try person(
            "Carol",
            [
                "age": .integer64(35), "city": .string("zurich"), "nickname": .string("Caz"), "isAdmin": .boolean(true),
                "height": .double(1.5), "notes": .string("line1"),
                "birthday": .date(Date(timeIntervalSinceReferenceDate: 0)),
            ])
        try carol.setObject(try address("Paris"), forKey: "address")
        try carol.setObject(alice, forKey: "manager")
        let dave = try person("Dave", ["age": .integer64(40), "city": .string("ZÜRICH")])
        try dave.setObject(try address("Rome", country: "IT"), forKey: "address")
        try dave.setObject(bob, forKey: "manager")
        _ = try person("Eve", [:])
        _ = try person("alice", ["age": .integer64(30), "city": .string("Zurich"), "email": .string("a@b.com")])
        try alice.setObjects([bob, carol, dave], forKey: "friends")
        try carol.setObjects([alice], forKey: "friends")
        try context.save()
    }

    final class Stacks: Sendable {
        let memory: PersistentStoreCoordinator
        let sqlite: PersistentStoreCoordinator
        let store: SQLiteStore

        init() throws {
            SQLiteStore.register()
            let model = try SQLPredicateEquivalenceTests.model()
            memory = PersistentStoreCoordinator(model: model)
            try memory.addPersistentStore(type: "InMemory")
            sqlite = PersistentStoreCoordinator(model: model)
            let url = try Fixtures.temporaryDirectory().appendingPathComponent("people.sqlite")
            store = try #require(try sqlite.addPersistentStore(type: "SQLite", url: url) as? SQLiteStore)
            try SQLPredicateEquivalenceTests.populate(ManagedObjectContext(coordinator: memory))
            try SQLPredicateEquivalenceTests.populate(ManagedObjectContext(coordinator: sqlite))
        }
    }

    static let stacks = Result { try Stacks() }

    enum Outcome: Equatable {
        case names([String])
        case failed
    }

    static func names(_ coordinator: PersistentStoreCoordinator, _ predicate: ObjectPredicate) -> Outcome {
        let context = ManagedObjectContext(coordinator: coordinator)
        guard let objects = try? context.fetch(FetchRequest(entityName: "Person", predicate: predicate)),
            let names = try? objects.map({ try $0.attributeValue(forKey: "name").stringValue ?? "?" })
        else {
            return .failed
        }
        return .names(names.sorted())
    }

    /// Cases naming keys the model does not have (`tags`, `scores`, …) fail in both stores; all others must agree.
    @Test(arguments: PredicateCases.evaluation.map(\.0))
    func sqlAndInMemoryFetchTheSameObjects(format: String) throws {
        let stacks = try Self.stacks.get()
        let predicate = try ObjectPredicate(format: format)
        let expected = Self.names(stacks.memory, predicate)
        let got = Self.names(stacks.sqlite, predicate)
        #expect(got == expected, "\(format)")
    }

    /// Keys of the suite's person that the model has no property for (they fail or are nil in both stores), and
    /// expressions that depend on the clock or on `SELF` as a collection.
    static let outsideTheModel = try! NSRegularExpression(
        pattern: "\\b(tags|scores|empty|missingKey|street|SELF|now|random|randomn)\\b|address(\\[| CONTAINS)|IN address"
    )

    /// Most of the suite must run in SQL, not in the in-memory fallback, or the test above proves little.
    @Test func mostCasesAboutTheModelTranslateWhollyToSQL() throws {
        let stacks = try Self.stacks.get()
        var translated = 0
        var cases = 0
        var inMemory: [String] = []
        for (format, _) in PredicateCases.evaluation {
            let range = NSRange(format.startIndex..., in: format)
            guard Self.outsideTheModel.firstMatch(in: format, range: range) == nil else { continue }
            let predicate = try ObjectPredicate(format: format)
            cases += 1
            var translator = SQLTranslator(schema: stacks.store.schema)
            if translator.narrowing(predicate, entity: "Person", alias: "t0").complete {
                translated += 1
            } else {
                inMemory.append(format)
            }
        }
        #expect(cases >= 250, "\(cases)")
        #expect(Double(translated) >= 0.9 * Double(cases), "\(translated) of \(cases) in SQL; in memory: \(inMemory)")
    }
}
