import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Fetches made while a context holds random unsaved changes (values changed so that objects start or stop matching
/// and move in the order, objects deleted, objects inserted, some of them saved in between), with random predicates,
/// sorts, offsets, limits, batch sizes and sub-entities, in every store type: each answer is the one worked out here
/// from what the context holds — the stored objects not deleted and the inserted ones, by their current values — and
/// `count(for:)` is the number of objects the fetch returns. A fetch that leaves unsaved changes out
/// (`includesPendingChanges` false) answers what the store holds, by its values.
struct RandomPendingFetchTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64),
                    AttributeDescription(name: "number", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "flag", type: .boolean),
                ]),
            EntityDescription(
                name: "Special", parent: "Item", attributes: [AttributeDescription(name: "weight", type: .integer64)]),
        ])
    }

    /// What the test knows of one object.
    struct Mirror {
        var entity: String
        var number: Int64?
        var name: String?
        var flag: Bool
    }

    /// A predicate the test evaluates itself: its text, and whether an object matches.
    struct Condition {
        let text: String?
        let matches: (Mirror) -> Bool
    }

    static let names = ["a", "ab", "b", "ba", "c"]

    static func randomCondition(_ random: inout RandomGraph.Generator) -> Condition {
        let k = Int64.random(in: -2...12, using: &random)
        let j = Int64.random(in: -2...12, using: &random)
        let name = names.randomElement(using: &random)!
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return Condition(text: nil) { _ in true }
        case 1: return Condition(text: "number < \(k)") { $0.number.map { $0 < k } ?? false }
        case 2:
            return Condition(text: "number >= \(k) AND flag == YES") { ($0.number.map { $0 >= k } ?? false) && $0.flag }
        case 3: return Condition(text: "name == '\(name)'") { $0.name == name }
        case 4: return Condition(text: "name BEGINSWITH '\(name)'") { $0.name?.hasPrefix(name) ?? false }
        case 5: return Condition(text: "number == nil") { $0.number == nil }
        case 6: return Condition(text: "name != nil AND number != nil") { $0.name != nil && $0.number != nil }
        case 7:
            return Condition(text: "flag == NO OR number > \(k)") { !$0.flag || ($0.number.map { $0 > k } ?? false) }
        case 8:
            let (low, high) = (min(k, j), max(k, j))
            return Condition(text: "number BETWEEN {\(low), \(high)}") {
                $0.number.map { $0 >= low && $0 <= high } ?? false
            }
        default:
            return Condition(text: "number IN {\(k), \(j), 3}") { $0.number.map { [k, j, 3].contains($0) } ?? false }
        }
    }

    /// Orders two optional values as a store does: nil first.
    static func ascending<T: Comparable>(_ x: T?, _ y: T?) -> Bool? {
        switch (x, y) {
        case (nil, nil): return nil
        case (nil, _): return true
        case (_, nil): return false
        case (let x?, let y?): return x == y ? nil : x < y
        }
    }

    /// A random order (the serial last, so that the order is total) and how the test orders by it.
    static func randomSort(_ random: inout RandomGraph.Generator) -> (
        [ObjectSortDescriptor], (Int64, Mirror, Int64, Mirror) -> Bool
    ) {
        var keys: [(String, Bool)] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            keys.append((["number", "name", "flag"].randomElement(using: &random)!, Bool.random(using: &random)))
        }
        let serialAscending = Bool.random(using: &random)
        let descriptors =
            keys.map { ObjectSortDescriptor(keyPath: $0.0, ascending: $0.1) }
            + [ObjectSortDescriptor(keyPath: "serial", ascending: serialAscending)]
        let order: (Int64, Mirror, Int64, Mirror) -> Bool = { s, a, t, b in
            for (key, up) in keys {
                let before: Bool?
                switch key {
                case "number": before = ascending(a.number, b.number)
                case "name": before = ascending(a.name, b.name)
                default: before = a.flag == b.flag ? nil : !a.flag
                }
                if let before { return up ? before : !before }
            }
            return serialAscending ? s < t : s > t
        }
        return (descriptors, order)
    }

    static func serials(_ objects: [ManagedObject]) throws -> [Int64] {
        try objects.map {
            guard case .integer64(let serial) = try $0.attributeValue(forKey: "serial") else { return -1 }
            return serial
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aFetchWithUnsavedChangesAnswersWhatTheContextHolds(store: StoreUnderTest) throws {
        let model = try Self.model()
        for seed in UInt64(1)...8 {
            var random = RandomGraph.Generator(state: seed &* 2_147_483_647)
            let coordinator = try store.makeCoordinator(model: model)
            var context = ManagedObjectContext(coordinator: coordinator)
            var mirror: [Int64: Mirror] = [:]
            /// What the store holds (the mirror as of the last save).
            var stored: [Int64: Mirror] = [:]
            func save() throws {
                try context.save()
                stored = mirror
            }
            var serial: Int64 = 0

            func insert() throws {
                serial += 1
                let entity = Bool.random(using: &random) ? "Item" : "Special"
                let object = try context.insertNewObject(forEntityName: entity)
                var state = Mirror(entity: entity, number: nil, name: nil, flag: Bool.random(using: &random))
                if Int.random(in: 0..<5, using: &random) > 0 { state.number = Int64.random(in: 0...10, using: &random) }
                if Int.random(in: 0..<5, using: &random) > 0 { state.name = Self.names.randomElement(using: &random) }
                try object.setAttributeValue(.integer64(serial), forKey: "serial")
                try object.setAttributeValue(state.number.map { .integer64($0) } ?? .null, forKey: "number")
                try object.setAttributeValue(state.name.map { .string($0) } ?? .null, forKey: "name")
                try object.setAttributeValue(.boolean(state.flag), forKey: "flag")
                mirror[serial] = state
            }
            /// Some objects changed, some deleted, some inserted.
            func edit() throws {
                let all = try context.fetch(FetchRequest(entityName: "Item"))
                for object in all where Int.random(in: 0..<4, using: &random) == 0 {
                    let key = try Self.serials([object])[0]
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0:
                        context.delete(object)
                        mirror[key] = nil
                    case 1:
                        let number = Bool.random(using: &random) ? nil : Int64.random(in: 0...10, using: &random)
                        try object.setAttributeValue(number.map { .integer64($0) } ?? .null, forKey: "number")
                        mirror[key]?.number = number
                    case 2:
                        let name = Bool.random(using: &random) ? nil : Self.names.randomElement(using: &random)
                        try object.setAttributeValue(name.map { .string($0) } ?? .null, forKey: "name")
                        mirror[key]?.name = name
                    default:
                        let flag = Bool.random(using: &random)
                        try object.setAttributeValue(.boolean(flag), forKey: "flag")
                        mirror[key]?.flag = flag
                    }
                }
                for _ in 0..<Int.random(in: 0...4, using: &random) { try insert() }
            }

            for _ in 0..<Int.random(in: 15...30, using: &random) { try insert() }
            try save()
            for round in 0..<4 {
                // A fresh context now and then (the changes saved first): nothing registered but what the edits
                // fetch.
                if Int.random(in: 0..<3, using: &random) == 0 {
                    try save()
                    context = ManagedObjectContext(coordinator: coordinator)
                }
                try edit()
                if Int.random(in: 0..<4, using: &random) == 0 {
                    try save()
                    try edit()
                }
                for question in 0..<12 {
                    let condition = Self.randomCondition(&random)
                    let (descriptors, order) = Self.randomSort(&random)
                    let entity = Bool.random(using: &random) ? "Item" : "Special"
                    var request = FetchRequest(
                        entityName: entity, predicate: try condition.text.map { try ObjectPredicate(format: $0) })
                    request.sortDescriptors = descriptors
                    request.includesSubentities = entity == "Special" || Int.random(in: 0..<4, using: &random) > 0
                    request.fetchOffset = [0, 0, 1, 3, 50].randomElement(using: &random)!
                    request.fetchLimit = [0, 0, 1, 2, 5, 100].randomElement(using: &random)!
                    request.fetchBatchSize = [0, 0, 3].randomElement(using: &random)!
                    request.returnsObjectsAsFaults = Bool.random(using: &random)
                    // Now and then the store's answer alone: what it holds matches, by its values (an object deleted
                    // since the save among them), and nothing inserted since.
                    request.includesPendingChanges = Int.random(in: 0..<4, using: &random) > 0

                    let matching = (request.includesPendingChanges ? mirror : stored).filter { key, state in
                        (state.entity == entity || (request.includesSubentities && entity == "Item"))
                            && condition.matches(state)
                    }.sorted { order($0.key, $0.value, $1.key, $1.value) }.map(\.key)
                    let start = min(request.fetchOffset, matching.count)
                    let end = request.fetchLimit > 0 ? min(matching.count, start + request.fetchLimit) : matching.count
                    let expected = Array(matching[start..<end])

                    let place =
                        "\(store), seed \(seed), round \(round), question \(question): \(entity)\(request.includesSubentities ? "" : " (exactly)") \(condition.text ?? "all") sorted \(descriptors.map { "\($0.keyPath)\($0.ascending ? "" : " desc")" }) offset \(request.fetchOffset) limit \(request.fetchLimit)\(request.includesPendingChanges ? "" : ", store only")"
                    let answer = try Self.serials(try context.fetch(request))
                    #expect(answer == expected, "\(place)")
                    #expect(try context.count(for: request) == expected.count, "\(place): count")
                }
            }
        }
    }
}
