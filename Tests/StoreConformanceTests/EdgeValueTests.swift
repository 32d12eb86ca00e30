import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Values at the edges of what each store's file can hold: saved and read back equal, or refused with an error
/// naming the object and attribute — with the file left byte for byte as it was. Never changed on the way, never
/// a document that does not open again.
struct EdgeValueTests {
    static let fileStores = StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" }

    /// Each value, and the stores expected to refuse it.
    static let values: [(key: String, value: AttributeValue, refusedBy: Set<String>)] = [
        // XML 1.0 has no form for C0 controls but tab and line breaks, nor for U+FFFE and U+FFFF.
        ("name", .string("a\u{1}b"), ["XML"]), ("name", .string("a\u{0}b"), ["XML"]),
        ("name", .string("\u{FFFE}"), ["XML"]), ("name", .string("x\u{1F}\u{FFFF}"), ["XML"]),
        // Carriage returns survive XML parsing only as character references; the rest everywhere.
        ("name", .string("a\rb"), []), ("name", .string("a\r\nb\n"), []), ("name", .string(" \t padded \t "), []),
        ("name", .string("\u{D7FF}\u{E000}\u{FFFD}\u{10FFFF}"), []), ("name", .string("]]> & <x> \"q\""), []),
        ("name", .string(""), []),
        // SQLite stores NaN as NULL.
        ("weight", .double(.nan), ["SQLite"]), ("ratio", .float(.nan), ["SQLite"]),
        ("created", .date(Date(timeIntervalSinceReferenceDate: .nan)), ["SQLite"]),
        ("weight", .double(.infinity), []), ("weight", .double(-.infinity), []),
        ("weight", .double(.leastNonzeroMagnitude), []), ("weight", .double(.greatestFiniteMagnitude), []),
        ("ratio", .float(.infinity), []), ("created", .date(Date(timeIntervalSinceReferenceDate: 1e300)), []),
        ("created", .date(Date(timeIntervalSinceReferenceDate: -1e12)), []),
        // No file has a form for a decimal NaN; SQLite keeps decimals as 64-bit floating point numbers.
        ("price", .decimal(.nan), ["XML", "Binary", "SQLite"]),
        ("price", .decimal(Decimal(string: "1234567890.123456789") ?? 0), ["SQLite"]),
        ("price", .decimal(Decimal(string: "12345678901234567890") ?? 0), ["SQLite"]),
        ("price", .decimal(.greatestFiniteMagnitude), ["SQLite"]),
        ("price", .decimal(Decimal(string: "123456789012345") ?? 0), []),
        ("price", .decimal(Decimal(string: "0.000000000000000000000000000000000001") ?? 0), []),
        ("price", .decimal(Decimal(string: "-19.99") ?? 0), []),
        ("blob", .binary(Data()), []), ("blob", .binary(Data([0, 0, 1, 0])), []),
    ]

    @Test(arguments: fileStores)
    func eachValueComesBackEqualOrIsRefused(store: StoreUnderTest) throws {
        for (key, value, refusedBy) in Self.values {
            let url = try Fixtures.temporaryDirectory().appendingPathComponent("doc.\(store.fileExtension ?? "")")
            let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
            try coordinator.addPersistentStore(type: store.type, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            try context.insertNewObject(forEntityName: "Owner").setValue(.string("kept"), forKey: "name")
            try context.save()
            let before = try Data(contentsOf: url)
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(value, forKey: key)
            do {
                try context.save()
                #expect(!refusedBy.contains(store.type), "\(store) saved \(key) #\(Self.label(value))")
            } catch {
                #expect(refusedBy.contains(store.type), "\(store) refused \(key) #\(Self.label(value)): \(error)")
                #expect("\(error)".contains("Item.\(key)"), "\(error)")
                #expect(try Data(contentsOf: url) == before, "\(store) \(key)")
                continue
            }
            let again = PersistentStoreCoordinator(model: try Catalog.model())
            try again.addPersistentStore(type: store.type, url: url)
            let reader = ManagedObjectContext(coordinator: again)
            let read = try #require(try reader.fetch(FetchRequest(entityName: "Item")).first)
            let back = try read.attributeValue(forKey: key)
            #expect(Self.same(value, back), "\(store) \(key) #\(Self.label(value))")
        }
    }

    /// An attribute of type Undefined is meant to be transient; one that is not and holds a value is refused by
    /// every store file (each reads a value back by its attribute's type, or by an XML type that does not tell a
    /// 16-bit integer from a 64-bit one or a UUID from a string), and the file is left as it was.
    @Test(arguments: fileStores)
    func aValueOfAnUndefinedAttributeIsRefused(store: StoreUnderTest) throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Thing",
                attributes: [
                    AttributeDescription(name: "label", type: .string),
                    AttributeDescription(name: "anything", type: .undefined),
                ])
        ])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("doc.\(store.fileExtension ?? "")")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: store.type, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertNewObject(forEntityName: "Thing").setAttributeValue(.string("none"), forKey: "label")
        try context.save()
        let before = try Data(contentsOf: url)
        for value in [AttributeValue.integer16(7), .uuid(UUID())] {
            try context.insertNewObject(forEntityName: "Thing").setAttributeValue(value, forKey: "anything")
            let error = #expect(throws: (any Error).self, "\(store) saved \(value) in an Undefined attribute") {
                try context.save()
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("Undefined"), "\(store)")
            #expect(try Data(contentsOf: url) == before, "\(store)")
            context.rollback()
        }
    }

    /// Apple's XML layout writes entity names upper-cased and property names lower-cased; names that would then be
    /// written alike are written as they are, so each value comes back to its own attribute and each object to its
    /// own entity. Dates within 1e-4 s of the reference date keep every digit.
    @Test func namesThatDifferOnlyInCaseAndTinyDatesComeBackFromXML() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Thing",
                attributes: [
                    AttributeDescription(name: "size", type: .integer32),
                    AttributeDescription(name: "Size", type: .integer64),
                    AttributeDescription(name: "when", type: .date),
                ],
                relationships: [
                    RelationshipDescription(name: "peer", destination: "THING"),
                    RelationshipDescription(name: "Peer", destination: "Thing"),
                ]),
            EntityDescription(name: "THING", attributes: [AttributeDescription(name: "size", type: .string)]),
        ])
        _ = StoreUnderTest.all  // registers the store types
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("case.xml")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let thing = try context.insertNewObject(forEntityName: "Thing")
        let upper = try context.insertNewObject(forEntityName: "THING")
        try thing.setAttributeValue(.integer32(32), forKey: "size")
        try thing.setAttributeValue(.integer64(64), forKey: "Size")
        let tiny = Date(timeIntervalSinceReferenceDate: 1.234_567_890_123_456_7e-9)
        try thing.setAttributeValue(.date(tiny), forKey: "when")
        try thing.setObject(upper, forKey: "peer")
        try thing.setObject(thing, forKey: "Peer")
        try upper.setAttributeValue(.string("upper"), forKey: "size")
        try context.save()

        let again = PersistentStoreCoordinator(model: model)
        try again.addPersistentStore(type: "XML", url: url)
        let reader = ManagedObjectContext(coordinator: again)
        let read = try #require(try reader.fetch(FetchRequest(entityName: "Thing")).first)
        #expect(try read.attributeValue(forKey: "size") == .integer32(32))
        #expect(try read.attributeValue(forKey: "Size") == .integer64(64))
        #expect(try read.attributeValue(forKey: "when") == .date(tiny))
        #expect(try read.objectIDs(forKey: "peer").map(\.entityName) == ["THING"])
        #expect(try read.objectIDs(forKey: "Peer") == [read.objectID])
        let other = try #require(try reader.fetch(FetchRequest(entityName: "THING")).first)
        #expect(try other.attributeValue(forKey: "size") == .string("upper"))
    }

    /// Names may hold characters markup gives a meaning to (`<`, `&`, quotes, `>`): the XML and binary stores keep
    /// them (an XML document escapes them), so the document opens again with every value and link where it was; a
    /// SQLite store, whose tables and columns are named after them, refuses the model with an error naming it.
    @Test(arguments: fileStores)
    func namesWithMarkupCharactersComeBack(store: StoreUnderTest) throws {
        let entity = "Odd<&\"'>"
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: entity,
                attributes: [
                    AttributeDescription(name: "a<b&\"c'd>", type: .string),
                    AttributeDescription(name: "n&m", type: .integer64),
                ],
                relationships: [RelationshipDescription(name: "r<&>", destination: entity)])
        ])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("names.\(store.fileExtension ?? "")")
        let coordinator = PersistentStoreCoordinator(model: model)
        guard store.type != "SQLite" else {
            let error = #expect(throws: (any Error).self) {
                try coordinator.addPersistentStore(type: store.type, url: url)
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("not a valid name"), "\(String(describing: error))")
            return
        }
        try coordinator.addPersistentStore(type: store.type, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let object = try context.insertNewObject(forEntityName: entity)
        try object.setAttributeValue(.string("<kept & \"quoted\">"), forKey: "a<b&\"c'd>")
        try object.setAttributeValue(.integer64(7), forKey: "n&m")
        try object.setObject(object, forKey: "r<&>")
        try context.save()

        let again = PersistentStoreCoordinator(model: model)
        try again.addPersistentStore(type: store.type, url: url)
        let reader = ManagedObjectContext(coordinator: again)
        let read = try #require(try reader.fetch(FetchRequest(entityName: entity)).first, "\(store)")
        #expect(try read.attributeValue(forKey: "a<b&\"c'd>") == .string("<kept & \"quoted\">"), "\(store)")
        #expect(try read.attributeValue(forKey: "n&m") == .integer64(7), "\(store)")
        #expect(try read.objectIDs(forKey: "r<&>") == [read.objectID], "\(store)")
    }

    /// Equal, NaN counting as equal to NaN.
    static func same(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): x == y || (x.isNaN && y.isNaN)
        case (.float(let x), .float(let y)): x == y || (x.isNaN && y.isNaN)
        case (.date(let x), .date(let y)):
            x == y || (x.timeIntervalSinceReferenceDate.isNaN && y.timeIntervalSinceReferenceDate.isNaN)
        default: a == b
        }
    }

    /// A value for messages (a NaN date has no description: Foundation stops on it).
    static func label(_ value: AttributeValue) -> String {
        if case .date(let d) = value { return "date \(d.timeIntervalSinceReferenceDate)" }
        return "\(value)"
    }
}
