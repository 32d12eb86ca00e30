import Testing

@testable import ObjectGraph

/// The position table of an object list agrees with a dictionary by identity through any run of insertions and
/// removals (removal moves later entries back; a table that grew keeps every entry).
struct IdentityPositionsTests {
    /// `count` new objects (temporary IDs) of a one-attribute entity.
    static func objects(_ count: Int) throws -> [ManagedObject] {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "n", type: .integer64)])
        ])
        let layout = try #require(model.layout(of: "Item"))
        return (0..<count).map { _ in ManagedObject(layout: layout, objectID: ManagedObjectID(temporaryFor: "Item")) }
    }

    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) throws {
        let objects = try Self.objects(3_000)
        var table = IdentityPositions()
        var reference: [ObjectIdentifier: Int] = [:]
        var random = XorShift(seed)
        func next(_ bound: Int) -> Int { random.next(bound) }
        for step in 0..<40_000 {
            let object = objects[next(objects.count)]
            let id = ObjectIdentifier(object)
            if next(3) == 0 {
                #expect(table.remove(object) == reference.removeValue(forKey: id), "step \(step)")
            } else {
                let added = table.insert(object, at: step)
                #expect(added == (reference[id] == nil), "step \(step)")
                if added { reference[id] = step }
            }
            #expect(table.count == reference.count)
        }
        for object in objects { #expect(table.position(of: object) == reference[ObjectIdentifier(object)]) }
    }

    /// The originals table agrees with a dictionary by identity through any run of sets, replacements and removals,
    /// and `updateEach` changes every state once.
    @Test(arguments: [4, 5])
    func originalsAgreeWithADictionary(seed: UInt64) throws {
        let objects = try Self.objects(2_000)
        var table = OriginalStates()
        var reference: [ObjectIdentifier: Int64] = [:]
        var random = XorShift(seed)
        func next(_ bound: Int) -> Int { random.next(bound) }
        for step in 0..<30_000 {
            let id = ObjectIdentifier(objects[next(objects.count)])
            if next(3) == 0 {
                table[id] = nil
                reference[id] = nil
            } else {
                table[id] = OriginalState(attributes: [], relationships: [], version: Int64(step))
                reference[id] = Int64(step)
            }
            #expect(table.count == reference.count)
            #expect(table[id]?.version == reference[id], "step \(step)")
        }
        table.updateEach { $0.version += 1 }
        for object in objects {
            let id = ObjectIdentifier(object)
            #expect(table[id]?.version == reference[id].map { $0 + 1 })
        }
        table.removeAll()
        #expect(table.count == 0 && table[ObjectIdentifier(objects[0])] == nil)
    }

    /// A collection made from many objects at once (as a fired to-many is) keeps each object once, where it first
    /// comes, and then agrees with an array through removals and appends, as one filled by appending does.
    @Test(arguments: [3, 17, 1_000])
    func aCollectionMadeAtOnceIsOneMadeByAppending(count: Int) throws {
        let objects = try Self.objects(count)
        var random = XorShift(UInt64(count))
        // Every object, then some again in another order.
        let given = objects + (0..<count / 3).map { _ in objects[random.next(count)] }
        var made = ObjectCollection(given)
        var appended = ObjectCollection()
        for object in given { appended.append(object) }
        #expect(made.objects.map(ObjectIdentifier.init) == objects.map(ObjectIdentifier.init))
        #expect(made.count == appended.count)
        for (i, object) in objects.enumerated() { #expect(made.position(of: object) == i) }
        for step in 0..<2 * count {
            let object = objects[random.next(count)]
            if random.next(2) == 0 {
                #expect(made.remove(object, keepingOrder: false) == appended.remove(object, keepingOrder: false))
            } else {
                made.append(object)
                appended.append(object)
            }
            #expect(made.objects.map(ObjectIdentifier.init) == appended.objects.map(ObjectIdentifier.init), "\(step)")
            #expect(made.contains(object) == appended.contains(object))
        }
    }

    /// A relationship's collection agrees with a plain array through any run of appends, insertions and removals
    /// (ordered and not), below and above the size at which it starts its index.
    @Test(arguments: [6, 7, 8])
    func aCollectionAgreesWithAnArray(seed: UInt64) throws {
        let objects = try Self.objects(60)
        var collection = ObjectCollection()
        var reference: [ManagedObject] = []
        var random = XorShift(seed)
        func next(_ bound: Int) -> Int { random.next(bound) }
        // A copy taken now and then must not see the changes made after it (the index is shared until one changes).
        var saved = (collection, reference)
        for step in 0..<20_000 {
            if step % 97 == 0 { saved = (collection, reference) }
            let object = objects[next(objects.count)]
            let present = reference.contains { $0 === object }
            switch next(5) {
            case 0, 1:
                collection.append(object)
                if !present { reference.append(object) }
            case 2:
                let position = next(reference.count + 1)
                collection.insert(object, at: position)
                if !present { reference.insert(object, at: position) }
            default:
                let ordered = next(2) == 0
                let expected = reference.firstIndex { $0 === object }
                #expect(collection.remove(object, keepingOrder: ordered) == expected, "step \(step)")
                if let expected {
                    if ordered {
                        reference.remove(at: expected)
                    } else {
                        reference.swapAt(expected, reference.count - 1)
                        reference.removeLast()
                    }
                }
            }
            #expect(
                collection.objects.map(ObjectIdentifier.init) == reference.map(ObjectIdentifier.init), "step \(step)")
            let probe = objects[next(objects.count)]
            #expect(collection.contains(probe) == reference.contains { $0 === probe }, "step \(step)")
            #expect(collection.position(of: probe) == reference.firstIndex { $0 === probe }, "step \(step)")
            #expect(saved.0.position(of: probe) == saved.1.firstIndex { $0 === probe }, "step \(step)")
            #expect(saved.0.objects.map(ObjectIdentifier.init) == saved.1.map(ObjectIdentifier.init), "step \(step)")
        }
    }

    /// An object list keeps its order through removals and the compaction that follows many of them.
    @Test func aListKeepsItsOrder() throws {
        let objects = try Self.objects(500)
        var list = ObjectList()
        for object in objects { list.insert(object) }
        for object in objects { list.insert(object) }
        #expect(list.count == 500)
        for (i, object) in objects.enumerated() where i % 3 != 0 { list.remove(object) }
        let kept = objects.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        #expect(list.objects.map(ObjectIdentifier.init) == kept.map(ObjectIdentifier.init))
        for object in objects { #expect(list.contains(object) == kept.contains { $0 === object }) }
        list.removeAll()
        #expect(list.isEmpty)
    }

    /// Objects appended without a lookup (`appendNew`, for objects known not to be in the list) are found, removed
    /// and kept in order like inserted ones, whenever the lookup that indexes them comes: a random run of appends,
    /// inserts (of objects in the list or not), removals and compactions against a plain array.
    @Test(arguments: [4, 5, 6])
    func appendedObjectsAreIndexedWhenLookedUp(seed: UInt64) throws {
        let objects = try Self.objects(400)
        var list = ObjectList()
        var reference: [ManagedObject] = []
        var random = XorShift(seed)
        for step in 0..<20_000 {
            let object = objects[random.next(objects.count)]
            let present = reference.contains { $0 === object }
            switch random.next(8) {
            case 0, 1, 2:
                // Appended only when not in the list, as the context does.
                if !present {
                    list.appendNew(object)
                    reference.append(object)
                }
            case 3:
                #expect(list.insert(object) == !present, "step \(step)")
                if !present { reference.append(object) }
            case 4, 5:
                list.remove(object)
                reference.removeAll { $0 === object }
            case 6:
                #expect(list.contains(object) == present, "step \(step)")
            default:
                if random.next(50) == 0 {
                    list.removeAll()
                    reference.removeAll()
                }
            }
            #expect(list.count == reference.count, "step \(step)")
            if step % 97 == 0 {
                #expect(
                    list.objects.map(ObjectIdentifier.init) == reference.map(ObjectIdentifier.init), "step \(step)")
            }
        }
        #expect(list.objects.map(ObjectIdentifier.init) == reference.map(ObjectIdentifier.init))
    }
}

/// xorshift: the same run of numbers for a seed.
struct XorShift {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    /// The next number below `bound`.
    mutating func next(_ bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }
}
