import BinaryStore
import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// A conversion of a SQLite store to XML or binary goes a batch at a time (`exportCopy`): it must write the very file
/// a copy made whole writes, renumbered or not, and leave nothing when it fails halfway.
struct StreamingCopyTests {
    init() {
        SQLiteStore.register()
        XMLStore.register()
        BinaryStore.register()
    }

    /// A SQLite store of the catalog graph: more objects than one batch, items and special items sharing keys, three
    /// roots whose keys repeat, ordered and many-to-many relationships.
    static func catalogStore(count: Int) throws -> (PersistentStoreCoordinator, any PersistentStore, URL) {
        let folder = try Fixtures.temporaryDirectory()
        let coordinator = PersistentStoreCoordinator(model: try Catalog.model())
        let store = try coordinator.addPersistentStore(
            type: SQLiteStore.typeName, url: folder.appendingPathComponent("catalog.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        try Catalog.populate(context, count: count)
        try context.save()
        return (coordinator, store, folder)
    }

    @Test func aStreamedCopyIsTheFileAWholeCopyWrites() throws {
        let (coordinator, store, folder) = try Self.catalogStore(count: 2_345)
        let streamed = folder.appendingPathComponent("streamed.xml")
        let whole = folder.appendingPathComponent("whole.xml")
        var heard: [(Int, Int)] = []
        try coordinator.exportCopy(of: store, to: streamed, type: XMLStore.typeName) { heard.append(($0, $1)) }
        try coordinator.writeCopy(of: store, to: whole, type: XMLStore.typeName)
        #expect(try Data(contentsOf: streamed) == Data(contentsOf: whole))
        // Read in batches of at most a thousand, to the last object (7 owners and tags, 2,345 items).
        #expect(heard.count > 3)
        #expect(heard.last.map { $0 == (2_352, 2_352) } == true)
        #expect(zip(heard, heard.dropFirst()).allSatisfy { $1.0 > $0.0 && $1.0 - $0.0 <= 1_000 })
        // The copy holds the same graph.
        let check = PersistentStoreCoordinator(model: try Catalog.model())
        try check.addPersistentStore(type: XMLStore.typeName, url: streamed, options: ["readOnly": "YES"])
        let original = ManagedObjectContext(coordinator: coordinator)
        #expect(try Catalog.describe(ManagedObjectContext(coordinator: check)) == Catalog.describe(original))
    }

    @Test(arguments: [[:], ["compress": "YES"]])
    func aStreamedBinaryCopyIsTheFileAWholeCopyWrites(options: [String: String]) throws {
        let (coordinator, store, folder) = try Self.catalogStore(count: 2_345)
        let streamed = folder.appendingPathComponent("streamed.binary")
        let whole = folder.appendingPathComponent("whole.binary")
        try coordinator.exportCopy(of: store, to: streamed, type: BinaryStore.typeName, options: options)
        try coordinator.writeCopy(of: store, to: whole, type: BinaryStore.typeName, options: options)
        #expect(try Data(contentsOf: streamed) == Data(contentsOf: whole))
        let check = PersistentStoreCoordinator(model: try Catalog.model())
        try check.addPersistentStore(type: BinaryStore.typeName, url: streamed, options: ["readOnly": "YES"])
        let original = ManagedObjectContext(coordinator: coordinator)
        #expect(try Catalog.describe(ManagedObjectContext(coordinator: check)) == Catalog.describe(original))
    }

    /// A binary store writes each entity's objects by key whatever order its snapshots come in.
    @Test func aBinaryFileDoesNotDependOnTheOrderOfItsSnapshots() throws {
        let folder = try Fixtures.temporaryDirectory()
        let model = try Catalog.model()
        let uuid = "0C6F7B7E-4C67-4F2B-8F0E-6D2B2E9E1A11"
        var snapshots: [ObjectSnapshot] = []
        for key in Int64(1)...40 {
            let entity = key % 3 == 0 ? "Tag" : "Item"
            let id = ManagedObjectID(entityName: entity, storeIdentifier: uuid, primaryKey: key)
            snapshots.append(
                ObjectSnapshot(
                    objectID: id,
                    attributes: entity == "Tag" ? ["label": .string("t\(key)")] : ["name": .string("i\(key)")]))
        }
        var files: [Data] = []
        var generator = SystemRandomNumberGenerator()
        for order in [snapshots, snapshots.reversed(), snapshots.shuffled(using: &generator)] {
            let url = folder.appendingPathComponent("\(files.count).binary")
            let store = try BinaryStore(
                description: StoreDescription(type: BinaryStore.typeName, url: url, options: ["storeIdentifier": uuid]))
            try store.prepareWrite(AtomicStoreContents(identifier: uuid, snapshots: order), model: model).commit()
            files.append(try Data(contentsOf: url))
        }
        #expect(files[0] == files[1])
        #expect(files[0] == files[2])
        let check = PersistentStoreCoordinator(model: model)
        try check.addPersistentStore(
            type: BinaryStore.typeName, url: folder.appendingPathComponent("1.binary"), options: ["readOnly": "YES"])
        let context = ManagedObjectContext(coordinator: check)
        let names = try context.fetch(FetchRequest(entityName: "Item")).map {
            try $0.attributeValue(forKey: "name").stringValue ?? ""
        }
        #expect(Set(names) == Set((1...40).filter { $0 % 3 != 0 }.map { "i\($0)" }))
    }

    @Test func keysAlreadyUniqueAcrossTheStoreAreKept() throws {
        // An XML store numbers keys across the whole store, after 101; its SQLite copy keeps them, so the XML copy
        // of that needs no renumbering and goes in key order across entities.
        let (coordinator, store, folder) = try Self.catalogStore(count: 1_500)
        let xml = folder.appendingPathComponent("first.xml")
        try coordinator.writeCopy(of: store, to: xml, type: XMLStore.typeName)
        let second = PersistentStoreCoordinator(model: try Catalog.model())
        let xmlStore = try second.addPersistentStore(type: XMLStore.typeName, url: xml, options: ["readOnly": "YES"])
        let sqlite = folder.appendingPathComponent("kept.sqlite")
        try second.writeCopy(of: xmlStore, to: sqlite, type: SQLiteStore.typeName)
        let third = PersistentStoreCoordinator(model: try Catalog.model())
        let kept = try third.addPersistentStore(type: SQLiteStore.typeName, url: sqlite)
        let streamed = folder.appendingPathComponent("streamed.xml")
        let whole = folder.appendingPathComponent("whole.xml")
        try third.exportCopy(of: kept, to: streamed, type: XMLStore.typeName)
        try third.writeCopy(of: kept, to: whole, type: XMLStore.typeName)
        #expect(try Data(contentsOf: streamed) == Data(contentsOf: whole))
        // The keys are the first XML file's: the same objects under the same ids (the metadata differs, as the
        // SQLite store adds keys of its own, and unordered to-manys come back in key order).
        func ids(_ url: URL) throws -> [Substring] {
            try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("    <object ") }
        }
        #expect(try ids(streamed) == ids(xml))
        #expect(try ids(streamed).count == 1_507)
    }

    @Test(arguments: [XMLStore.typeName, BinaryStore.typeName])
    func aStreamedCopyThatFailsHalfwayLeavesNothing(type: String) throws {
        let (coordinator, store, folder) = try Self.catalogStore(count: 6_000)
        let output = folder.appendingPathComponent("output.\(type)")
        try Data("the old file\n".utf8).write(to: output)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        // The write fails past a point several batches in (the binary file is several times smaller).
        let failAfter = type == XMLStore.typeName ? 1_200_000 : 150_000
        FailureInjection.with({ url, offset in url.lastPathComponent.contains("output.") && offset > failAfter }) {
            #expect(throws: StoreError.self) {
                try coordinator.exportCopy(of: store, to: output, type: type)
            }
        }
        #expect(try Data(contentsOf: output) == Data("the old file\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }
}
