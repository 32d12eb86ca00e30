import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// Bad input must give a ModelFileError that names the place — never a crash, never a hang.
struct MalformedInputTests {
    /// A small deterministic generator, so failures reproduce.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Offsets spread over the whole input, ends included.
    static func cutPoints(_ count: Int, samples: Int = 60) -> [Int] {
        Array(Set((0..<samples).map { $0 * count / samples } + [0, 1, 8, count / 2, count - 1])).sorted()
    }

    /// Copies of `data` with one to four random bytes replaced.
    static func mutations(of data: Data, count: Int, seed: UInt64) -> [Data] {
        var generator = SeededGenerator(state: seed)
        return (0..<count).map { _ in
            var copy = data
            for _ in 0...Int.random(in: 0..<4, using: &generator) {
                copy[Int.random(in: 0..<copy.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            return copy
        }
    }

    // MARK: contents XML

    @Test func truncatedContentsNamesTheLine() throws {
        let data = try Data(contentsOf: Fixtures.project("Library.xcdatamodeld/Library.xcdatamodel/contents"))
        var failures = 0
        for cut in Self.cutPoints(data.count - 10) {
            let error = try #require(throws: ModelFileError.self, "cut at \(cut)") {
                try ModelLoader.readContents(data.prefix(cut))
            }
            #expect(error.code == .malformed, "cut at \(cut)")
            if cut > 0 { #expect(error.location != nil, "cut at \(cut): \(error)") }
            failures += 1
        }
        #expect(failures > 50)
    }

    @Test func mutatedContentsNeverCrashes() throws {
        let data = try Data(contentsOf: Fixtures.project("Library.xcdatamodeld/Library.xcdatamodel/contents"))
        var errors = 0
        for mutant in Self.mutations(of: data, count: 400, seed: 1) {
            do {
                _ = try ModelLoader.readContents(mutant)
            } catch {
                #expect(!error.description.isEmpty)
                errors += 1
            }
        }
        #expect(errors > 0)
    }

    @Test(arguments: [
        ("unknown-attribute-type.contents", "unknown attributeType 'Integer 12'"),
        ("dangling-destination.contents", "destination entity 'Cupboard' does not exist"),
        ("inheritance-cycle.contents", "inheritance cycle"),
        ("not-a-model.contents", "not a model"),
        ("wrong-root.contents", "expected <model>"),
        ("truncated.contents", "Premature end of data"),
        ("truncated.mom", "binary property list"),
    ])
    func malformedFixturesGiveClearErrors(file: String, expected: String) throws {
        let url = Fixtures.project("Malformed/\(file)")
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.load(from: url) }
        #expect(error.description.contains(expected), "\(error)")
        #expect(error.path == url.path)
    }

    /// An optimized compiled model (`.omo`, beside each `.mom` of a `.momd`; its layout is not documented) is named
    /// as such, with the file to open instead.
    @Test func anOptimizedModelIsNamed() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("Model.omo")
        try Data("momv2$srsraori5571710".utf8 + [0, 0, 0x24, 0x84]).write(to: url)
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.load(from: url) }
        #expect(error.code == .unrecognizedFormat)
        #expect(error.description.contains(".omo") && error.description.contains(".mom beside it"), "\(error)")
        #expect(error.path == url.path)
    }

    /// A `.momd`'s `VersionInfo.plist` opened as a model is named as such (it was reported as a keyed archive without
    /// its archiver).
    @Test func aVersionListIsNamed() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("VersionInfo.plist")
        let list: PropertyList = .dictionary([
            "NSManagedObjectModel_CurrentVersionName": .string("Model"),
            "NSManagedObjectModel_VersionHashes": .dictionary(["Model": .dictionary(["Item": .data(Data(count: 32))])]),
        ])
        try BinaryPropertyListWriter.data(list).write(to: url)
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.load(from: url) }
        #expect(error.code == .unrecognizedFormat)
        #expect(error.description.contains("VersionInfo.plist") && error.description.contains(".momd"), "\(error)")
    }

    @Test func wrongValueTypesAreRejected() throws {
        let cases = [
            #"<model><entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="70000"/></entity></model>"#,
            #"<model><entity name="A"><attribute name="n" attributeType="Boolean" defaultValueString="maybe"/></entity></model>"#,
            #"<model><entity name="A"><relationship name="r" destinationEntity="A" minCount="x"/></entity></model>"#,
            #"<model><entity name="A"><relationship name="r" destinationEntity="A" deletionRule="Explode"/></entity></model>"#,
            #"<model><entity><attribute name="n" attributeType="String"/></entity></model>"#,
            #"<model><entity name="A"><attribute attributeType="String"/></entity></model>"#,
            #"<model><fetchRequest name="f" entity="A" resultType="9"/><entity name="A"/></model>"#,
        ]
        for text in cases {
            let error = try #require(throws: ModelFileError.self, "\(text)") {
                try ModelLoader.readContents(Data(text.utf8))
            }
            #expect(error.location == "1", "\(error)")
        }
    }

    @Test func externalEntitiesAreNotLoaded() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE model [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <model><entity name="A"><attribute name="n" attributeType="String" defaultValueString="&secret;"/></entity></model>
            """
        let model = try? ModelLoader.readContents(Data(text.utf8))
        let value = model?.entity(named: "A")?.attributes.first?.defaultValue.stringValue ?? ""
        #expect(!value.contains("root:"))
    }

    // MARK: binary property lists and keyed archives

    @Test func handcraftedBinaryPropertyLists() throws {
        // "bplist00", the integer 5 at offset 8, a one-entry offset table at 10, the trailer.
        func plist(top: [UInt8], tableOffset: UInt8 = 10, count: UInt8 = 1) -> Data {
            var bytes = Array("bplist00".utf8) + top
            bytes.append(8)
            bytes += [0, 0, 0, 0, 0, 0, 1, 1]
            bytes += [0, 0, 0, 0, 0, 0, 0, count]
            bytes += [0, 0, 0, 0, 0, 0, 0, 0]
            bytes += [0, 0, 0, 0, 0, 0, 0, tableOffset]
            return Data(bytes)
        }
        #expect(try PropertyList.read(plist(top: [0x10, 0x05])) == .integer(5))
        #expect(try PropertyList.read(plist(top: [0x50, 0x00])) == .string(""))
        // The offset table points past the data.
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0x10, 0x05], tableOffset: 200)) }
        // More objects than the table holds.
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0x10, 0x05], count: 9)) }
        // A string whose length runs past the end.
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0x5E, 0x41])) }
        // Text never read with replacement characters: a byte that is not ASCII in an ASCII string, a lone
        // surrogate in a UTF-16 string.
        #expect(try PropertyList.read(plist(top: [0x51, 0x41])) == .string("A"))
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0x51, 0xE9])) }
        #expect(try PropertyList.read(plist(top: [0x61, 0x00, 0xE9], tableOffset: 11)) == .string("\u{E9}"))
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0x61, 0xD8, 0x00], tableOffset: 11)) }
        // An array that contains itself.
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0xA1, 0x00])) }
        // Unknown marker.
        #expect(throws: ModelFileError.self) { try PropertyList.read(plist(top: [0x70, 0x00])) }
        // A valid plist that is not a keyed archive.
        let error = try #require(throws: ModelFileError.self) {
            try ModelLoader.readCompiledModel(plist(top: [0x10, 0x05]))
        }
        #expect(error.description.contains("keyed archive"))
    }

    @Test(.needsRealFixtures)
    func truncatedCompiledModelsAreRejected() throws {
        let data = try Data(
            contentsOf: Fixtures.real(
                "mom/richardpiazza__XCServerCoreData__Tests__XCServerCoreData.momd__XCServerCoreData2.0.2.mom"))
        for cut in Self.cutPoints(data.count) {
            let error = try #require(throws: ModelFileError.self, "cut at \(cut)") {
                try ModelLoader.readCompiledModel(data.prefix(cut))
            }
            #expect(error.code == .malformed)
            if cut > 0 { #expect(error.location != nil, "cut at \(cut): \(error)") }
        }
    }

    @Test(.needsRealFixtures)
    func mutatedCompiledModelsNeverCrash() throws {
        let data = try Data(
            contentsOf: Fixtures.real(
                "mom/richardpiazza__XCServerCoreData__Tests__XCServerCoreData.momd__XCServerCoreData2.0.2.mom"))
        var errors = 0
        var loaded = 0
        for mutant in Self.mutations(of: data, count: 1_500, seed: 2) {
            do {
                _ = try ModelLoader.readCompiledModel(mutant)
                loaded += 1
            } catch {
                #expect(!error.description.isEmpty)
                errors += 1
            }
        }
        #expect(errors > 0 && errors + loaded == 1_500)
    }

    @Test(.needsRealFixtures)
    func corruptModelCachesAreRejected() throws {
        let store = try SQLiteStoreFile(
            url: try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.1.sqlite"))
        let blob = try #require(store.modelCache)
        for cut in Self.cutPoints(blob.count, samples: 30) {
            #expect(throws: ModelFileError.self, "cut at \(cut)") {
                try ModelLoader.loadModelCache(blob.prefix(cut), source: "cache")
            }
        }
        var errors = 0
        for mutant in Self.mutations(of: blob, count: 300, seed: 3) {
            do { _ = try ModelLoader.loadModelCache(mutant, source: "cache") } catch {
                #expect(error.path == "cache")
                errors += 1
            }
        }
        #expect(errors > 0)
    }

    @Test func notAStoreIsRejected() throws {
        let directory = try Fixtures.temporaryDirectory()
        let garbage = directory.appendingPathComponent("garbage.sqlite")
        try Data("SQLite format 3\0 but then nothing".utf8).write(to: garbage)
        #expect(throws: SQLiteStoreError.self) { try SQLiteStoreFile(url: garbage) }
    }
}

struct BinaryPropertyListWriterTests {
    @Test func writtenPlistsReadBack() throws {
        let value = PropertyList.dictionary([
            "NSStoreType": .string("SQLite"), "NSStoreUUID": .string("9DA05BB0-3F2A-4C1F-978F-3D70EC917014"),
            "NSStoreModelVersionHashes": .dictionary([
                "Book": .data(Data(repeating: 7, count: 32)), "Émile": .data(Data([1])),
            ]),
            "NSStoreModelVersionHashesVersion": .integer(3), "big": .integer(-5), "huge": .integer(1 << 40),
            "NSStoreModelVersionIdentifiers": .array([.string("")]), "pi": .real(3.25), "yes": .boolean(true),
            "when": .date(Date(timeIntervalSinceReferenceDate: 1000)),
            "long": .string(String(repeating: "x", count: 300)),
            "unicode": .string("naïve ☕️"),
        ])
        let data = BinaryPropertyListWriter.data(value)
        #expect(data.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyList.read(data) == value)
    }
}
