import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// Compiled models and model caches written by Apple's tools, checked against their Xcode sources and against the
/// version hashes Apple recorded.
struct CompiledModelTests {
    static let xcserverSource =
        "xcdatamodel/richardpiazza__XCServerCoreData__Resources__XCServerCoreData.xcdatamodeld__"
    static let xcserverMom = "mom/richardpiazza__XCServerCoreData__Tests__XCServerCoreData.momd__"
    static let xcserverVersions = [
        "XCServerCoreData", "XCServerCoreData1.1.0", "XCServerCoreData1.2.0", "XCServerCoreData2.0.0",
        "XCServerCoreData2.0.1", "XCServerCoreData2.0.2",
    ]

    /// `.mom` files paired with their `contents` sources, as SOURCES.tsv pairs them.
    static let momPairs: [(mom: String, source: String)] =
        xcserverVersions.map { ("\(xcserverMom)\($0).mom", "\(xcserverSource)\($0).xcdatamodel__contents.xml") } + [
            (
                "mom/Haimanu__MobilApp__DVIA_v2.momd__DVIA_v2.mom",
                "xcdatamodel/prateek147__DVIA-v2__DVIA-v2__DVIA-v2__DVIA_v2.xcdatamodeld__DVIA_v2.xcdatamodel__contents.xml"
            )
        ]

    /// SQLite stores with a `Z_MODELCACHE`, paired with the source of the model they were written with.
    static let storePairs: [(store: String, source: String)] = [
        (
            "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_1.2.0.sqlite",
            "\(xcserverSource)XCServerCoreData1.2.0.xcdatamodel__contents.xml"
        ),
        (
            "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_1.2.0_empty.sqlite",
            "\(xcserverSource)XCServerCoreData1.2.0.xcdatamodel__contents.xml"
        ),
        (
            "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_2.0.0_empty.sqlite",
            "\(xcserverSource)XCServerCoreData2.0.0.xcdatamodel__contents.xml"
        ),
        (
            "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_2.0.1.sqlite",
            "\(xcserverSource)XCServerCoreData2.0.1.xcdatamodel__contents.xml"
        ),
        (
            "sqlite/carekit-apple__CareKit__SampleStore2.0.sqlite",
            "xcdatamodel/carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__CareKitStore2.0.xcdatamodel__contents.xml"
        ),
        (
            "sqlite/carekit-apple__CareKit__SampleStore2.1.sqlite",
            "xcdatamodel/carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__CareKitStore2.1.xcdatamodel__contents.xml"
        ),
        (
            "sqlite/bignerdranch__CoreDataStack__Sample_Model__Deprecated__TestModel.sqlite",
            "xcdatamodel/bignerdranch__CoreDataStack__Sample_Model__Deprecated__Sample.xcdatamodeld__TestModel.xcdatamodel__contents.xml"
        ),
    ]

    @Test(.needsRealFixtures, arguments: zip(momPairs.map(\.mom), momPairs.map(\.source)))
    func compiledModelEqualsItsSource(mom: String, source: String) throws {
        let compiled = try ModelLoader.load(from: Fixtures.real(mom))
        #expect(compiled.format == .compiledModel)
        let sourceModel = try ModelLoader.load(from: Fixtures.real(source)).model
        #expect(structure(of: compiled.model) == structure(of: sourceModel))
        #expect(compiled.model.versionIdentifiers == sourceModel.versionIdentifiers)
    }

    @Test(.needsRealFixtures, arguments: zip(storePairs.map(\.store), storePairs.map(\.source)))
    func modelCacheEqualsItsSource(store: String, source: String) throws {
        let copy = try Fixtures.copySQLiteStore(store)
        let file = try SQLiteStoreFile(url: copy)
        let cached = try file.storedModel()
        #expect(cached.format == .modelCache)
        let sourceModel = try ModelLoader.load(from: Fixtures.real(source)).model
        // CareKit changed some default values in its 2.0 source after SampleStore2.0 was written (defaults are not
        // part of the version hash, so the version stayed): there the cache keeps the old defaults.
        let compareDefaults = !store.contains("SampleStore2.0")
        #expect(
            structure(of: cached.model, defaults: compareDefaults)
                == structure(of: sourceModel, defaults: compareDefaults))
    }

    @Test(.needsRealFixtures, arguments: zip(storePairs.map(\.store), storePairs.map(\.source)))
    func versionHashesEqualStoreMetadata(store: String, source: String) throws {
        let file = try SQLiteStoreFile(url: try Fixtures.copySQLiteStore(store))
        let recorded = base64(file.recordedVersionHashes)
        #expect(!recorded.isEmpty)
        let fromCache = try file.storedModel().model
        let fromSource = try ModelLoader.load(from: Fixtures.real(source)).model
        #expect(base64(fromCache.entityVersionHashes) == recorded)
        #expect(base64(fromSource.entityVersionHashes) == recorded)
        if let digest = file.metadata["NSStoreModelVersionHashesDigest"]?.string {
            #expect(fromSource.versionHashesDigest == digest)
            #expect(fromCache.versionHashesDigest == digest)
        }
        if let checksum = file.metadata["NSStoreModelVersionChecksumKey"]?.string {
            #expect(fromSource.versionChecksum == checksum)
        }
    }

    /// Builds the XCServerCoreData `.momd` bundle from the flattened fixture files.
    private func xcserverMomd() throws -> URL {
        let momd = try Fixtures.temporaryDirectory().appendingPathComponent("XCServerCoreData.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        for version in Self.xcserverVersions {
            try FileManager.default.copyItem(
                at: Fixtures.real("\(Self.xcserverMom)\(version).mom"),
                to: momd.appendingPathComponent("\(version).mom"))
        }
        try FileManager.default.copyItem(
            at: Fixtures.real("\(Self.xcserverMom)VersionInfo.plist"),
            to: momd.appendingPathComponent("VersionInfo.plist"))
        return momd
    }

    @Test(.needsRealFixtures)
    func versionHashesEqualMomcVersionInfo() throws {
        let info = try PropertyList.read(Data(contentsOf: Fixtures.real("\(Self.xcserverMom)VersionInfo.plist")))
        let versions = try #require(info["NSManagedObjectModel_VersionHashes"]?.dictionary)
        var checked = 0
        for version in Self.xcserverVersions {
            let recorded = base64(try #require(versions[version]?.dictionary).compactMapValues(\.data))
            let compiled = try ModelLoader.load(from: Fixtures.real("\(Self.xcserverMom)\(version).mom")).model
            let source = try ModelLoader.load(
                from: Fixtures.real("\(Self.xcserverSource)\(version).xcdatamodel__contents.xml")
            ).model
            #expect(base64(compiled.entityVersionHashes) == recorded, "\(version).mom")
            #expect(base64(source.entityVersionHashes) == recorded, "\(version) source")
            checked += recorded.count
        }
        #expect(checked == 138)
    }

    @Test(.needsRealFixtures)
    func loadsTheCurrentVersionOfAMomdBundle() throws {
        let loaded = try ModelLoader.load(from: try xcserverMomd())
        #expect(loaded.format == .compiledBundle)
        #expect(loaded.versionName == "XCServerCoreData2.0.2")
        let recorded = try #require(loaded.recordedVersionHashes)
        #expect(base64(loaded.model.entityVersionHashes) == base64(recorded))
        #expect(loaded.model.entities.count == 23)
    }

    @Test(.needsRealFixtures)
    func singleEntityModelHashMatches() throws {
        let info = try PropertyList.read(
            Data(contentsOf: Fixtures.real("mom/Haimanu__MobilApp__Model.momd__VersionInfo.plist")))
        let recorded = try #require(info["NSManagedObjectModel_VersionHashes"]?["Model"]?.dictionary).compactMapValues(
            \.data)
        let model = try ModelLoader.load(from: Fixtures.real("mom/Haimanu__MobilApp__Model.momd__Model.mom")).model
        #expect(model.entityNames == ["User"])
        #expect(model.allAttributes(of: "User").count == 4)
        #expect(base64(model.entityVersionHashes) == base64(recorded))
    }

    @Test(.needsRealFixtures)
    func storesWithoutModelCacheSayWhatToDo() throws {
        let copy = try Fixtures.copySQLiteStore("sqlite/gilpa__iphone_sqlite_test__CoreDataBooks.sqlite")
        let file = try SQLiteStoreFile(url: copy)
        #expect(file.modelCache == nil)
        #expect(file.entityCounts["Book"] == 12)
        let error = try #require(throws: ModelFileError.self) { try file.storedModel() }
        #expect(error.code == .unsupported)
        #expect(error.description.contains("--model"))
    }

    @Test(.needsRealFixtures)
    func readingAStoreDoesNotTouchIt() throws {
        let copy = try Fixtures.copySQLiteStore(
            "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_2.0.1.sqlite")
        let directory = copy.deletingLastPathComponent()
        let before = try Data(contentsOf: copy)
        let listing = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let file = try SQLiteStoreFile(url: copy)
        #expect(file.entityCounts["Asset"] ?? 0 > 0)
        #expect(try Data(contentsOf: copy) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == listing)
    }
}
