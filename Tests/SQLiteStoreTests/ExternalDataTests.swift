import CSQLite
import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Binary attributes that allow external storage: a marker byte before the value (1 = bytes inline, 2 = the name
/// of a file in `.<store>_SUPPORT/_EXTERNAL_DATA`). No fixture carries such a column, so the layout is taken from
/// FORMATS.md and checked here against files we lay out by hand.
struct ExternalDataTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Photo",
                    attributes: [
                        AttributeDescription(name: "name", type: .string),
                        AttributeDescription(name: "image", type: .binary, allowsExternalBinaryDataStorage: true),
                    ])
            ],
            configurations: [])
    }

    static func images(_ url: URL) throws -> [String: Data] {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var result: [String: Data] = [:]
        for photo in try context.fetch(FetchRequest(entityName: "Photo")) {
            if case .binary(let data) = try photo.attributeValue(forKey: "image"),
                let name = try photo.attributeValue(forKey: "name").stringValue
            {
                result[name] = data
            }
        }
        return result
    }

    static let externalName = "5B0E7E5C-8C3A-4A8E-9F4B-2D6B0C1A7E11"
    static let large = Data((0..<100_000).map { UInt8($0 % 251) })

    /// A store with an inline value ("inline") and one moved out to a file ("external").
    static func store() throws -> URL {
        SQLiteStore.register()
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("photos.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(model: try Self.model())
            let store = try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for name in ["inline", "external"] {
                let photo = try context.insertNewObject(forEntityName: "Photo")
                try photo.setValue(.string(name), forKey: "name")
                try photo.setAttributeValue(.binary(Data([9, 8, 7])), forKey: "image")
            }
            try context.save()
            store.close()
        }
        // What we write is the inline form: marker 1, then the bytes.
        #expect(try scalar(url, "SELECT hex(ZIMAGE) = '01090807' FROM ZPHOTO WHERE ZNAME = 'inline'") == 1)

        // Move one value out to a file, as Core Data does for large values.
        let support = directory.appendingPathComponent(".photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true)
        try large.write(to: support.appendingPathComponent(externalName))
        let marker = "02" + Data(externalName.utf8).map { String(format: "%02X", $0) }.joined() + "00"
        #expect(try scalar(url, "UPDATE ZPHOTO SET ZIMAGE = x'\(marker)' WHERE ZNAME = 'external'") == 0)
        return url
    }

    @Test func inlineAndExternalValuesReadBack() throws {
        let images = try Self.images(try Self.store())
        #expect(images["inline"] == Data([9, 8, 7]))
        #expect(images["external"] == Self.large)
    }
}

extension ExternalDataTests {
    @Test func externalValuesSurviveEditsAndCopies() throws {
        let url = try Self.store()
        let model = try Self.model()
        // Another attribute of the object changed: the value stays where it is, and reads back.
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let photos = try context.fetch(
            FetchRequest(entityName: "Photo", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
        try photos[0].setValue(.string("external2"), forKey: "name")
        try context.save()
        #expect(try Self.images(url) == ["external2": Self.large, "inline": Data([9, 8, 7])])
        // Copied into a new SQLite file and into an XML file: the bytes, not the file's name.
        XMLStore.register()
        for (type, ext) in [(SQLiteStore.typeName, "sqlite"), (XMLStore.typeName, "xml")] {
            let copy = try Fixtures.temporaryDirectory().appendingPathComponent("copy.\(ext)")
            let source = PersistentStoreCoordinator(model: model)
            try source.addPersistentStore(type: SQLiteStore.typeName, url: url)
            try source.migratePersistentStore(source.persistentStores[0], to: copy, type: type)
            let reader = PersistentStoreCoordinator(model: model)
            try reader.addPersistentStore(type: type, url: copy)
            let readContext = ManagedObjectContext(coordinator: reader)
            var images: [String: Data] = [:]
            for photo in try readContext.fetch(FetchRequest(entityName: "Photo")) {
                if case .binary(let data) = try photo.attributeValue(forKey: "image") {
                    images[try photo.attributeValue(forKey: "name").literalText] = data
                }
            }
            #expect(images == ["external2": Self.large, "inline": Data([9, 8, 7])], "\(type)")
        }
        // The value itself replaced: the new bytes read back.
        try photos[0].setAttributeValue(.binary(Data([1, 2])), forKey: "image")
        try context.save()
        #expect(try Self.images(url) == ["external2": Data([1, 2]), "inline": Data([9, 8, 7])])
    }
}
