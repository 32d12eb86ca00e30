import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// Version hashes against every record Apple left in the fixtures: each compiled model's `VersionInfo.plist`, each
/// model source against its compiled counterpart, each store's metadata against its own `Z_MODELCACHE`.
@Suite(.enabled(if: Fixtures.realAvailable, "../shared/fixtures/real is absent: version-hash fixture tests skipped"))
struct VersionHashFixtureTests {
    static func base64(_ hashes: [String: Data]) -> [String: String] { hashes.mapValues { $0.base64EncodedString() } }

    /// Entities whose recorded hash docutil does not reproduce yet, and why.
    static let knownDifferences: [String: Set<String>] = [
        // A derived attribute (`pagesCount`, `count:(pages)`): how its derivation enters the hash is not known.
        "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite": [
            "Book", "GraphicNovel",
        ],
        "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite": [
            "Book", "GraphicNovel",
        ],
    ]

    @Test func everyCompiledModelMatchesItsVersionInfo() throws {
        let folder = Fixtures.real("mom")
        var checked = 0
        for info in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where info.hasSuffix("VersionInfo.plist") {
            let prefix = String(info.dropLast("VersionInfo.plist".count))
            let plist = try PropertyList.read(Data(contentsOf: folder.appendingPathComponent(info)))
            let versions = try #require(plist["NSManagedObjectModel_VersionHashes"]?.dictionary)
            for (version, hashes) in versions {
                let url = folder.appendingPathComponent("\(prefix)\(version).mom")
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                let recorded = (hashes.dictionary ?? [:]).compactMapValues(\.data)
                let model = try ModelLoader.load(from: url).model
                #expect(Self.base64(model.entityVersionHashes) == Self.base64(recorded), "\(prefix)\(version)")
                checked += recorded.count
            }
        }
        // XCServerCoreData (6 versions × 23), CoreDataPlus SampleModel (4 + 4 + 5: transient properties, compound
        // uniqueness constraints, preserve after deletion), MobilApp (1).
        #expect(checked == 152)
    }

    @Test(arguments: ["SampleModel", "SampleModel2", "SampleModel3"])
    func coreDataPlusSourcesMatchTheirCompiledModels(version: String) throws {
        let source = try ModelLoader.load(
            from: Fixtures.real(
                "xcdatamodel/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld__\(version).xcdatamodel__contents.xml"
            )
        ).model
        let compiled = try ModelLoader.load(
            from: Fixtures.real(
                "mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd__\(version).mom")
        ).model
        #expect(Self.base64(source.entityVersionHashes) == Self.base64(compiled.entityVersionHashes))
    }

    /// Each store's recorded hashes against those computed from its model cache: Bookmarks (ordered to-many
    /// relationships, property version hash modifiers), CoreDataPlus (an unbounded maximum archived as -1, abstract
    /// parents, fetched properties), CareKit, XCServerCoreData, SwiftData.
    @Test func everyStoresHashesMatchItsModelCache() throws {
        let folder = Fixtures.real("sqlite")
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where !name.hasSuffix("-wal") && !name.hasSuffix("-shm") {
            let url = try Fixtures.copySQLiteStore("sqlite/\(name)")
            let file = try SQLiteStoreFile(url: url)
            guard file.modelCache != nil else { continue }
            let recorded = file.recordedVersionHashes
            let computed = try file.storedModel().model.entityVersionHashes
            let differing = Set(recorded.keys.filter { computed[$0] != recorded[$0] })
            #expect(differing == Self.knownDifferences[name] ?? [], "\(name)")
            checked += recorded.count
        }
        #expect(checked == 149)
    }
}
