import Foundation
import ObjectGraph
import TestSupport
import Testing

/// The graph checks behind `docutil check` and the model comparison behind `docutil diff`.
struct CheckAndDifferenceTests {
    static func id(_ entity: String, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity, storeIdentifier: "S", primaryKey: key)
    }

    @Test func snapshotsWithMissingObjectsAndOneSidedLinksAreReported() throws {
        let model = try Company.model()
        var sales = ObjectSnapshot(objectID: Self.id("Department", 1), attributes: ["name": .string("Sales")])
        sales.toMany["employees"] = [Self.id("Employee", 2), Self.id("Employee", 9)]
        sales.toOne["manager"] = .some(nil)
        var ann = ObjectSnapshot(objectID: Self.id("Employee", 2), attributes: ["name": .string("Ann")])
        ann.toOne["department"] = Self.id("Department", 1)
        var bob = ObjectSnapshot(objectID: Self.id("Employee", 3), attributes: ["name": .string("Bob")])
        bob.toOne["department"] = Self.id("Department", 1)  // Sales does not list Bob
        let problems = SnapshotCheck.problems(in: [sales, ann, bob], model: model)
        #expect(problems.count == 2, "\(problems)")
        let dangling = try #require(problems.first { $0.kind == .danglingReference })
        #expect(dangling.object == Self.id("Department", 1).uriString)
        #expect(dangling.key == "employees" && dangling.detail.contains("Employee/p9"))
        let mismatch = try #require(problems.first { $0.kind == .inverseMismatch })
        #expect(mismatch.object == Self.id("Employee", 3).uriString)
        #expect(mismatch.key == "department")
    }

    @Test func uniquenessConstraintsFindRepeatsButNeverNil() throws {
        let model = try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
                    uniquenessConstraints: [["label"]])
            ],
            configurations: [])
        let tags = [
            ObjectSnapshot(objectID: Self.id("Tag", 1), attributes: ["label": .string("red")]),
            ObjectSnapshot(objectID: Self.id("Tag", 2), attributes: ["label": .string("red")]),
            ObjectSnapshot(objectID: Self.id("Tag", 3)), ObjectSnapshot(objectID: Self.id("Tag", 4)),
        ]
        let problems = SnapshotCheck.problems(in: tags, model: model)
        #expect(problems.map(\.object) == [Self.id("Tag", 2).uriString])
        #expect(problems.first?.kind == .uniqueness)
    }

    @Test func problemsSortByEntityThenKeyNumber() {
        let problems = [
            StoreProblem(Self.id("Car", 20), .validation, "x"), StoreProblem(Self.id("Car", 3), .validation, "x"),
            StoreProblem(object: "/file", kind: .metadata, detail: "m"),
        ].sorted()
        #expect(problems.map(\.object) == ["/file", Self.id("Car", 3).uriString, Self.id("Car", 20).uriString])
    }

    @Test func modelDifferencesListAddedRemovedRenamedAndChangedElements() throws {
        let old = try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Person",
                    attributes: [
                        AttributeDescription(name: "name", type: .string),
                        AttributeDescription(name: "age", type: .integer16),
                        AttributeDescription(name: "nickname", type: .string),
                    ]),
                EntityDescription(name: "Car"),
            ],
            configurations: [])
        let new = try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Person",
                    attributes: [
                        AttributeDescription(name: "fullName", type: .string, renamingIdentifier: "name"),
                        AttributeDescription(name: "age", type: .integer32, isOptional: false),
                        AttributeDescription(name: "email", type: .string),
                    ]),
                EntityDescription(name: "Vehicle", renamingIdentifier: "Car"),
            ],
            configurations: [])
        let changes = old.differences(to: new)
        let lines = Set(changes.map(\.description))
        #expect(lines.contains("> attribute Person.fullName renamed from Person.name"), "\(lines)")
        #expect(lines.contains("~ attribute Person.age type: Integer 16 → Integer 32"))
        #expect(lines.contains("~ attribute Person.age optional: YES → NO"))
        #expect(lines.contains("+ attribute Person.email"))
        #expect(lines.contains("- attribute Person.nickname"))
        #expect(lines.contains("> entity Vehicle renamed from Car"))
        #expect(old.differences(to: old).isEmpty)
        #expect(changes == old.differences(to: new), "a stable order")
    }
}
