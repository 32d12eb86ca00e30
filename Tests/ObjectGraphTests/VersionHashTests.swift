import Foundation
import ObjectGraph
import Testing

/// Properties of the version-hash recipe that hold whatever the fixtures say (those are checked in ModelFilesTests).
struct VersionHashTests {
    private func hash(_ change: (inout [EntityDescription]) -> Void, entity: String = "Book") throws -> Data {
        var entities = libraryEntities()
        change(&entities)
        return try #require(try ManagedObjectModel(entities: entities).versionHash(ofEntity: entity))
    }

    @Test func hashesAre32Bytes() throws {
        let model = try ManagedObjectModel(entities: libraryEntities())
        #expect(model.entityVersionHashes.count == 4)
        #expect(model.entityVersionHashes.values.allSatisfy { $0.count == 32 })
        #expect(Data(base64Encoded: model.versionHashesDigest)?.count == 64)
        #expect(Data(base64Encoded: model.versionChecksum)?.count == 32)
    }

    @Test func storageRelevantChangesChangeTheHash() throws {
        let base = try hash { _ in }
        #expect(try hash { $0[3].attributes[1].name = "pageCount" } != base)
        #expect(try hash { $0[3].attributes[0].isOptional = true } != base)
        #expect(
            try hash {
                $0[3].attributes[1].type = .integer32; $0[3].attributes[1].defaultValue = .null
            } != base)
        #expect(try hash { $0[3].relationships[0].minCount = 1 } != base)
        #expect(try hash { $0[3].uniquenessConstraints = [] } != base)
        #expect(try hash { $0[3].attributes.append(AttributeDescription(name: "isbn", type: .string)) } != base)
    }

    @Test func cosmeticChangesKeepTheHash() throws {
        let base = try hash { _ in }
        #expect(try hash { $0[3].relationships[0].deleteRule = .cascade } == base)
        #expect(try hash { $0[3].attributes[0].defaultValue = .string("Other") } == base)
        #expect(try hash { $0[3].userInfo = ["k": "v"] } == base)
        #expect(try hash { $0[3].className = "LibraryBook" } == base)
        #expect(try hash { $0[3].attributes[0].renamingIdentifier = "heading" } == base)
        #expect(try hash { $0[3].attributes.reverse() } == base)
    }

    @Test func subentitiesIncludeTheirParentsHash() throws {
        let base = try hash({ _ in }, entity: "BestFriend")
        #expect(try hash({ $0[0].attributes[0].isOptional = false }, entity: "BestFriend") != base)
        // A parent's hash does not depend on its children.
        #expect(try hash({ _ in }, entity: "Person") == hash({ $0[2].attributes = [] }, entity: "Person"))
    }
}
