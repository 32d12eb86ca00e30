import BinaryStore
import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing
import XMLStore

extension Trait where Self == ConditionTrait {
    static var needsRealFixtures: Self {
        .enabled(if: Fixtures.realAvailable, "../shared/fixtures/real is absent: skipping tests on real Apple files")
    }
}

/// Apple's XML stores: every one opens with no model, shows every object and value, and survives conversion.
struct XMLFixtureTests {
    static let stores = Fixtures.realFiles(in: "xmlstore", suffix: ".xml")

    /// Copies a fixture into a temporary directory (fixtures are never opened in place).
    static func copy(_ path: String) throws -> URL {
        let target = try Fixtures.temporaryDirectory().appendingPathComponent("store.xml")
        try FileManager.default.copyItem(at: Fixtures.real(path), to: target)
        return target
    }

    /// What the file holds, straight from the XML text: per object, its type and every attribute and relationship.
    static func rawCounts(_ url: URL) throws -> (objects: Int, attributes: Int, links: Int) {
        let text = try String(contentsOf: url, encoding: .utf8)
        let objects = text.components(separatedBy: "<object ").count - 1
        let attributes = text.components(separatedBy: "<attribute ").count - 1
        var links = 0
        for part in text.components(separatedBy: "idrefs=\"").dropFirst() {
            links += part.prefix { $0 != "\"" }.split(separator: " ").count
        }
        return (objects, attributes, links)
    }

    static func graphCounts(_ context: ManagedObjectContext) throws -> (objects: Int, attributes: Int, links: Int) {
        var objects = 0
        var attributes = 0
        var links = 0
        for entity in context.model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                objects += 1
                for a in object.entity.attributes where try !object.attributeValue(forKey: a.name).isNull {
                    attributes += 1
                }
                for r in object.entity.relationships {
                    links +=
                        r.isToMany
                        ? try object.objects(forKey: r.name).count : (try object.object(forKey: r.name) == nil ? 0 : 1)
                }
            }
        }
        return (objects, attributes, links)
    }

    @Test(.needsRealFixtures, arguments: stores)
    func opensWithNoModelAndShowsEverything(path: String) throws {
        let url = try Self.copy(path)
        let before = try Data(contentsOf: url)
        let document = try DocumentStack.open(url)
        #expect(document.modelSource == "inferred")
        let raw = try Self.rawCounts(url)
        let graph = try Self.graphCounts(document.context)
        #expect(graph.objects == raw.objects)
        #expect(graph.attributes == raw.attributes)
        #expect(graph.links == raw.links)
        // Entity names got their case back from the metadata.
        #expect(document.model.entityNames.allSatisfy { $0.hasPrefix("XDDev") })
        #expect(try Data(contentsOf: url) == before)
    }

    @Test(.needsRealFixtures, arguments: stores)
    func convertingToBinaryAndBackKeepsEverything(path: String) throws {
        let url = try Self.copy(path)
        let directory = url.deletingLastPathComponent()
        let original = try DocumentStack.open(url)
        let expected = try Self.describe(original.context)
        try DocumentStack.convert(
            original, to: directory.appendingPathComponent("copy.binary"), type: BinaryStore.typeName, force: false)
        let binary = try DocumentStack.open(directory.appendingPathComponent("copy.binary"))
        #expect(binary.modelSource == "embedded")
        #expect(try Self.describe(binary.context) == expected)
        try DocumentStack.convert(
            binary, to: directory.appendingPathComponent("again.xml"), type: XMLStore.typeName, force: false)
        let xml = try DocumentStack.open(directory.appendingPathComponent("again.xml"))
        #expect(xml.modelSource == "embedded")
        #expect(try Self.describe(xml.context) == expected)
        #expect(
            try Self.rawCounts(directory.appendingPathComponent("again.xml")).objects == Self.rawCounts(url).objects)
    }

    /// Every object with every value, by key (keys survive conversion).
    static func describe(_ context: ManagedObjectContext) throws -> [String] {
        var lines: [String] = []
        for entity in context.model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = ["\(entity.name) \(object.objectID.primaryKey)"]
                for a in object.entity.attributes {
                    parts.append("\(a.name)=\(try object.attributeValue(forKey: a.name).debugText)")
                }
                for r in object.entity.relationships {
                    let keys =
                        (r.isToMany
                        ? try object.objects(forKey: r.name) : try object.object(forKey: r.name).map { [$0] } ?? [])
                        .map { String($0.objectID.primaryKey) }
                    parts.append("\(r.name)=\(keys.joined(separator: ","))")
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    @Test(.needsRealFixtures)
    func aGivenModelIsComparedWithTheStoredHashes() throws {
        let url = try Self.copy(
            "xmlstore/fruitsamples__MigrationV2__Models__MappingModel.xcmappingmodel__xcmapping.xml")
        let inferred = try XMLStoreFile(url: url).inferredModel()
        let modelURL = url.deletingLastPathComponent().appendingPathComponent("Inferred.xcdatamodel")
        try ModelLoader.writeXcodeModel(inferred, to: modelURL)
        let document = try DocumentStack.open(url, model: modelURL)
        #expect(document.modelSource == "given")
        #expect(document.warnings.contains { $0.contains("version hashes differ") })
        #expect(try document.context.count(for: FetchRequest(entityName: "XDDevEntityMapping")) == 4)
    }
}
