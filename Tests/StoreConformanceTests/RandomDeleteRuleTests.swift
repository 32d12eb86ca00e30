import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Random graphs of a model with every delete rule on every kind of relationship (cascade through trees and through
/// to-ones, deny, nullify, ordered and many-to-many), random deletions undone, redone and saved into each store
/// type: a deletion takes with it exactly what its cascade rules reach, leaves nothing pointing at what is gone, is
/// undone to the graph as it was, and is saved as the context shows it — or, denied, not saved at all.
struct RandomDeleteRuleTests {
    /// Each relationship: entity, name, destination, to-many, ordered, inverse, delete rule.
    static let relationships: [(String, String, String, Bool, Bool, String, DeleteRule)] = [
        ("Folder", "items", "Item", true, false, "folder", .cascade),
        ("Item", "folder", "Folder", false, false, "items", .nullify),
        ("Folder", "pinned", "Item", true, true, "pinnedIn", .nullify),
        ("Item", "pinnedIn", "Folder", true, false, "pinned", .nullify),
        ("Folder", "children", "Folder", true, true, "parent", .cascade),
        ("Folder", "parent", "Folder", false, false, "children", .nullify),
        ("Folder", "locks", "Lock", true, false, "folder", .deny),
        ("Lock", "folder", "Folder", false, false, "locks", .nullify),
        ("Folder", "cover", "Item", false, false, "coverOf", .cascade),
        ("Item", "coverOf", "Folder", false, false, "cover", .nullify),
        ("Item", "parts", "Item", true, false, "whole", .cascade),
        ("Item", "whole", "Item", false, false, "parts", .nullify),
        ("Item", "related", "Item", true, false, "related", .nullify),
    ]
    static let entities = ["Folder", "Item", "Lock"]

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: entities.map { entity in
                EntityDescription(
                    name: entity, attributes: [AttributeDescription(name: "name", type: .string)],
                    relationships: relationships.filter { $0.0 == entity }.map {
                        RelationshipDescription(
                            name: $0.1, destination: $0.2, inverse: $0.5, toMany: $0.3, ordered: $0.4, deleteRule: $0.6)
                    })
            })
    }

    /// Every live object by name, with each relationship's destinations by name (sorted unless ordered).
    static func state(_ context: ManagedObjectContext) throws -> [String: [String: [String]]] {
        var result: [String: [String: [String]]] = [:]
        for entity in entities {
            for object in try context.fetch(FetchRequest(entityName: entity)) where !object.isDeleted {
                var links: [String: [String]] = [:]
                for (owner, name, _, toMany, ordered, _, _) in relationships where owner == entity {
                    let names =
                        try (toMany ? object.objects(forKey: name) : [object.object(forKey: name)].compactMap { $0 })
                        .map { try Self.name(of: $0) }
                    links[name] = ordered ? names : names.sorted()
                }
                result[try Self.name(of: object)] = links
            }
        }
        return result
    }

    static func printDifferences(
        _ saved: [String: [String: [String]]], _ shown: [String: [String: [String]]], _ place: String
    ) {
        for key in Set(saved.keys).union(shown.keys).sorted() where saved[key] != shown[key] {
            print(
                "\(place): \(key) saved \(saved[key].map { "\($0)" } ?? "-") shown \(shown[key].map { "\($0)" } ?? "-")"
            )
        }
    }

    static func name(of object: ManagedObject) throws -> String {
        guard case .string(let name) = try object.attributeValue(forKey: "name") else { return "?" }
        return name
    }

    /// What deleting `object` takes with it: it and, transitively, every destination of a cascade relationship.
    static func cascade(from object: ManagedObject) throws -> Set<ObjectIdentifier> {
        var reached: Set<ObjectIdentifier> = []
        var pending = [object]
        while let next = pending.popLast() {
            guard reached.insert(ObjectIdentifier(next)).inserted else { continue }
            for (owner, name, _, toMany, _, _, rule) in relationships
            where owner == next.entity.name && rule == .cascade {
                pending += try toMany ? next.objects(forKey: name) : [next.object(forKey: name)].compactMap { $0 }
            }
        }
        return reached
    }

    /// Random links between the live objects.
    static func link(_ context: ManagedObjectContext, _ random: inout RandomGraph.Generator) throws {
        var live: [String: [ManagedObject]] = [:]
        for entity in entities {
            live[entity] = try context.fetch(FetchRequest(entityName: entity)).filter { !$0.isDeleted }
        }
        for _ in 0..<10 {
            let (entity, name, destination, toMany, _, _, _) = relationships.randomElement(using: &random)!
            guard let owner = live[entity]?.randomElement(using: &random) else { continue }
            let candidates = (live[destination] ?? []).filter { $0 !== owner }
            if toMany {
                try owner.setObjects(
                    Array(candidates.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random))),
                    forKey: name)
            } else {
                try owner.setObject(
                    Bool.random(using: &random) ? candidates.randomElement(using: &random) : nil, forKey: name)
            }
        }
    }

    @Test(arguments: StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" })
    func deletionsTakeWhatTheirRulesSayAndSaveAsShown(store: StoreUnderTest) throws {
        let model = try Self.model()
        for seed in UInt64(1)...5 {
            var random = RandomGraph.Generator(state: seed &* 31_337)
            let (coordinator, url) = try store.makeStore(model: model, named: "rules\(seed)")
            let fileURL = try #require(url)
            let context = ManagedObjectContext(coordinator: coordinator)
            var counter = 0
            for round in 0..<12 {
                let place = "\(store), seed \(seed), round \(round)"
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    counter += 1
                    let entity = Self.entities.randomElement(using: &random)!
                    try context.insertNewObject(forEntityName: entity).setValue(
                        .string("\(entity.lowercased())\(counter)"), forKey: "name")
                }
                try Self.link(context, &random)
                context.processPendingChanges()
                let before = try Self.state(context)
                let live = try Self.entities.flatMap { try context.fetch(FetchRequest(entityName: $0)) }
                guard let doomed = live.randomElement(using: &random) else { continue }
                let expectedGone = try Self.cascade(from: doomed)
                context.undoManager?.beginUndoGrouping()
                context.delete(doomed)
                context.processPendingChanges()
                context.undoManager?.endUndoGrouping()
                // Exactly what the cascade rules reach is deleted.
                for object in live {
                    let name = try Self.name(of: object)
                    #expect(
                        object.isDeleted == expectedGone.contains(ObjectIdentifier(object)),
                        "\(place): \(name) deleted: \(object.isDeleted)")
                }
                // Nothing left points at what is gone, but a lock at its folder (Deny: the save is refused).
                let after = try Self.state(context)
                let gone = Set(before.keys).subtracting(after.keys)
                var denied = false
                for (name, links) in after {
                    for (relationship, destinations) in links where destinations.contains(where: gone.contains) {
                        if name.hasPrefix("lock") && relationship == "folder" {
                            denied = true
                        } else {
                            Issue.record("\(place): \(name).\(relationship) still holds \(destinations)")
                        }
                    }
                }
                // Undone: the graph as it was; redone: as after the deletion.
                context.undo()
                #expect(try Self.state(context) == before, "\(place): undo")
                context.redo()
                #expect(try Self.state(context) == after, "\(place): redo")
                var undone = false
                if Int.random(in: 0..<4, using: &random) == 0 {
                    context.undo()
                    denied = false
                    undone = true
                }
                let shown = try Self.state(context)
                // (An atomic store's file is written by its first save.)
                let file = FileManager.default.fileExists(atPath: fileURL.path) ? try Data(contentsOf: fileURL) : nil
                do {
                    try context.save()
                    #expect(!denied, "\(place): saved a folder's deletion that its locks deny")
                } catch {
                    // Refused (a lock denies its folder's deletion): the file as it was, the graph as shown.
                    #expect(denied && "\(error)".contains("locks"), "\(place): \(error)")
                    #expect(
                        FileManager.default.fileExists(atPath: fileURL.path)
                            ? try Data(contentsOf: fileURL) == file : file == nil,
                        "\(place): file changed by a refused save")
                    #expect(try Self.state(context) == shown, "\(place): graph changed by a refused save")
                    context.rollback()
                    continue
                }
                let reader = PersistentStoreCoordinator(model: model)
                try reader.addPersistentStore(type: store.type, url: fileURL)
                let saved = try Self.state(ManagedObjectContext(coordinator: reader))
                #expect(saved == shown, "\(place): saved state")
                Self.printDifferences(saved, shown, place)
                // The saved deletion undone: everything it took comes back, and is saved back.
                if !undone && Int.random(in: 0..<3, using: &random) == 0 {
                    context.undo()
                    #expect(try Self.state(context) == before, "\(place): undo past the save")
                    let restored = try Self.state(context)
                    try context.save()
                    let again = PersistentStoreCoordinator(model: model)
                    try again.addPersistentStore(type: store.type, url: fileURL)
                    let read = try Self.state(ManagedObjectContext(coordinator: again))
                    #expect(read == restored, "\(place): saved after the undo past the save")
                    Self.printDifferences(read, restored, place)
                }
            }
        }
    }

    /// A folder deleted before its first save is never saved, but its lock still denies the deletion: the save is
    /// refused (it wrote the lock without its folder, while the context still showed the lock in it).
    @Test(arguments: StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" })
    func aDenyRuleHoldsForAnObjectDeletedBeforeItWasSaved(store: StoreUnderTest) throws {
        let (coordinator, url) = try store.makeStore(model: try Self.model(), named: "deny")
        let context = ManagedObjectContext(coordinator: coordinator)
        let lock = try context.insertNewObject(forEntityName: "Lock")
        try lock.setValue(.string("lock"), forKey: "name")
        try context.save()
        let before = try Data(contentsOf: try #require(url))
        let folder = try context.insertNewObject(forEntityName: "Folder")
        try folder.setValue(.string("folder"), forKey: "name")
        try lock.setObject(folder, forKey: "folder")
        context.delete(folder)
        #expect(throws: ContextError.self) { try context.save() }
        #expect(try Data(contentsOf: try #require(url)) == before)
        #expect(try lock.object(forKey: "folder") === folder)
        // Let go of the lock first: the folder goes, and the lock is saved without it.
        try lock.setObject(nil, forKey: "folder")
        try context.save()
        #expect(context.insertedObjects.isEmpty && !context.hasChanges)
    }

    /// An item deleted before its first save, whose other side's rule is No Action, leaves the folder pointing at it:
    /// the save is refused, naming the folder's relationship (it wrote the folder without its note, while the context
    /// still showed it).
    @Test(arguments: StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" })
    func aLinkToAnObjectDeletedBeforeItWasSavedIsRefused(store: StoreUnderTest) throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Folder", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "note", destination: "Item", inverse: "noteOf")]),
            EntityDescription(
                name: "Item", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "noteOf", destination: "Folder", inverse: "note", deleteRule: .noAction)
                ]),
        ])
        let (coordinator, url) = try store.makeStore(model: model, named: "dangling")
        let context = ManagedObjectContext(coordinator: coordinator)
        let folder = try context.insertNewObject(forEntityName: "Folder")
        try context.save()
        let before = try Data(contentsOf: try #require(url))
        let item = try context.insertNewObject(forEntityName: "Item")
        try folder.setObject(item, forKey: "note")
        context.delete(item)
        do {
            try context.save()
            Issue.record("\(store): saved a link to an object that is saved nowhere")
        } catch {
            guard case .validation(let errors) = error else {
                Issue.record("\(store): \(error)")
                return
            }
            #expect(errors.map(\.code) == [.danglingReference] && errors.first?.key == "note", "\(errors)")
        }
        #expect(try Data(contentsOf: try #require(url)) == before)
        try folder.setObject(nil, forKey: "note")
        try context.save()
        #expect(!context.hasChanges)
    }
}
