import BinaryStore
import Foundation
import ObjectGraph
import TestSupport
import Testing
import XMLStore

/// Damaged documents give errors naming the file and the place — never a crash, never a changed file.
struct CorruptStoreTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            return z ^ (z >> 27)
        }
    }

    /// A saved document of `type`, returned as its bytes.
    static func document(type: String, ext: String, options: [String: String] = [:]) throws -> Data {
        XMLStore.register()
        BinaryStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("doc.\(ext)")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: type, url: url, options: options)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 12)
        try context.save()
        return try Data(contentsOf: url)
    }

    /// Opens bytes as a store of `type`; returns the error, or nil when it opened.
    static func open(_ bytes: Data, type: String, ext: String) throws -> StoreError? {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("damaged.\(ext)")
        try bytes.write(to: url)
        XMLStore.register()
        BinaryStore.register()
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        do {
            try coordinator.addPersistentStore(type: type, url: url)
        } catch {
            #expect(try Data(contentsOf: url) == bytes)
            return error
        }
        return nil
    }

    @Test func anObjectKeyAtTheLimitLeavesNoRoomAndSaysSo() throws {
        XMLStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("full.xml")
        let text = """
            <database><object type="TAG" id="z9223372036854775807"><attribute name="label" type="string">last</attribute></object></database>
            """
        try Data(text.utf8).write(to: url)
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try context.insertNewObject(forEntityName: "Tag")
        #expect(throws: ContextError.self) { try context.save() }
        #expect(try Data(contentsOf: url) == Data(text.utf8))
    }

    @Test(arguments: [("XML", "xml"), ("Binary", "binary"), ("Binary", "binary-compressed")])
    func truncatedDocumentsAreRejectedWithThePlace(type: String, ext: String) throws {
        let compressed = ext.hasSuffix("compressed")
        let data = try Self.document(type: type, ext: "x", options: compressed ? ["compress": "YES"] : [:])
        var rejected = 0
        for step in 1..<40 {
            let cut = data.count * step / 40
            guard let error = try Self.open(data.prefix(cut), type: type, ext: "x") else { continue }
            rejected += 1
            #expect(error.path?.contains("damaged.x") == true, "\(error)")
            #expect(error.path?.contains(type == "XML" ? ":" : ":offset") == true, "\(error)")
        }
        #expect(rejected == 39)
    }

    @Test(arguments: [("XML", 300), ("Binary", 300)])
    func flippedBytesNeverCrash(type: String, count: Int) throws {
        let data = try Self.document(type: type, ext: "x")
        var generator = Generator(state: 7)
        var errors = 0
        for _ in 0..<count {
            var copy = data
            copy[Int.random(in: 0..<copy.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            if try Self.open(copy, type: type, ext: "x") != nil { errors += 1 }
        }
        // Binary stores have a checksum: every flip is caught. XML flips inside text can be harmless.
        if type == "Binary" { #expect(errors == count) } else { #expect(errors > 0) }
    }

    @Test(arguments: [
        (
            "<database><object type=\"ITEM\" id=\"z1\"><attribute name=\"name\" type=\"string\">a</object></database>",
            "XML"
        ),
        ("<database><object type=\"GADGET\" id=\"z1\"></object></database>", "unknown entity 'GADGET'"),
        (
            "<database><object type=\"ITEM\" id=\"z1\"><attribute name=\"colour\" type=\"string\">a</attribute></object></database>",
            "no attribute 'colour'"
        ),
        (
            "<database><object type=\"ITEM\" id=\"z1\"><attribute name=\"medium\" type=\"int32\">many</attribute></object></database>",
            "not a valid int32"
        ),
        ("<database><object type=\"ITEM\" id=\"x1\"></object></database>", "bad id"),
        (
            "<database><object type=\"ITEM\" id=\"z1\"><relationship name=\"owner\" type=\"1/1\" destination=\"OWNER\" idrefs=\"z9223372036854775808\"></relationship></object></database>",
            "bad id 'z9223372036854775808'"
        ),
        (
            "<database><object type=\"ITEM\" id=\"z1\"></object><object type=\"ITEM\" id=\"z1\"></object></database>",
            "used twice"
        ),
        ("<plist version=\"1.0\"><dict/></plist>", "not <database>"),
        (
            "<database><object type=\"ITEM\" id=\"z1\"><relationship name=\"owner\" type=\"1/1\" destination=\"OWNER\" idrefs=\"z2\"></relationship></object><object type=\"TAG\" id=\"z2\"></object></database>",
            "refers to z2, a Tag, not a Owner"
        ),
        (
            "<database><databaseInfo><version>134481920</version><UUID> </UUID><nextObjectID>103</nextObjectID></databaseInfo><object type=\"ITEM\" id=\"z1\"></object></database>",
            "no store UUID"
        ),
        (
            "<database><object type=\"ITEM\" id=\"z1\"><attribute name=\"created\" type=\"date\">soon</attribute></object></database>",
            "not a valid date"
        ),
        (
            "<?xml version=\"1.0\"?><!DOCTYPE database [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><database><object type=\"ITEM\" id=\"z1\"><attribute name=\"name\" type=\"string\">&x;</attribute></object></database>",
            "internal subset"
        ),
        (
            "<?xml version=\"1.0\"?><!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\"><database><object type=\"ITEM\" id=\"z1\"><attribute name=\"name\" type=\"string\">a&undeclared;b</attribute></object></database>",
            "undeclared"
        ),
    ])
    func badXMLGivesAClearError(text: String, expected: String) throws {
        let error = try Self.open(Data(text.utf8), type: "XML", ext: "xml")
        if expected.isEmpty {
            // External entities are never loaded: the document either fails or holds no file contents.
            if error == nil {
                let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
                let url = try Fixtures.temporaryDirectory().appendingPathComponent("e.xml")
                try Data(text.utf8).write(to: url)
                try coordinator.addPersistentStore(type: "XML", url: url)
                let item = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Item"))
                    .first
                #expect(try item?.attributeValue(forKey: "name").stringValue?.contains("root:") != true)
            }
            return
        }
        let found = try #require(error)
        #expect(found.description.contains(expected), "\(found)")
        #expect(found.path?.contains("damaged.xml:") == true, "\(found)")
    }

    /// A reference to an object the file does not hold opens (as the other stores' do): the reference is kept as an ID
    /// of the relationship's destination entity, reading that object is an error naming it, and the graph's check
    /// reports it.
    @Test func aReferenceToAMissingObjectIsKeptAndReported() throws {
        let text = """
            <database><object type="ITEM" id="z1"><relationship name="owner" type="1/1" destination="OWNER" idrefs="z9"></relationship></object></database>
            """
        #expect(try Self.open(Data(text.utf8), type: "XML", ext: "xml") == nil)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("dangling.xml")
        try Data(text.utf8).write(to: url)
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        let store = try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let item = try #require(try context.fetch(FetchRequest(entityName: "Item")).first)
        let missing = ManagedObjectID(entityName: "Owner", storeIdentifier: store.identifier, primaryKey: 9)
        #expect(try item.objectIDs(forKey: "owner") == [missing])
        #expect(throws: ObjectGraphError.self) { try item.object(forKey: "owner")?.attributeValue(forKey: "name") }
        let snapshots = try coordinator.storedSnapshots(of: store)
        let problems = SnapshotCheck.problems(in: snapshots, model: coordinator.model)
        #expect(problems.map(\.kind) == [.danglingReference], "\(problems)")
    }

    @Test func binaryHeaderProblemsAreNamed() throws {
        let data = try Self.document(type: "Binary", ext: "x")
        var wrongMagic = data
        wrongMagic[0] = 0x41
        #expect(try Self.open(wrongMagic, type: "Binary", ext: "binary")?.description.contains("magic") == true)
        var wrongVersion = data
        wrongVersion[8] = 9
        #expect(try Self.open(wrongVersion, type: "Binary", ext: "binary")?.description.contains("version 9") == true)
        var flipped = data
        flipped[data.count / 2] ^= 0xFF
        #expect(try Self.open(flipped, type: "Binary", ext: "binary")?.description.contains("checksum") == true)
        #expect(try Self.open(Data(), type: "Binary", ext: "binary")?.description.contains("too short") == true)
    }

    /// A binary file counts its objects per entity without decoding them.
    @Test func binaryFilesCountTheirObjects() throws {
        BinaryStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("count.binary")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "Binary", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 40)
        try context.save()
        var expected: [String: Int] = [:]
        for entity in try Catalog.model().entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            let count = try context.count(for: request)
            if count > 0 { expected[entity.name] = count }
        }
        #expect(try BinaryStoreFile(url: url).objectCounts() == expected)
        #expect(expected["Item"] ?? 0 > 0)
    }

    @Test func compressedBinaryDocumentsRoundTrip() throws {
        BinaryStore.register()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("doc.binary")
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        try coordinator.addPersistentStore(type: "Binary", url: url, options: ["compress": "YES"])
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: 50)
        try context.save()
        let expected = try Catalog.describe(context)
        let plain = try Self.document(type: "Binary", ext: "x")
        #expect(try Data(contentsOf: url)[10] == 1)
        #expect(plain[10] == 0)
        let reopened = PersistentStoreCoordinator(model: try Catalog.model())
        try reopened.addPersistentStore(type: "Binary", url: url)
        #expect(try Catalog.describe(ManagedObjectContext(coordinator: reopened)) == expected)
    }

    /// A compressed binary document whose recorded plain length is wrong (the trailer is outside the checksum) is an
    /// error naming the file and the body's offset: never a crash from making room for a length up to a terabyte,
    /// never a body shorter or longer than recorded.
    @Test(arguments: [UInt64(1) << 40 - 1, 1 << 34, 1, 0, UInt64.max])
    func aCompressedBodyOfAnotherLengthThanRecordedIsAnError(recorded: UInt64) throws {
        var data = try Self.document(type: "Binary", ext: "x", options: ["compress": "YES"])
        let trailer = data.count - 28
        let plain = (0..<8).reduce(UInt64(0)) { $0 | UInt64(data[trailer + $1]) << (8 * UInt64($1)) }
        // A length each side of the true one too (the true one opens).
        for length in [recorded, plain - 1, plain + 1] {
            for i in 0..<8 { data[trailer + i] = UInt8(truncatingIfNeeded: length >> (8 * UInt64(i))) }
            let error = try #require(try Self.open(data, type: "Binary", ext: "x"), "length \(length)")
            #expect(error.code == .corrupt)
            // (A length of a terabyte or more is refused where the trailer records it, before the body is read.)
            let place = length < 1 << 40 ? 16 : trailer
            #expect(error.path?.hasSuffix("damaged.x:offset \(place)") == true, "\(error)")
        }
        for i in 0..<8 { data[trailer + i] = UInt8(truncatingIfNeeded: plain >> (8 * UInt64(i))) }
        #expect(try Self.open(data, type: "Binary", ext: "x") == nil)
    }

    /// A string in a binary document that is not UTF-8 (damage the checksum does not catch, as it is computed over
    /// the damaged bytes) is an error naming the file and the offset, never a string with replacement characters.
    @Test func aBinaryStringThatIsNotUTF8IsAnError() throws {
        BinaryStore.register()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)])
        ])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("note.binary")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "Binary", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertNewObject(forEntityName: "Note").setAttributeValue(.string("caf\u{E9}!"), forKey: "text")
        try context.save()
        var bytes = [UInt8](try Data(contentsOf: url))
        let marker = Array("caf\u{E9}!".utf8)
        let at = try #require(
            (0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
        bytes[at + 3] = 0xFF
        try Data(Self.checksummed(bytes)).write(to: url)
        try Self.expectReadFails(url, model: model, key: "text", saying: "not UTF-8")
    }

    /// Reading the notes' `key` from the binary document at `url` fails with an error that says `message` and names
    /// the file and the offset.
    static func expectReadFails(_ url: URL, model: ManagedObjectModel, key: String, saying message: String) throws {
        let reader = PersistentStoreCoordinator(model: model)
        do {
            try reader.addPersistentStore(type: "Binary", url: url)
            let readContext = ManagedObjectContext(coordinator: reader)
            let values = try readContext.fetch(FetchRequest(entityName: "Note")).map {
                try $0.attributeValue(forKey: key)
            }
            Issue.record("read instead of '\(message)': \(values)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
            #expect("\(error)".contains("\(url.lastPathComponent):offset"), "\(error)")
        }
    }

    /// A whole number in a binary document too large for its Integer 16 or 32 attribute (damage the checksum does not
    /// catch) is an error naming the file and the offset, never a number cut to fit.
    @Test(arguments: [
        (AttributeType.integer16, AttributeValue.integer16(20_000), [UInt8]([0xC0, 0xB8, 0x02]), "Integer 16"),
        (.integer32, .integer32(1 << 30), [0x80, 0x80, 0x80, 0x80, 0x08], "Integer 32"),
    ])
    func aBinaryNumberOutOfItsRangeIsAnError(type: AttributeType, value: AttributeValue, stored: [UInt8], name: String)
        throws
    {
        BinaryStore.register()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "count", type: type)])
        ])
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("count.binary")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "Binary", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertNewObject(forEntityName: "Note").setAttributeValue(value, forKey: "count")
        try context.save()
        var bytes = [UInt8](try Data(contentsOf: url))
        let at = try #require(
            (0...(bytes.count - stored.count)).first { Array(bytes[$0..<$0 + stored.count]) == stored })
        // The largest whole number a varint of the same length holds: a negative number far out of range.
        for i in stored.indices { bytes[at + i] = i == stored.count - 1 ? 0x7F : 0xFF }
        try Data(Self.checksummed(bytes)).write(to: url)
        try Self.expectReadFails(url, model: model, key: "count", saying: "\(name) out of range")
    }

    /// A binary document's bytes with its checksum (CRC-32 of header and body, 12 bytes from the end) made right
    /// again after damage the checksum would otherwise catch.
    static func checksummed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[..<(bytes.count - 28)] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        withUnsafeBytes(of: (~crc).littleEndian) {
            bytes.replaceSubrange((bytes.count - 12)..<(bytes.count - 8), with: $0)
        }
        return bytes
    }

    /// A binary document whose to-many names one object twice (written by hand) holds one link, as the XML store
    /// reads a repeated id: a copy into any store then keeps the links the document has.
    @Test func anObjectNamedTwiceInABinaryToManyIsOneLink() throws {
        BinaryStore.register()
        XMLStore.register()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Owner", relationships: [RelationshipDescription(name: "tags", destination: "Tag", toMany: true)]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        let folder = try Fixtures.temporaryDirectory()
        let url = folder.appendingPathComponent("twice.binary")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "Binary", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let owner = try context.insertNewObject(forEntityName: "Owner")
        let tags = try (0..<2).map { _ in try context.insertNewObject(forEntityName: "Tag") }
        try owner.setObjects(tags, forKey: "tags")
        try context.save()
        // The to-many as written: a count of 2, then (entity, key) for keys 1 and 2; the second made key 1.
        var bytes = [UInt8](try Data(contentsOf: url))
        func isTheToMany(_ i: Int) -> Bool {
            let run: [UInt8] = Array(bytes[i..<i + 5])
            return run[0] == 2 && run[2] == 1 && run[4] == 2 && run[1] == run[3]
        }
        let at = try #require((0..<(bytes.count - 5)).first(where: isTheToMany))
        bytes[at + 4] = 1
        try Data(Self.checksummed(bytes)).write(to: url)
        let reader = PersistentStoreCoordinator(model: model)
        let store = try reader.addPersistentStore(type: "Binary", url: url)
        let readContext = ManagedObjectContext(coordinator: reader)
        let read = try #require(try readContext.fetch(FetchRequest(entityName: "Owner")).first)
        #expect(try read.objectIDs(forKey: "tags").map(\.primaryKey) == [1])
        let copy = folder.appendingPathComponent("twice.xml")
        try reader.writeCopy(of: store, to: copy, type: "XML")
        let again = PersistentStoreCoordinator(model: model)
        try again.addPersistentStore(type: "XML", url: copy)
        let copyContext = ManagedObjectContext(coordinator: again)
        let copied = try #require(try copyContext.fetch(FetchRequest(entityName: "Owner")).first)
        #expect(try copied.objectIDs(forKey: "tags").count == 1)
    }
}
