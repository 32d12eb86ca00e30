import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Xcode 3's `elements` models: the legacy sources in the fixtures, and the model copies inside mapping models.
/// Their version hashes are checked against what Apple recorded for the same models.
@Suite(.enabled(if: Fixtures.realAvailable, "../shared/fixtures/real is absent: legacy model tests skipped"))
struct LegacyModelTests {
    static func legacy(_ name: String) throws -> LoadedModel {
        try ModelLoader.load(from: Fixtures.real("xcdatamodel-legacy/\(name)"))
    }

    static func recorded(_ store: String) throws -> [String: Data] {
        try SQLiteStoreFile(url: try Fixtures.copySQLiteStore("sqlite/\(store)")).recordedVersionHashes
    }

    @Test func everyLegacySourceReads() throws {
        let folder = Fixtures.real("xcdatamodel-legacy")
        var entities = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix("__elements") {
            let loaded = try ModelLoader.load(from: folder.appendingPathComponent(name))
            #expect(!loaded.model.entities.isEmpty, "\(name)")
            #expect(loaded.warnings.first?.contains("Xcode 3's 'elements' archive") == true)
            entities += loaded.model.entities.count
        }
        #expect(entities > 0)
    }

    /// The stores written before model caches, with the legacy models of the same apps: the hashes Apple recorded
    /// are the ones computed from the models read here.
    @Test(arguments: [
        (
            "RestKit__RestKit__Examples__RKTwitterCoreData__Resources__RKTwitterCoreData.xcdatamodel__elements",
            "RestKit__RestKit__Examples__RKTwitterCoreData__RKSeedDatabase.sqlite"
        ),
        (
            "magicalpanda__MagicalRecord__Samples__iOS__Application__Models__Recipes.xcdatamodeld__Recipes.xcdatamodel__elements",
            "magicalpanda__MagicalRecord__Samples__iOS__Resources__RecipeData__Recipes.sqlite"
        ),
    ])
    func legacyModelsHashAsTheirStoresRecord(model: String, store: String) throws {
        let loaded = try Self.legacy(model)
        let recorded = try Self.recorded(store)
        #expect(!recorded.isEmpty)
        #expect(loaded.model.entityVersionHashes == recorded)
    }

    /// The copies of the source and destination models in mapping models: CareKit's 2.0→2.1 (against Apple's
    /// stores of both versions) and CoreDataPlus's V2→V3 (against its compiled models).
    @Test func mappingModelsCarryTheirModels() throws {
        let careKit = try MappingModelFile(
            url: Fixtures.real("xmlstore/carekit-apple__CareKit__2.0_2.1_Mapping.xcmappingmodel__xcmapping.xml"))
        #expect(
            careKit.sourceModel?.entityVersionHashes
                == (try Self.recorded("carekit-apple__CareKit__SampleStore2.0.sqlite")))
        #expect(
            careKit.destinationModel?.entityVersionHashes
                == (try Self.recorded("carekit-apple__CareKit__SampleStore2.1.sqlite")))
        let corePlus = try MappingModelFile(
            url: Fixtures.real(
                "xmlstore/alemar11__CoreDataPlus__Tests__Resources__SampleModel__MappingModels__V2toV3.xcmappingmodel__xcmapping.xml"
            ))
        let momd = "mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd__"
        #expect(
            corePlus.sourceModel?.entityVersionHashes
                == (try ModelLoader.load(from: Fixtures.real("\(momd)SampleModel2.mom")).model.entityVersionHashes))
        #expect(
            corePlus.destinationModel?.entityVersionHashes
                == (try ModelLoader.load(from: Fixtures.real("\(momd)SampleModel3.mom")).model.entityVersionHashes))
        #expect(!careKit.warnings.contains { $0.contains("was not read") })
    }
}

/// A compiled model with a property class docutil does not know (a later Core Data's) is read, with a warning,
/// instead of refused.
@Suite(.enabled(if: Fixtures.realAvailable, "../shared/fixtures/real is absent: skipped"))
struct FuturePropertyClassTests {
    /// The `.mom` with every `$classname` `from` renamed `to`.
    static func renamingClass(_ from: String, to: String) throws -> Data {
        let data = try Data(contentsOf: Fixtures.real("mom/Haimanu__MobilApp__Model.momd__Model.mom"))
        guard case .dictionary(var top) = try PropertyList.read(data), case .array(var objects)? = top["$objects"]
        else { throw ModelFileError(.malformed, "not a keyed archive") }
        for (i, object) in objects.enumerated() {
            if case .dictionary(var fields) = object, fields["$classname"] == .string(from) {
                fields["$classname"] = .string(to)
                objects[i] = .dictionary(fields)
            }
        }
        top["$objects"] = .array(objects)
        return BinaryPropertyListWriter.data(.dictionary(top))
    }

    @Test func anUnknownAttributeClassIsReadAsAnAttribute() throws {
        let (model, warnings) = try ModelLoader.readArchivedModel(
            try Self.renamingClass("NSAttributeDescription", to: "NSFutureAttributeDescription"))
        #expect(model.allAttributes(of: "User").count == 4)
        #expect(
            warnings.contains {
                $0.contains("NSFutureAttributeDescription") && $0.contains("read as a plain attribute")
            })
    }
}
