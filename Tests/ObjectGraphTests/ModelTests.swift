import Foundation
import ObjectGraph
import Testing

/// The lending library of the Core Data talks: books lent to friends, people in an inheritance hierarchy.
func libraryEntities() -> [EntityDescription] {
    [
        EntityDescription(
            name: "Person", isAbstract: true, attributes: [AttributeDescription(name: "name", type: .string)]),
        EntityDescription(
            name: "Friend", parent: "Person",
            relationships: [
                RelationshipDescription(name: "books", destination: "Book", inverse: "borrower", toMany: true)
            ]
        ),
        EntityDescription(
            name: "BestFriend", parent: "Friend", attributes: [AttributeDescription(name: "since", type: .date)]),
        EntityDescription(
            name: "Book",
            attributes: [
                AttributeDescription(
                    name: "title", type: .string, isOptional: false, defaultValue: .string("Untitled")),
                AttributeDescription(name: "pages", type: .integer16, defaultValue: .integer16(0)),
            ],
            relationships: [RelationshipDescription(name: "borrower", destination: "Friend", inverse: "books")],
            uniquenessConstraints: [["title"]]),
    ]
}

struct ModelTests {
    @Test func resolvesInheritedProperties() throws {
        let model = try ManagedObjectModel(entities: libraryEntities())
        #expect(model.allAttributes(of: "BestFriend").map(\.name) == ["name", "since"])
        #expect(model.allRelationships(of: "BestFriend").map(\.name) == ["books"])
        #expect(model.ancestors(of: "BestFriend") == ["Friend", "Person"])
        #expect(model.rootEntity(of: "BestFriend") == "Person")
        #expect(model.subentities(of: "Person") == ["Friend"])
        #expect(model.entityAndDescendants(of: "Person") == ["Person", "Friend", "BestFriend"])
        #expect(model.entity("BestFriend", isKindOf: "Person"))
        #expect(!model.entity("Book", isKindOf: "Person"))
        #expect(model.inverse(of: model.entity(named: "Book")!.relationships[0])?.name == "books")
        #expect(model.entityNames == ["BestFriend", "Book", "Friend", "Person"])
        #expect(model.warnings.isEmpty)
    }

    @Test func relationshipInitializerKeepsToOneMaxCountAtOne() {
        let toOne = RelationshipDescription(name: "r", destination: "D", maxCount: 5)
        #expect(toOne.maxCount == 1)
        #expect(!toOne.isToMany)
        let toMany = RelationshipDescription(name: "r", destination: "D", toMany: true)
        #expect(toMany.maxCount == 0)
        #expect(!RelationshipDescription(name: "r", destination: "D", ordered: true).isOrdered)
    }

    private func problems(
        _ entities: [EntityDescription], templates: [FetchRequestTemplate] = [],
        configurations: [Configuration] = []
    ) -> [ModelError.Problem] {
        do {
            _ = try ManagedObjectModel(
                entities: entities, fetchRequestTemplates: templates, configurations: configurations)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func rejectsUnknownDestination() {
        var entities = libraryEntities()
        entities[3].relationships[0].destinationEntityName = "Stranger"
        let found = problems(entities)
        #expect(found.contains { $0.kind == .unknownDestination && $0.entity == "Book" && $0.property == "borrower" })
        #expect(found.first { $0.kind == .unknownDestination }?.description.contains("'Stranger'") == true)
    }

    @Test func rejectsInverseThatPointsElsewhere() {
        var entities = libraryEntities()
        entities[3].relationships.append(
            RelationshipDescription(name: "previousBorrower", destination: "Friend", inverse: "books"))
        let found = problems(entities)
        #expect(found.contains { $0.kind == .inverseMismatch && $0.property == "previousBorrower" })
    }

    @Test func rejectsMissingInverse() {
        var entities = libraryEntities()
        entities[3].relationships[0].inverseName = "loans"
        #expect(problems(entities).contains { $0.kind == .unknownInverse && $0.property == "borrower" })
    }

    @Test func rejectsInheritanceCycles() {
        var entities = libraryEntities()
        entities[0].parentName = "BestFriend"
        let found = problems(entities)
        #expect(found.filter { $0.kind == .inheritanceCycle }.count == 3)
        #expect(found.first { $0.kind == .inheritanceCycle }!.message.contains("→"))
    }

    @Test func rejectsDuplicateNames() {
        var entities = libraryEntities()
        entities.append(EntityDescription(name: "Book"))
        entities[2].attributes.append(AttributeDescription(name: "name", type: .string))
        let found = problems(entities)
        #expect(found.contains { $0.kind == .duplicateEntity && $0.entity == "Book" })
        #expect(found.contains { $0.kind == .duplicateProperty && $0.entity == "BestFriend" && $0.property == "name" })
    }

    /// A name with a control character (which no modelling tool makes, and which a terminal would act on when the
    /// name is listed) is refused, and the message shows it escaped.
    @Test func rejectsNamesWithControlCharacters() {
        var entities = libraryEntities()
        entities.append(EntityDescription(name: "Evil\u{1B}[31m"))
        entities[2].attributes.append(AttributeDescription(name: "bell\u{7}", type: .string))
        entities[1].attributes.append(AttributeDescription(name: "csi\u{9B}", type: .string))
        let found = problems(entities).filter { $0.kind == .invalidName }
        #expect(found.count == 3, "\(found)")
        #expect(!found.contains { "\($0)".unicodeScalars.contains { $0.value == 0x1B || $0.value == 7 } }, "\(found)")
        #expect(problems(libraryEntities()).isEmpty)
    }

    @Test func rejectsUnknownParentsConstraintsTemplatesAndConfigurations() {
        var entities = libraryEntities()
        entities[2].parentName = "Acquaintance"
        entities[3].uniquenessConstraints = [["isbn"]]
        let found = problems(
            entities, templates: [FetchRequestTemplate(name: "t", entity: "Magazine")],
            configurations: [Configuration(name: "c", entities: ["Book", "Magazine"])])
        #expect(found.contains { $0.kind == .unknownParent })
        #expect(found.contains { $0.kind == .unknownPropertyInConstraint && $0.property == "isbn" })
        #expect(found.contains { $0.kind == .unknownEntityInFetchRequest })
        #expect(found.contains { $0.kind == .unknownEntityInConfiguration })
    }

    @Test func rejectsDefaultValueOfAnotherType() {
        var entities = libraryEntities()
        entities[3].attributes[1].defaultValue = .string("many")
        #expect(problems(entities).contains { $0.kind == .invalidDefaultValue && $0.property == "pages" })
    }

    @Test func reportsEveryProblemAtOnce() {
        var entities = libraryEntities()
        entities[3].relationships[0].destinationEntityName = "Stranger"
        entities[2].parentName = "Acquaintance"
        entities.append(EntityDescription(name: "Book"))
        #expect(problems(entities).count >= 3)
    }

    @Test func warnsAboutRelationshipsWithoutInverse() throws {
        var entities = libraryEntities()
        entities[3].relationships.append(RelationshipDescription(name: "related", destination: "Book", toMany: true))
        let model = try ManagedObjectModel(entities: entities)
        #expect(model.warnings.contains { $0.property == "related" })
    }

    @Test func mergesModels() throws {
        let library = try ManagedObjectModel(entities: libraryEntities(), versionIdentifiers: ["1"])
        let shop = try ManagedObjectModel(
            entities: [
                EntityDescription(name: "Sale", attributes: [AttributeDescription(name: "amount", type: .decimal)])
            ],
            fetchRequestTemplates: [FetchRequestTemplate(name: "all", entity: "Sale")],
            configurations: [Configuration(name: "Shop", entities: ["Sale"])], versionIdentifiers: ["2"])
        let merged = try ManagedObjectModel(merging: [library, shop])
        #expect(merged.entityNames == ["BestFriend", "Book", "Friend", "Person", "Sale"])
        #expect(merged.fetchRequestTemplate(named: "all")?.entityName == "Sale")
        #expect(merged.versionIdentifiers == ["1", "2"])
        #expect(merged.entityNames(inConfiguration: "Shop") == ["Sale"])
        #expect(merged.entityNames(inConfiguration: nil)?.count == 5)
        #expect(throws: ModelError.self) { try ManagedObjectModel(merging: [library, library]) }
    }

    @Test func modelsWithEqualContentsAreEqual() throws {
        let a = try ManagedObjectModel(entities: libraryEntities())
        let b = try ManagedObjectModel(entities: libraryEntities())
        #expect(a == b)
        var changed = libraryEntities()
        changed[3].attributes[0].isOptional = true
        #expect(try ManagedObjectModel(entities: changed) != a)
    }
}
