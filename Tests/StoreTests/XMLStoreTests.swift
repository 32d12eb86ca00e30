import Documents
import Foundation
import ModelFiles
import ObjectGraph
import Synchronization
import TestSupport
import Testing
import XMLStore

struct XMLStoreTests {
    /// A small document written with a fixed UUID and fixed values, compared byte for byte with the golden file.
    @Test func writesApplesLayout() throws {
        XMLStore.register()
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("golden.xml")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(
            type: "XML", url: url, options: ["storeIdentifier": "9DA05BB0-3F2A-4C1F-978F-3D70EC917014"])
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 6)
        try context.save()
        var text = try String(contentsOf: url, encoding: .utf8)
        // The embedded model's text is checked elsewhere; keep the golden file readable.
        let modelKey = "<key>DocutilStoreModel</key>"
        #expect(text.contains(modelKey))
        if let start = text.range(of: modelKey),
            let end = text.range(of: "</string>", range: start.upperBound..<text.endIndex)
        {
            text.replaceSubrange(start.upperBound..<end.upperBound, with: "\n                    <string>…</string>")
        }
        let golden = Fixtures.projectRoot.appendingPathComponent("Tests/StoreTests/Golden/catalog.xml")
        if ProcessInfo.processInfo.environment["DOCUTIL_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(text == expected)
        // The layout facts of Apple's files.
        #expect(
            text.hasPrefix(
                "<?xml version=\"1.0\" standalone=\"yes\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n<database>\n    <databaseInfo>\n        <version>134481920</version>\n"
            ))
        #expect(text.contains("<object type=\"SPECIALITEM\" id=\"z"))
        #expect(
            text.contains("<attribute name=\"created\" type=\"date\">336046917.00164198875427246094</attribute>"))
        #expect(text.contains("type=\"1/1\" destination=\"OWNER\" idrefs=\"z"))
        #expect(text.contains("<relationship name=\"parts\" type=\"0/0\" destination=\"ITEM\" idrefs=\""))
        #expect(!text.contains("scratch"))
        // Ids start after 101, like Apple's.
        #expect(text.contains("id=\"z102\""))
        #expect(text.contains("<nextObjectID>114</nextObjectID>"))
    }

    /// A large store's objects are freed on another thread when its coordinator goes away: they are freed all the same.
    @Test func aLargeStoresObjectsAreFreedWhenItsCoordinatorGoes() throws {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("large.xml")
        do {
            let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
            try coordinator.addPersistentStore(type: "XML", url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for i in 0..<10_050 {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                try tag.setValue(.string("t\(i)"), forKey: "label")
            }
            try context.save()
        }
        weak var probe: ManagedObjectID?
        do {
            let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
            try coordinator.addPersistentStore(type: "XML", url: url, options: ["readOnly": "YES"])
            let context = ManagedObjectContext(coordinator: coordinator)
            let tags = try context.fetch(FetchRequest(entityName: "Tag"))
            #expect(tags.count == 10_050)
            probe = tags.first?.objectID
            #expect(probe != nil)
        }
        let deadline = Date().addingTimeInterval(10)
        while probe != nil && Date() < deadline { usleep(10_000) }
        #expect(probe == nil)
    }

    /// Objects of one entity that name their attributes in different orders, or in another case, read each value
    /// into its own attribute (the reader tries the order the previous object used first).
    @Test func attributesInAnyOrderReadIntoTheirOwnSlots() throws {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("orders.xml")
        let text = """
            <database>
            <object type="ITEM" id="z1"><attribute name="name" type="string">one</attribute><attribute name="medium" type="int32">1</attribute><attribute name="weight" type="double">1.5</attribute></object>
            <object type="ITEM" id="z2"><attribute name="weight" type="double">2.5</attribute><attribute name="name" type="string">two</attribute><attribute name="medium" type="int32">2</attribute></object>
            <object type="ITEM" id="z3"><attribute name="name" type="string">three</attribute><attribute name="WEIGHT" type="double">3.5</attribute></object>
            <object type="ITEM" id="z4"><attribute name="medium" type="int32">4</attribute></object>
            <object type="ITEM" id="z5"><attribute name="name" type="string">five</attribute><attribute name="medium" type="int32">5</attribute><attribute name="weight" type="double">5.5</attribute></object>
            </database>
            """
        let (context, items) = try Self.items(of: text, at: url)
        let seen = try withExtendedLifetime(context) {
            try items.map { item in
                [
                    try item.attributeValue(forKey: "name").stringValue ?? "-",
                    try item.attributeValue(forKey: "medium").int64Value.map { "\($0)" } ?? "-",
                    try item.attributeValue(forKey: "weight").doubleValue.map { "\($0)" } ?? "-",
                ].joined(separator: " ")
            }.sorted()
        }
        #expect(seen == ["- 4 -", "five 5 5.5", "one 1 1.5", "three - 3.5", "two 2 2.5"])
    }

    /// Relationships named in different orders by objects of one entity, or in another case, and keys far apart
    /// (the reader's table of IDs by key is then not an array over their range) read into their own relationships.
    @Test(arguments: [(1, 2, 3, 4), (1, 900_000_000_000, 5, 9_223_372_036_854_775_807)])
    func relationshipsInAnyOrderReadIntoTheirOwnSlots(keys: (Int64, Int64, Int64, Int64)) throws {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("relationships.xml")
        let (item, other, tag, owner) = keys
        let text = """
            <database>
            <object type="ITEM" id="z\(item)"><relationship name="owner" type="1/1" destination="OWNER" idrefs="z\(owner)"></relationship><relationship name="tags" type="0/0" destination="TAG" idrefs="z\(tag)"></relationship></object>
            <object type="ITEM" id="z\(other)"><relationship name="TAGS" type="0/0" destination="TAG" idrefs="z\(tag)"></relationship><relationship name="seealso" type="1/1" destination="ITEM" idrefs="z\(item)"></relationship><relationship name="owner" type="1/1" destination="OWNER"></relationship></object>
            <object type="TAG" id="z\(tag)"><relationship name="items" type="0/0" destination="ITEM" idrefs="z\(item) z\(other)"></relationship></object>
            <object type="OWNER" id="z\(owner)"><relationship name="items" type="0/0" destination="ITEM" idrefs="z\(item)"></relationship></object>
            </database>
            """
        let (context, items) = try Self.items(of: text, at: url)
        let first = try #require(items.first { $0.objectID.primaryKey == item })
        let second = try #require(items.first { $0.objectID.primaryKey == other })
        #expect(try first.object(forKey: "owner")?.objectID.primaryKey == owner)
        #expect(try first.objectIDs(forKey: "tags").map(\.primaryKey) == [tag])
        #expect(try first.object(forKey: "seeAlso") == nil)
        #expect(try second.object(forKey: "owner") == nil)
        #expect(try second.objectIDs(forKey: "tags").map(\.primaryKey) == [tag])
        #expect(try second.object(forKey: "seeAlso")?.objectID.primaryKey == item)
        let tagObject = try #require(try context.fetch(FetchRequest(entityName: "Tag")).first)
        #expect(try Set(tagObject.objectIDs(forKey: "items").map(\.primaryKey)) == [item, other])
    }

    /// A value's text is all its character data — CDATA sections and character references included, comments and
    /// processing instructions left out — and a value split by them reads whole.
    @Test func aValueIsItsCharacterData() throws {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("text.xml")
        let text = """
            <database>
            <object type="ITEM" id="z1"><attribute name="name" type="string">a<!-- not this -->b<![CDATA[<c>]]>&#100;<?pi no?>e</attribute></object>
            <object type="ITEM" id="z2"><attribute name="name" type="string"><!-- only a comment --></attribute></object>
            </database>
            """
        let (context, items) = try Self.items(of: text, at: url)
        let names = try withExtendedLifetime(context) {
            try items.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }.map {
                try $0.attributeValue(forKey: "name")
            }
        }
        #expect(names == [.string("ab<c>de"), .string("")])
    }

    /// The catalog items of the XML store `text`, written at `url`, with the context holding them.
    static func items(of text: String, at url: URL) throws -> (ManagedObjectContext, [ManagedObject]) {
        try Data(text.utf8).write(to: url)
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        return (context, try context.fetch(FetchRequest(entityName: "Item")))
    }

    /// The reader parses a file a piece at a time (4 KB first, then larger pieces): whichever byte a piece ends on —
    /// inside a tag, between an element and its end, inside text or an entity — the same graph reads back, and a
    /// value longer than a piece reads whole.
    @Test func aPieceMayEndAnywhere() throws {
        XMLStore.register()
        let folder = try Fixtures.temporaryDirectory()
        let piece = 4 * 1024
        let head = "<?xml version=\"1.0\" standalone=\"yes\"?>\n<database>\n"
        let long = String(repeating: "long text é ", count: 70_000)
        let body = """
            <object type="ITEM" id="z1"><attribute name="name" type="string">a&amp;b&#233;c</attribute>\
            <attribute name="medium" type="int32">42</attribute>\
            <relationship name="tags" type="0/0" destination="TAG" idrefs="z2 z3"></relationship>\
            <relationship name="owner" type="1/1" destination="OWNER"/></object>
            <object type="TAG" id="z2"><attribute name="label" type="string"> </attribute></object>
            <object type="TAG" id="z3"></object><object type="OWNER" id="z4"/>
            <object type="ITEM" id="z5"><attribute name="name" type="string">\(long)</attribute></object>
            </database>

            """
        for shift in 0..<80 {
            let padding = String(repeating: " ", count: piece - head.utf8.count - 40 + shift)
            let url = folder.appendingPathComponent("piece\(shift).xml")
            try Data((head + padding + body).utf8).write(to: url)
            let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
            try coordinator.addPersistentStore(type: "XML", url: url, options: ["readOnly": "YES"])
            let context = ManagedObjectContext(coordinator: coordinator)
            let items = try context.fetch(FetchRequest(entityName: "Item"))
            let first = try #require(items.first { $0.objectID.primaryKey == 1 })
            #expect(try first.attributeValue(forKey: "name") == .string("a&béc"), "shift \(shift)")
            #expect(try first.attributeValue(forKey: "medium").int64Value == 42, "shift \(shift)")
            #expect(try first.objectIDs(forKey: "tags").count == 2, "shift \(shift)")
            #expect(try first.object(forKey: "owner") == nil, "shift \(shift)")
            let second = try #require(items.first { $0.objectID.primaryKey == 5 })
            #expect(try second.attributeValue(forKey: "name") == .string(long), "shift \(shift)")
            let labels = try context.fetch(FetchRequest(entityName: "Tag")).map {
                try $0.attributeValue(forKey: "label")
            }
            #expect(labels.contains(.string(" ")) && labels.contains(.null), "shift \(shift)")
            #expect(try context.count(for: FetchRequest(entityName: "Owner")) == 1, "shift \(shift)")
        }
    }

    /// A new XML store file named `name` with `count` catalog items saved in it, and a context on it.
    static func savedCatalog(_ name: String, count: Int) throws -> (URL, ManagedObjectContext) {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: count)
        try context.save()
        return (url, context)
    }

    @Test func aFailedSaveLeavesTheOldFileIntact() throws {
        let (url, context) = try Self.savedCatalog("store.xml", count: 30)
        let before = try Data(contentsOf: url)
        try Catalog.populate(context, count: 30)
        let target = url.path
        let error = try FailureInjection.with({ destination, _ in destination.path == target }) {
            try #require(throws: ContextError.self) { try context.save() }
        }
        #expect(error.description.contains("injected failure"))
        #expect(try Data(contentsOf: url) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(leftovers == ["store.xml"])
        try context.save()
        #expect(try Data(contentsOf: url) != before)
    }

    /// A large store is written in pieces; a failure after some of them (a temporary file partly written) leaves the
    /// old file as it was and no temporary file behind.
    @Test func aLargeStoreIsWrittenInPiecesAndAFailureMidwayChangesNothing() throws {
        let (url, context) = try Self.savedCatalog("large.xml", count: 4_000)
        let before = try Data(contentsOf: url)
        try #require(before.count > 3 << 20, "the store must span several pieces (\(before.count) bytes)")
        try Catalog.populate(context, count: 10)
        let target = url.path
        let offsets = Mutex<[Int]>([])
        let error = try FailureInjection.with({ destination, offset in
            guard destination.path == target else { return false }
            offsets.withLock { $0.append(offset) }
            return offset > 2 << 20
        }) {
            try #require(throws: ContextError.self) { try context.save() }
        }
        #expect(error.description.contains("injected failure"))
        // Several pieces reached the temporary file before the failure.
        #expect(offsets.withLock { $0.count } >= 3)
        #expect(try Data(contentsOf: url) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(leftovers == ["large.xml"])
    }

    @Test func theEmbeddedModelReadsBack() throws {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("store.xml")
        let model = try Catalog.model()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 2)
        try context.save()
        let file = try XMLStoreFile(url: url)
        #expect(try file.embeddedModel() == model)
        guard case .dictionary(let hashes)? = file.metadata["NSStoreModelVersionHashes"] else {
            Issue.record("no version hashes")
            return
        }
        #expect(
            hashes.mapValues { if case .data(let d) = $0 { return d } else { return Data() } }
                == model.entityVersionHashes)
        #expect(file.metadata["NSStoreModelVersionHashesVersion"] == .integer(3))
        #expect(file.metadata["NSStoreType"] == .string("XML"))
    }
}

struct ConversionChainTests {
    /// XML → binary → XML → binary keeps every value of every attribute type, every relationship kind and
    /// inheritance.
    @Test func everythingSurvivesAChainOfConversions() throws {
        DocumentStack.registerStoreTypes()
        let directory = try Fixtures.temporaryDirectory()
        let first = directory.appendingPathComponent("1.xml")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "XML", url: first)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 60)
        try context.save()
        let expected = try Catalog.describe(context)
        var current = first
        for (i, (type, ext)) in [("Binary", "binary"), ("XML", "xml"), ("Binary", "binary")].enumerated() {
            let next = directory.appendingPathComponent("\(i + 2).\(ext)")
            let document = try DocumentStack.open(current)
            #expect(try Catalog.describe(document.context) == expected, "before step \(i + 1)")
            try DocumentStack.convert(document, to: next, type: type, force: false)
            current = next
        }
        let last = try DocumentStack.open(current)
        #expect(last.storeType == "Binary")
        #expect(try Catalog.describe(last.context) == expected)
        #expect(last.model.entity(named: "SpecialItem")?.parentName == "Item")
    }
}
