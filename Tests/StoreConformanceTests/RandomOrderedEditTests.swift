import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Random edits of ordered relationships through ``MutableRelationship`` (add, insert at a position — an object
/// already there moves —, remove), through the inverse to-one, by deleting objects and inserting new ones, with
/// rollbacks and saves, in every store type: after each edit both sides hold what the edits give, worked out here
/// (an object set through its to-one goes to the end of its new owner's list); a position out of range or on an
/// unordered relationship is refused with nothing changed; undo and redo step back and forth through the states; and
/// the file read back holds every list in its order.
struct RandomOrderedEditTests {
    static func model() throws -> ManagedObjectModel {
        let name = AttributeDescription(name: "name", type: .string)
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Group", attributes: [name],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: "Item", inverse: "group", toMany: true, ordered: true),
                    RelationshipDescription(
                        name: "tags", destination: "Item", inverse: "taggedIn", toMany: true, ordered: true),
                ]),
            EntityDescription(
                name: "Item", attributes: [name],
                relationships: [
                    RelationshipDescription(name: "group", destination: "Group", inverse: "items"),
                    RelationshipDescription(name: "taggedIn", destination: "Group", inverse: "tags", toMany: true),
                ]),
        ])
    }

    /// The lists by group name and each item's group and tagging groups, as the test works them out.
    struct Mirror: Equatable {
        var items: [String: [String]] = [:]
        var tags: [String: [String]] = [:]
        var group: [String: String] = [:]
        var taggedIn: [String: Set<String>] = [:]
        /// Every item (an insert is a change even before the item is linked).
        var names: Set<String> = []

        /// What differs from `other`, for messages.
        func difference(from other: Mirror) -> String {
            var lines: [String] = []
            for g in Set(items.keys).union(other.items.keys).sorted() where items[g] != other.items[g] {
                lines.append("\(g).items \(other.items[g] ?? []) → \(items[g] ?? [])")
            }
            for g in Set(tags.keys).union(other.tags.keys).sorted() where tags[g] != other.tags[g] {
                lines.append("\(g).tags \(other.tags[g] ?? []) → \(tags[g] ?? [])")
            }
            for i in Set(group.keys).union(other.group.keys).sorted() where group[i] != other.group[i] {
                lines.append("\(i).group \(other.group[i] ?? "-") → \(group[i] ?? "-")")
            }
            for i in Set(taggedIn.keys).union(other.taggedIn.keys).sorted() where taggedIn[i] != other.taggedIn[i] {
                lines.append("\(i).taggedIn \((other.taggedIn[i] ?? []).sorted()) → \((taggedIn[i] ?? []).sorted())")
            }
            if names != other.names { lines.append("items \(other.names.sorted()) → \(names.sorted())") }
            return lines.joined(separator: "; ")
        }

        mutating func detach(_ item: String) {
            if let old = group[item] { items[old]?.removeAll { $0 == item } }
            group[item] = nil
        }
    }

    static func name(_ object: ManagedObject) throws -> String {
        guard case .string(let name) = try object.attributeValue(forKey: "name") else { return "?" }
        return name
    }

    /// What the context holds, read the same way.
    static func state(_ context: ManagedObjectContext) throws -> Mirror {
        var state = Mirror()
        for group in try context.fetch(FetchRequest(entityName: "Group")) {
            state.items[try name(group)] = try group.objects(forKey: "items").map(name)
            state.tags[try name(group)] = try group.objects(forKey: "tags").map(name)
        }
        for item in try context.fetch(FetchRequest(entityName: "Item")) {
            state.names.insert(try name(item))
            state.group[try name(item)] = try item.object(forKey: "group").map(name)
            let tagging = Set(try item.objects(forKey: "taggedIn").map(name))
            state.taggedIn[try name(item)] = tagging.isEmpty ? nil : tagging
        }
        return state
    }

    @Test(arguments: StoreUnderTest.all)
    func orderedListsHoldWhatTheirEditsGive(store: StoreUnderTest) throws {
        let model = try Self.model()
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed &* 998_244_353)
            let (coordinator, url) = try store.makeStore(model: model, named: "ordered")
            let context = ManagedObjectContext(coordinator: coordinator)
            var mirror = Mirror()
            var saved = Mirror()
            var groups: [String: ManagedObject] = [:]
            var items: [String: ManagedObject] = [:]
            var counter = 0
            for g in 0..<3 {
                let group = try context.insertNewObject(forEntityName: "Group")
                try group.setAttributeValue(.string("g\(g)"), forKey: "name")
                groups["g\(g)"] = group
                mirror.items["g\(g)"] = []
                mirror.tags["g\(g)"] = []
            }
            func newItem() throws {
                counter += 1
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setAttributeValue(.string("i\(counter)"), forKey: "name")
                items["i\(counter)"] = item
                mirror.names.insert("i\(counter)")
            }
            for _ in 0..<6 { try newItem() }
            try context.save()
            saved = mirror
            // The state after each event that changed something (each step is an event), and the states undone.
            var history = [mirror]
            var undone: [Mirror] = []
            /// Ends the step's event: its changes become one undo step.
            func endEvent() {
                context.processPendingChanges()
                if mirror != history[history.count - 1] {
                    history.append(mirror)
                    undone = []
                }
            }
            for step in 0..<80 {
                let place = "\(store), seed \(seed), step \(step)"
                let g = groups.keys.sorted().randomElement(using: &random)!
                let group = groups[g]!
                guard let x = items.keys.sorted().randomElement(using: &random), let item = items[x] else {
                    try newItem()
                    endEvent()
                    continue
                }
                let key = Bool.random(using: &random) ? "items" : "tags"
                let list = try group.mutableObjects(forKey: key)
                var current = (key == "items" ? mirror.items[g] : mirror.tags[g]) ?? []
                let op = Int.random(in: 0..<12, using: &random)
                switch op {
                case 0, 1:
                    try list.add(item)
                    if !current.contains(x) {
                        if key == "items" { mirror.detach(x) }
                        current.append(x)
                    }
                case 2, 3, 4:
                    let present = current.contains(x)
                    let last = present ? current.count - 1 : current.count
                    let position = Int.random(in: -1...(last + 2), using: &random)
                    guard position >= 0 && position <= last else {
                        #expect(throws: ObjectGraphError.self, "\(place)") { try list.insert(item, at: position) }
                        #expect(try Self.state(context) == mirror, "\(place): a refused insert changed nothing")
                        continue
                    }
                    try list.insert(item, at: position)
                    if present {
                        current.removeAll { $0 == x }
                    } else if key == "items" {
                        mirror.detach(x)
                    }
                    current.insert(x, at: position)
                case 5, 6:
                    try list.remove(item)
                    current.removeAll { $0 == x }
                    if key == "items" && mirror.group[x] == g { mirror.group[x] = nil }
                case 7:
                    // Through the inverse to-one: to the end of the new group's list (or out of every list).
                    let other = Bool.random(using: &random) ? nil : groups.keys.sorted().randomElement(using: &random)
                    try item.setObject(other.flatMap { groups[$0] }, forKey: "group")
                    if mirror.group[x] != other {
                        mirror.detach(x)
                        if let other {
                            mirror.items[other, default: []].append(x)
                            mirror.group[x] = other
                        }
                    }
                    current = (key == "items" ? mirror.items[g] : mirror.tags[g]) ?? []
                case 8:
                    context.delete(item)
                    context.processPendingChanges()
                    items[x] = nil
                    mirror.detach(x)
                    for name in mirror.tags.keys { mirror.tags[name]?.removeAll { $0 == x } }
                    mirror.taggedIn[x] = nil
                    mirror.names.remove(x)
                    current = (key == "items" ? mirror.items[g] : mirror.tags[g]) ?? []
                case 9 where Bool.random(using: &random):
                    try newItem()
                case 9:
                    // Back an event (across saves too) or forward again.
                    if !undone.isEmpty && Bool.random(using: &random) {
                        context.redo()
                        mirror = undone.removeLast()
                        history.append(mirror)
                    } else if history.count > 1 {
                        context.undo()
                        undone.append(history.removeLast())
                        mirror = history[history.count - 1]
                    }
                    items = items.filter {
                        context.registeredObject(for: $0.value.objectID) === $0.value && !$0.value.isDeleted
                    }
                    let state = try Self.state(context)
                    #expect(state == mirror, "\(place): undo or redo: \(state.difference(from: mirror))")
                    continue
                case 10:
                    try context.save()
                    saved = mirror
                default:
                    // An unordered relationship has no positions.
                    let tagging = try item.mutableObjects(forKey: "taggedIn")
                    #expect(throws: ObjectGraphError.self, "\(place)") { try tagging.insert(group, at: 0) }
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        context.rollback()
                        mirror = saved
                        (history, undone) = ([saved], [])
                        items = items.filter {
                            context.registeredObject(for: $0.value.objectID) === $0.value && !$0.value.isDeleted
                        }
                        continue
                    }
                }
                if key == "items" {
                    mirror.items[g] = current
                    for name in current { mirror.group[name] = g }
                } else {
                    mirror.tags[g] = current
                    for name in mirror.taggedIn.keys { mirror.taggedIn[name]?.remove(g) }
                    for name in current { mirror.taggedIn[name, default: []].insert(g) }
                    mirror.taggedIn = mirror.taggedIn.filter { !$0.value.isEmpty }
                }
                let state = try Self.state(context)
                #expect(state == mirror, "\(place): \(state.difference(from: mirror))")
                endEvent()
            }
            try context.save()
            // The file read back: every list in its order.
            if let url {
                let reader = PersistentStoreCoordinator(model: model)
                try reader.addPersistentStore(type: store.type, url: url)
                #expect(
                    try Self.state(ManagedObjectContext(coordinator: reader)) == mirror, "\(store), seed \(seed): file")
            }
        }
    }

    /// A list's count and a positioned insert on an owner that is a fault (an object by ID in a new context): the fault
    /// is filled first (they trapped on its missing slots).
    @Test(arguments: StoreUnderTest.all)
    func aListOfAFaultCountsAndTakesPositions(store: StoreUnderTest) throws {
        let coordinator = try store.makeCoordinator(model: try Self.model())
        let context = ManagedObjectContext(coordinator: coordinator)
        let group = try context.insertNewObject(forEntityName: "Group")
        try group.setAttributeValue(.string("g"), forKey: "name")
        for n in 0..<3 {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setAttributeValue(.string("i\(n)"), forKey: "name")
            try group.mutableObjects(forKey: "items").add(item)
        }
        try context.save()
        let again = ManagedObjectContext(coordinator: coordinator)
        let fault = try again.object(with: group.objectID)
        #expect(fault.isFault, "\(store): fetched as a fault")
        #expect(try fault.mutableObjects(forKey: "items").count() == 3, "\(store)")
        let other = ManagedObjectContext(coordinator: coordinator)
        let owner = try other.object(with: group.objectID)
        let last = try #require(
            try other.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "name == 'i2'")))
                .first)
        try owner.mutableObjects(forKey: "items").insert(last, at: 0)
        #expect(try owner.objects(forKey: "items").map(Self.name) == ["i2", "i0", "i1"], "\(store)")
    }

    /// An object whose insert was undone (or whose deletion was saved) is out of the context's objects: linking it is
    /// refused at once (it was accepted, and every later save refused until the link was undone), and so is a value
    /// set on it (accepted, and never saved); through a subclass's subscript, the next save throws.
    @Test(arguments: StoreUnderTest.all)
    func anObjectOutOfTheContextTakesNoLinkAndNoValue(store: StoreUnderTest) throws {
        let context = ManagedObjectContext(coordinator: try store.makeCoordinator(model: try Self.model()))
        let group = try context.insertNewObject(forEntityName: "Group")
        let saved = try context.insertNewObject(forEntityName: "Item")
        try context.save()
        let undone = try context.insertNewObject(forEntityName: "Item")
        context.processPendingChanges()
        func expectRefused(_ item: ManagedObject, _ place: String) {
            #expect(throws: ObjectGraphError.self, "\(place)") { try group.mutableObjects(forKey: "items").add(item) }
            #expect(throws: ObjectGraphError.self, "\(place)") { try group.setObjects([item], forKey: "tags") }
            #expect(throws: ObjectGraphError.self, "\(place)") { try item.setObject(group, forKey: "group") }
            #expect(throws: ObjectGraphError.self, "\(place)") {
                try group.mutableObjects(forKey: "tags").insert(item, at: 0)
            }
            // Nor a value: no save would write it.
            #expect(throws: ObjectGraphError.self, "\(place)") {
                try item.setAttributeValue(.string("x"), forKey: "name")
            }
            #expect(throws: ObjectGraphError.self, "\(place)") {
                try item.setPrimitiveValue(.string("x"), forKey: "name")
            }
            #expect(!context.hasChanges, "\(place): nothing changed")
            // Out of its context, as Core Data's object deleted from its context is.
            #expect(item.managedObjectContext == nil, "\(place)")
        }
        #expect(undone.managedObjectContext === context, "\(store): inserted")
        context.undo()
        expectRefused(undone, "\(store): insert undone")
        // Redone, the insert is an object again, and links.
        context.redo()
        #expect(undone.managedObjectContext === context, "\(store): insert redone")
        try group.mutableObjects(forKey: "items").add(undone)
        try context.save()
        #expect(
            try group.objects(forKey: "items").map(ObjectIdentifier.init) == [ObjectIdentifier(undone)], "\(store)")
        context.delete(saved)
        try context.save()
        expectRefused(saved, "\(store): deletion saved")
        try context.save()
        // The saved deletion undone brings the object back into its context.
        context.undo()
        #expect(saved.managedObjectContext === context, "\(store): saved deletion undone")
        context.redo()
        try context.save()
        #expect(saved.managedObjectContext == nil, "\(store): deletion saved again")
        saved["name"] = "lost"
        #expect(throws: ContextError.self, "\(store): a value set through the subscript") { try context.save() }
    }
}
