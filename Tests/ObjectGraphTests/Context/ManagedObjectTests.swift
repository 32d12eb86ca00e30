import Foundation
import ObjectGraph
import Testing

enum Shapes {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Node", isAbstract: true,
                attributes: [
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "weight", type: .double, defaultValue: .double(1)),
                    AttributeDescription(name: "scratch", type: .string, isTransient: true),
                    AttributeDescription(name: "created", type: .date),
                    AttributeDescription(name: "id", type: .uuid),
                    AttributeDescription(name: "blob", type: .binary),
                    AttributeDescription(name: "price", type: .decimal),
                    AttributeDescription(name: "link", type: .uri),
                    AttributeDescription(name: "count", type: .integer16),
                    AttributeDescription(name: "flag", type: .boolean),
                    AttributeDescription(name: "ratio", type: .float),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "children", destination: "Node", inverse: "parent", toMany: true, ordered: true),
                    RelationshipDescription(name: "parent", destination: "Node", inverse: "children"),
                    RelationshipDescription(name: "partner", destination: "Node", inverse: "partner"),
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "nodes", toMany: true),
                ]),
            EntityDescription(name: "Leaf", parent: "Node"),
            EntityDescription(
                name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [
                    RelationshipDescription(name: "nodes", destination: "Node", inverse: "tags", toMany: true)
                ]),
        ])
    }

    static func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: "InMemory")
        return ManagedObjectContext(coordinator: coordinator)
    }

    static func leaf(_ name: String, _ context: ManagedObjectContext) throws -> ManagedObject {
        let leaf = try context.insertNewObject(forEntityName: "Leaf")
        try leaf.setValue(.string(name), forKey: "name")
        return leaf
    }
}

/// A leaf whose validation, when it is named "toucher", renames the first leaf it finds that is not itself (bad
/// practice, but the change must not be lost by the save that validated it).
final class Touching: ManagedObject {
    override func validateForUpdate() throws(ObjectValidationError) {
        guard (try? attributeValue(forKey: "name")) == .string("toucher"), let context = managedObjectContext else {
            return
        }
        for object in context.registeredObjects where object !== self {
            try? object.setValue(.string("touched"), forKey: "name")
            return
        }
    }
}

/// Names every other registered leaf in its `willSave` once it is named "toucher".
final class TouchingBeforeSave: ManagedObject {
    override func willSave() {
        guard (try? attributeValue(forKey: "name")) == .string("toucher"), let context = managedObjectContext else {
            return
        }
        for object in context.registeredObjects where object !== self {
            try? object.setValue(.string("touched before saving"), forKey: "name")
        }
    }
}

final class Hooked: ManagedObject {
    nonisolated(unsafe) static var log: [String] = []
    override func awakeFromInsert() {
        try? setPrimitiveValue(.string("fresh"), forKey: "name")
        Self.log.append("awakeFromInsert")
    }
    override func awakeFromFetch() { Self.log.append("awakeFromFetch") }
    override func willSave() { Self.log.append("willSave") }
    override func didSave() { Self.log.append("didSave") }
    override func prepareForDeletion() { Self.log.append("prepareForDeletion") }
}

struct ManagedObjectTests {
    @Test func everyAttributeTypeRoundTripsThroughSlots() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        let values: [String: AttributeValue] = [
            "weight": .double(2.5), "created": .date(Date(timeIntervalSinceReferenceDate: 1234.5)),
            "id": .uuid(UUID()), "blob": .binary(Data([1, 2, 3])), "price": .decimal(Decimal(string: "9.99")!),
            "link": .uri(URL(string: "https://example.com")!), "count": .integer16(-7), "flag": .boolean(true),
            "ratio": .float(0.25), "scratch": .string("temp"),
        ]
        for (key, value) in values { try leaf.setAttributeValue(value, forKey: key) }
        try context.save()
        for (key, value) in values { #expect(try leaf.attributeValue(forKey: key) == value, "\(key)") }
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let stored = try #require(other.fetch(FetchRequest(entityName: "Leaf")).first)
        for (key, value) in values where key != "scratch" {
            #expect(try stored.attributeValue(forKey: key) == value, "\(key)")
        }
        #expect(try stored.attributeValue(forKey: "scratch") == .null)  // transient: never stored
        try leaf.setValue(.null, forKey: "blob")
        #expect(try leaf.attributeValue(forKey: "blob") == .null)
    }

    @Test func keyValueAccessReadsAndWritesEveryKindOfPropertyWithOneValueType() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        let other = try Shapes.leaf("b", context)
        let tag = try context.insertNewObject(forEntityName: "Tag")
        // Attributes: converted to the attribute's own type.
        try leaf.setValue(.integer(12), forKey: "count")
        #expect(try leaf.attributeValue(forKey: "count") == .integer16(12))
        #expect(try leaf.value(forKey: "count") == .integer(12))
        // A to-one: an object, then nil; the inverse follows.
        try leaf.setValue(.object(other), forKey: "parent")
        #expect(try other.objects(forKey: "children").map(\.objectID) == [leaf.objectID])
        if case .object(let parent as ManagedObject) = try leaf.value(forKey: "parent") {
            #expect(parent === other)
        } else {
            Issue.record("parent is not an object")
        }
        try leaf.setValue(.null, forKey: "parent")
        #expect(try other.objects(forKey: "children").isEmpty)
        // A to-many: a collection of objects, read back as one.
        try leaf.setValue(.collection([.object(tag)], ordered: false), forKey: "tags")
        #expect(try tag.objects(forKey: "nodes").map(\.objectID) == [leaf.objectID])
        guard case .collection(let tags, ordered: false) = try leaf.value(forKey: "tags") else {
            Issue.record("tags is not a collection")
            return
        }
        #expect(tags.count == 1)
        // What value(forKey:) returns, setValue(_:forKey:) takes back unchanged.
        try other.setValue(try leaf.value(forKey: "tags"), forKey: "tags")
        #expect(try tag.objects(forKey: "nodes").count == 2)
        // Wrong kinds are errors, never silently converted.
        #expect(throws: ObjectGraphError.self) {
            try leaf.setValue(.collection([.string("x")], ordered: false), forKey: "tags")
        }
        #expect(throws: ObjectGraphError.self) { try leaf.setValue(.object(tag), forKey: "name") }
        #expect(throws: ObjectGraphError.self) { try leaf.setValue(.null, forKey: "tags") }
        // The entity as objects see it: inherited properties included; the declaration is the model's own.
        #expect(leaf.entity.name == "Leaf")
        #expect(leaf.entity.superentityName == "Node")
        #expect(leaf.entity.attributesByName["name"]?.type == .string)
        #expect(leaf.entity.relationship(named: "tags")?.isToMany == true)
        #expect(leaf.entity.declaration.attributes.isEmpty)
        #expect(!leaf.entity.isAbstract)
    }

    @Test func valuesConvertOrAreRejected() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        try leaf.setAttributeValue(.integer64(12), forKey: "count")
        #expect(try leaf.attributeValue(forKey: "count") == .integer16(12))
        #expect(throws: ObjectGraphError.self) { try leaf.setAttributeValue(.integer64(100_000), forKey: "count") }
        #expect(throws: ObjectGraphError.self) { try leaf.setValue(.string("x"), forKey: "nope") }
        #expect(throws: ObjectGraphError.self) { try leaf.setValue(.string("x"), forKey: "parent") }
        #expect(throws: ObjectGraphError.self) { try context.insertNewObject(forEntityName: "Node") }
        #expect(throws: ObjectGraphError.self) { try context.insertNewObject(forEntityName: "Nothing") }
        #expect(throws: ObjectGraphError.self) { try leaf.setValue(.object(leaf), forKey: "tags") }
        #expect(throws: ObjectGraphError.self) { try leaf.value(forKey: "nope") }
        #expect(throws: ObjectGraphError.self) { try leaf.attributeValue(forKey: "nope") }
    }

    @Test func inversesStayInStep() throws {
        let context = try Shapes.context()
        let root = try Shapes.leaf("root", context)
        let a = try Shapes.leaf("a", context)
        let b = try Shapes.leaf("b", context)
        let children = try root.mutableObjects(forKey: "children")
        try children.add(a)
        try children.insert(b, at: 0)
        #expect(try children.objects().map { try $0.value(forKey: "name") } == [.string("b"), .string("a")])
        #expect(try a.object(forKey: "parent") === root)
        // Moving a child to another parent removes it from the first.
        let other = try Shapes.leaf("other", context)
        try a.setObject(other, forKey: "parent")
        #expect(try children.objects().map { try $0.value(forKey: "name") } == [.string("b")])
        #expect(try other.objects(forKey: "children").first === a)
        // One-to-one: taking a partner leaves the previous couple's other half single.
        try a.setObject(b, forKey: "partner")
        #expect(try b.object(forKey: "partner") === a)
        try other.setObject(b, forKey: "partner")
        #expect(try a.object(forKey: "partner") == nil)
        #expect(try b.object(forKey: "partner") === other)
        // Many-to-many.
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try tag.mutableObjects(forKey: "nodes").add(a)
        try b.setObjects([tag], forKey: "tags")
        #expect(try tag.objects(forKey: "nodes").count == 2)
        try tag.mutableObjects(forKey: "nodes").remove(a)
        #expect(try a.objects(forKey: "tags").isEmpty)
        try tag.mutableObjects(forKey: "nodes").removeAll()
        #expect(try b.objects(forKey: "tags").isEmpty)
        // The whole event undoes as one step: every insert and relationship change, inverses included.
        context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(!context.hasChanges)
        #expect(try root.objects(forKey: "children").isEmpty)
        #expect(try a.object(forKey: "parent") == nil)
        context.redo()
        #expect(try a.object(forKey: "partner") == nil && b.object(forKey: "partner") === other)
        #expect(try root.objects(forKey: "children").map { try $0.value(forKey: "name") } == [.string("b")])
    }

    @Test func keyPathsAndCollectionOperators() throws {
        let context = try Shapes.context()
        let root = try Shapes.leaf("root", context)
        for (name, weight) in [("x", 2.0), ("y", 3.0), ("z", 7.0)] {
            let child = try Shapes.leaf(name, context)
            try child.setValue(.double(weight), forKey: "weight")
            try child.setObject(root, forKey: "parent")
        }
        #expect(try root.value(forKeyPath: "children.@count") == .integer(3))
        #expect(try root.value(forKeyPath: "children.@sum.weight") == .double(12))
        #expect(try root.value(forKeyPath: "children.@max.weight") == .double(7))
        #expect(try root.value(forKeyPath: "children.@avg.weight") == .double(4))
        #expect(
            try root.value(forKeyPath: "children.name")
                == .collection([.string("x"), .string("y"), .string("z")], ordered: true))
        #expect(try root.objects(forKey: "children")[0].value(forKeyPath: "parent.name") == .string("root"))
        let request = FetchRequest(
            entityName: "Leaf", predicate: try ObjectPredicate(format: "children.@sum.weight > 10"))
        #expect(try context.fetch(request).map { try $0.value(forKey: "name") } == [.string("root")])
    }

    /// An object is changed while any property differs from what was saved: setting one back leaves it changed when
    /// another still differs, and unchanged when none does.
    @Test func anObjectIsChangedWhileAnyPropertyDiffers() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        try leaf.setValue(.double(1), forKey: "weight")
        try context.save()
        #expect(!leaf.hasChanges)
        try leaf.setValue(.string("b"), forKey: "name")
        #expect(leaf.hasChanges && context.updatedObjects.contains { $0 === leaf })
        try leaf.setValue(.double(2), forKey: "weight")
        try leaf.setValue(.string("a"), forKey: "name")
        #expect(leaf.hasChanges)
        #expect(try leaf.changedValues().keys.sorted() == ["weight"])
        try leaf.setValue(.double(1), forKey: "weight")
        #expect(!leaf.hasChanges && context.updatedObjects.isEmpty)
        try leaf.setValue(.double(3), forKey: "weight")
        try leaf.setValue(.double(4), forKey: "weight")
        #expect(leaf.hasChanges && context.updatedObjects.count == 1)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let stored = try other.fetch(FetchRequest(entityName: "Leaf"))
        #expect(try stored.map { try $0.value(forKey: "weight") } == [.double(4)])
    }

    @Test func primitiveAccessorsBypassTracking() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        try context.save()
        var seen = 0
        let token = leaf.observe("name") { _ in seen += 1 }
        try leaf.setPrimitiveValue(.string("quiet"), forKey: "name")
        #expect(try leaf.primitiveValue(forKey: "name") == .string("quiet"))
        #expect(!context.hasChanges)
        #expect(seen == 0)
        try leaf.setValue(.string("loud"), forKey: "name")
        #expect(seen == 1)
        #expect(context.hasChanges)
        token.cancel()
        try leaf.setValue(.string("again"), forKey: "name")
        #expect(seen == 1)
    }

    @Test func observersSeeEveryChangeIncludingUndoAndInverses() throws {
        let context = try Shapes.context()
        let root = try Shapes.leaf("root", context)
        let child = try Shapes.leaf("child", context)
        context.processPendingChanges()
        var changes: [PropertyChange] = []
        let token = root.observe { changes.append($0) }
        try child.setObject(root, forKey: "parent")
        #expect(changes.map(\.key) == ["children"])
        #expect(changes.first?.newValue == .object(child))
        context.processPendingChanges()
        context.undo()
        #expect(changes.map(\.key) == ["children", "children"])
        #expect(changes.last?.oldValue == .object(child))
        token.cancel()
    }

    @Test func lifecycleHooksRunInOrder() throws {
        Hooked.log = []
        let context = try Shapes.context()
        context.persistentStoreCoordinator.registerClass(Hooked.self, forEntityName: "Leaf")
        let leaf = try context.insertNewObject(forEntityName: "Leaf")
        #expect(leaf is Hooked)
        #expect(try leaf.value(forKey: "name") == .string("fresh"))
        try context.save()
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let fetched = try #require(other.fetch(FetchRequest(entityName: "Leaf")).first)
        other.delete(fetched)
        try other.save()
        #expect(
            Hooked.log == [
                "awakeFromInsert", "willSave", "didSave", "awakeFromFetch", "prepareForDeletion", "willSave", "didSave",
            ])
    }

    /// A save reads its change sets once for willSave, derived values, checks and writes, and again when one of
    /// those changed them: an object another's validation (`validateForUpdate`) or `willSave` changed, one not
    /// changed before, is saved with the rest.
    @Test(arguments: ["validateForUpdate", "willSave"])
    func aChangeMadeDuringTheSaveIsSaved(by hook: String) throws {
        let context = try Shapes.context()
        let (kind, touched): (ManagedObject.Type, String) =
            hook == "willSave" ? (TouchingBeforeSave.self, "touched before saving") : (Touching.self, "touched")
        context.persistentStoreCoordinator.registerClass(kind, forEntityName: "Leaf")
        let toucher = try Shapes.leaf("a", context)
        let other = try Shapes.leaf("b", context)
        try context.save()
        try toucher.setValue(.string("toucher"), forKey: "name")
        try context.save()
        #expect(try other.value(forKey: "name") == .string(touched))
        #expect(!context.hasChanges)
        let reader = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try reader.existingObject(with: other.objectID).value(forKey: "name") == .string(touched))
    }

    @Test func changedAndCommittedValues() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        #expect(try leaf.changedValues()["name"] == .string("a"))
        try context.save()
        #expect(try leaf.changedValues().isEmpty)
        try leaf.setValue(.string("b"), forKey: "name")
        let parent = try Shapes.leaf("p", context)
        try leaf.setObject(parent, forKey: "parent")
        #expect(try Set(leaf.changedValues().keys) == ["name", "parent"])
        #expect(try leaf.committedValues(forKeys: ["name", "parent"]) == ["name": .string("a"), "parent": .null])
        #expect(leaf.hasChanges && !leaf.isInserted)
    }

    /// A relationship's original is recorded before its own first change, whenever that comes: after an attribute's
    /// change it is still seen as changed (and saved), set back it is unchanged again, and left alone it is reported
    /// as committed with its current destination.
    @Test func aRelationshipChangedAfterAnAttributeIsTracked() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        let first = try Shapes.leaf("first", context)
        let second = try Shapes.leaf("second", context)
        try leaf.setObject(first, forKey: "parent")
        try context.save()

        try leaf.setValue(.string("b"), forKey: "name")
        #expect(try leaf.committedValues(forKeys: ["parent"]) == ["parent": .object(first)])
        #expect(try Set(leaf.changedValues().keys) == ["name"])
        try leaf.setObject(second, forKey: "parent")
        #expect(try Set(leaf.changedValues().keys) == ["name", "parent"])
        #expect(try leaf.committedValues(forKeys: ["parent"]) == ["parent": .object(first)])
        // Both set back: no change left.
        try leaf.setObject(first, forKey: "parent")
        try leaf.setValue(.string("a"), forKey: "name")
        #expect(!leaf.hasChanges)
        #expect(!context.updatedObjects.contains { $0 === leaf })

        try leaf.setValue(.string("c"), forKey: "name")
        try leaf.setObject(second, forKey: "parent")
        try context.save()
        let reader = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let again = try reader.existingObject(with: leaf.objectID)
        #expect(try again.value(forKey: "name") == .string("c"))
        #expect(try again.object(forKey: "parent")?.objectID == second.objectID)
    }

    /// Attributes are recorded one at a time, each before its own first change: a primitive (untracked) set after
    /// a tracked change of another attribute is still a change (reported, committed value kept, saved), an attribute
    /// changed twice keeps its first value as the committed one, and one left alone is committed as it is.
    @Test func eachAttributeIsRecordedBeforeItsOwnFirstChange() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        try leaf.setValue(.double(2), forKey: "weight")
        try context.save()

        try leaf.setValue(.string("b"), forKey: "name")
        try leaf.setValue(.string("c"), forKey: "name")
        try leaf.setPrimitiveValue(.double(5), forKey: "weight")
        #expect(try Set(leaf.changedValues().keys) == ["name", "weight"])
        #expect(
            try leaf.committedValues(forKeys: ["name", "weight", "count"])
                == ["name": .string("a"), "weight": .double(2), "count": .null])
        // The tracked attribute set back: the untracked change still stands.
        try leaf.setValue(.string("a"), forKey: "name")
        #expect(leaf.hasChanges)
        #expect(try Set(leaf.changedValues().keys) == ["weight"])
        try context.save()
        let reader = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try reader.existingObject(with: leaf.objectID).value(forKey: "weight") == .double(5))
        // Set back after the save: nothing changed.
        try leaf.setValue(.double(6), forKey: "weight")
        try leaf.setValue(.double(5), forKey: "weight")
        #expect(!leaf.hasChanges)

        // Three attributes changed against their slot order (count, then name, then weight between them).
        try leaf.setValue(.integer(3), forKey: "count")
        try leaf.setValue(.string("n"), forKey: "name")
        try leaf.setValue(.double(7), forKey: "weight")
        try leaf.setValue(.string("m"), forKey: "name")
        #expect(try Set(leaf.changedValues().keys) == ["count", "name", "weight"])
        #expect(
            try leaf.committedValues(forKeys: ["count", "name", "weight"])
                == ["count": .null, "name": .string("a"), "weight": .double(5)])
        try leaf.setValue(.string("a"), forKey: "name")
        try leaf.setValue(.null, forKey: "count")
        #expect(try Set(leaf.changedValues().keys) == ["weight"])
        try leaf.setValue(.double(5), forKey: "weight")
        #expect(!leaf.hasChanges)
    }

    @Test func obtainingPermanentIDsEarly() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        #expect(leaf.objectID.isTemporary)
        try context.obtainPermanentIDs(for: [leaf])
        #expect(!leaf.objectID.isTemporary)
        #expect(context.registeredObject(for: leaf.objectID) === leaf)
        try context.save()
        let reader = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try reader.existingObject(with: leaf.objectID).value(forKey: "name") == .string("a"))
    }

    @Test func permanentIDsFollowTheObjectsOrderInRunsOfEntities() throws {
        let context = try Shapes.context()
        // Runs of two roots' entities, the Leaf runs split by Tags: each root's keys go to its objects in order.
        var objects: [ManagedObject] = []
        for entity in ["Leaf", "Leaf", "Tag", "Leaf", "Tag", "Tag", "Leaf"] {
            objects.append(try context.insertNewObject(forEntityName: entity))
        }
        try context.obtainPermanentIDs(for: objects)
        #expect(objects.map(\.objectID.entityName) == ["Leaf", "Leaf", "Tag", "Leaf", "Tag", "Tag", "Leaf"])
        #expect(objects.map(\.objectID.primaryKey) == [1, 2, 1, 3, 2, 3, 4])
        for object in objects {
            #expect(!object.objectID.isTemporary)
            #expect(context.registeredObject(for: object.objectID) === object)
        }
        try context.save()
        let reader = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Leaf")) == 4)
        #expect(try reader.count(for: FetchRequest(entityName: "Tag")) == 3)
    }

    @Test func transientChangesAreUndoable() throws {
        let context = try Shapes.context()
        let leaf = try Shapes.leaf("a", context)
        try context.save()
        try leaf.setValue(.string("note"), forKey: "scratch")
        context.processPendingChanges()
        context.undo()
        #expect(try leaf.attributeValue(forKey: "scratch") == .null)
    }

    @Test func backgroundWorkUsesItsOwnContext() async throws {
        let coordinator = PersistentStoreCoordinator(model: try Shapes.model())
        try coordinator.addPersistentStore(type: "InMemory")
        let id = try await Task.detached {
            try ManagedObjectContext.perform(with: coordinator) { context in
                let leaf = try Shapes.leaf("from the background", context)
                try context.save()
                return leaf.objectID
            }
        }.value
        let context = ManagedObjectContext(coordinator: coordinator)
        #expect(try context.existingObject(with: id).value(forKey: "name") == .string("from the background"))
        // Several tasks saving through one coordinator at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<8 {
                group.addTask {
                    try ManagedObjectContext.perform(with: coordinator) { context in
                        for j in 0..<25 { _ = try Shapes.leaf("t\(i)-\(j)", context) }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try context.count(for: FetchRequest(entityName: "Leaf")) == 201)
    }
}
