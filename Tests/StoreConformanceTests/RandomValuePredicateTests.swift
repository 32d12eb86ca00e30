import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Random predicates and sorts over random values of every attribute type (nil among them), answered by the SQLite
/// store (translated to SQL) and by the XML store (evaluated in memory) over the same objects: the same objects must
/// match, in the same order.
struct RandomValuePredicateTests {
    static let attributes: [(name: String, type: AttributeType)] = [
        ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("dbl", .double), ("flt", .float),
        ("flag", .boolean), ("when", .date), ("text", .string), ("other", .string), ("amount", .decimal),
    ]

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Thing",
                attributes: [AttributeDescription(name: "id", type: .integer64)]
                    + attributes.map { (name, type) in
                        // Some indexed: SQLite then finds their rows in the index's order (an unsorted fetch is
                        // still in key order).
                        var attribute = AttributeDescription(name: name, type: type)
                        attribute.isIndexed = ["i64", "text", "when"].contains(name)
                        return attribute
                    })
        ])
    }

    static let strings = [
        "", "a", "A", "ab", "Ab", "aB", "e", "é", "É", "ê", "E", "straße", "STRASSE", "ß", "日本", "a%b", "a_b", "*", "?",
        "a*b", "b", "zz", "Z", "10", "9", "x y", "ǅ", "ﬁ", "fi",
    ]
    static let integers: [Int64] = [-40_000, -2, -1, 0, 1, 2, 7, 100, 32_767, 40_000, 3_000_000_000]
    static let reals: [Double] = [-1.5, -0, 0, 0.1, 0.5, 1, 2.5, 7, 1e10, .infinity, -.infinity]
    static let dates: [Double] = [-1e9, 0, 1, 86_400, 7e8, 7e8 + 0.5]

    /// A random value of `type`, nil one time in five.
    static func value(_ type: AttributeType, _ random: inout RandomGraph.Generator) -> AttributeValue {
        if Int.random(in: 0..<5, using: &random) == 0 { return .null }
        switch type {
        case .integer16: return .integer16(Int16(clamping: integers.randomElement(using: &random)!))
        case .integer32: return .integer32(Int32(clamping: integers.randomElement(using: &random)!))
        case .integer64: return .integer64(integers.randomElement(using: &random)!)
        case .double: return .double(reals.randomElement(using: &random)!)
        case .float: return .float(Float(reals.randomElement(using: &random)!))
        case .boolean: return .boolean(Bool.random(using: &random))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: dates.randomElement(using: &random)!))
        case .decimal: return .decimal(Decimal(reals.filter(\.isFinite).randomElement(using: &random)!))
        default: return .string(strings.randomElement(using: &random)!)
        }
    }

    /// Inserts a thing with id `id` and a random value (or nil) in every attribute.
    static func insertThing(_ id: Int, into context: ManagedObjectContext, _ random: inout RandomGraph.Generator)
        throws
    {
        let thing = try context.insertNewObject(forEntityName: "Thing")
        try thing.setAttributeValue(.integer64(Int64(id)), forKey: "id")
        for (name, type) in attributes { try thing.setAttributeValue(value(type, &random), forKey: name) }
    }

    /// A constant in predicate syntax, of a random type (mostly the attribute's own).
    static func constant(for type: AttributeType, _ random: inout RandomGraph.Generator) -> String {
        var kind = type
        if Int.random(in: 0..<6, using: &random) == 0 {
            kind = [.integer64, .double, .string, .boolean, .date].randomElement(using: &random)!
        }
        if Int.random(in: 0..<10, using: &random) == 0 { return "nil" }
        switch kind {
        case .integer16, .integer32, .integer64: return "\(integers.randomElement(using: &random)!)"
        case .double, .float, .decimal:
            let r = reals.filter(\.isFinite).randomElement(using: &random)!
            return "\(r)"
        case .boolean: return Bool.random(using: &random) ? "YES" : "NO"
        case .date: return "CAST(\(dates.randomElement(using: &random)!), \"NSDate\")"
        default:
            let s = strings.randomElement(using: &random)!
            return "'\(s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'"))'"
        }
    }

    /// A random comparison, negation or combination.
    static func predicate(_ random: inout RandomGraph.Generator, depth: Int = 0) -> String {
        let roll = Int.random(in: 0..<10, using: &random)
        if depth < 2 && roll == 0 { return "NOT (\(predicate(&random, depth: depth + 1)))" }
        if depth < 2 && roll <= 2 {
            let joiner = roll == 1 ? "AND" : "OR"
            return "(\(predicate(&random, depth: depth + 1))) \(joiner) (\(predicate(&random, depth: depth + 1)))"
        }
        let (name, type) = attributes.randomElement(using: &random)!
        if type == .string && Bool.random(using: &random) {
            let op = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "==", "<", ">=", "!="].randomElement(
                using: &random)!
            let options = ["", "[c]", "[d]", "[cd]"].randomElement(using: &random)!
            let right =
                Int.random(in: 0..<4, using: &random) == 0
                ? "other" : "'\(strings.randomElement(using: &random)!)'"
            return "\(name) \(op)\(options) \(right)"
        }
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            return
                "\(name) BETWEEN {\(constant(for: type, &random)), \(constant(for: type, &random))}"
        case 1:
            return "\(name) IN {\(constant(for: type, &random)), \(constant(for: type, &random))}"
        case 2:
            // Against another attribute.
            let (other, _) = attributes.randomElement(using: &random)!
            return "\(name) \(["==", "!=", "<", ">="].randomElement(using: &random)!) \(other)"
        case 3 where [.integer16, .integer32, .integer64, .double, .float, .decimal].contains(type):
            // Arithmetic and functions of numbers.
            let left = [
                "\(name) + 1", "\(name) * 2", "\(name) - i32", "abs(\(name))", "\(name) / 2", "-\(name)",
            ].randomElement(using: &random)!
            let op = ["==", "!=", "<", ">="].randomElement(using: &random)!
            return "\(left) \(op) \(constant(for: .double, &random))"
        default:
            let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
            return "\(name) \(op) \(constant(for: type, &random))"
        }
    }

    /// The ids of what a fetch returns, in its order.
    static func ids(_ context: ManagedObjectContext, _ request: FetchRequest) throws -> [String] {
        try context.fetch(request).map { try $0.attributeValue(forKey: "id").literalText }
    }

    /// ``ids(_:_:)``, or the error the fetch threw (so that two stores failing alike agree, and differently do not).
    static func answer(_ context: ManagedObjectContext, _ request: FetchRequest) -> [String] {
        do {
            return try ids(context, request)
        } catch {
            return ["error: \(error)"]
        }
    }

    @Test func sqlAndMemoryAnswerAlikeOverEveryType() throws {
        SQLiteStore.register()
        XMLStore.register()
        let model = try Self.model()
        for seed in UInt64(1)...4 {
            var random = RandomGraph.Generator(state: seed &* 1_000_003)
            let url = try Fixtures.temporaryDirectory().appendingPathComponent("things.sqlite")
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for id in 0..<60 { try Self.insertThing(id, into: context, &random) }
            try context.save()
            let copy = try Fixtures.temporaryDirectory().appendingPathComponent("things.xml")
            let source = PersistentStoreCoordinator(model: model)
            try source.addPersistentStore(type: SQLiteStore.typeName, url: url)
            try source.migratePersistentStore(source.persistentStores[0], to: copy, type: XMLStore.typeName)
            let (sql, memory) = (
                ManagedObjectContext(coordinator: coordinator), ManagedObjectContext(coordinator: source)
            )
            for _ in 0..<300 {
                let format = Self.predicate(&random)
                let predicate: ObjectPredicate
                do {
                    predicate = try ObjectPredicate(format: format)
                } catch {
                    Issue.record("seed \(seed): \(format) does not parse: \(error)")
                    continue
                }
                // Sorted by a random attribute (and the id, which is unique), perhaps limited.
                let (key, _) = Self.attributes.randomElement(using: &random)!
                let comparison = [ObjectSortDescriptor.Comparison.compare, .caseInsensitive, .localizedStandard]
                    .randomElement(using: &random)!
                var request = FetchRequest(
                    entityName: "Thing", predicate: predicate,
                    sortDescriptors: [
                        ObjectSortDescriptor(
                            keyPath: key, ascending: Bool.random(using: &random), comparison: comparison),
                        ObjectSortDescriptor(keyPath: "id"),
                    ])
                if Bool.random(using: &random) {
                    request.fetchLimit = Int.random(in: 1...10, using: &random)
                    request.fetchOffset = Int.random(in: 0...5, using: &random)
                }
                let inSQL = Self.answer(sql, request)
                let inMemory = Self.answer(memory, request)
                #expect(inSQL == inMemory, "seed \(seed): \(format) sorted by \(key) (\(comparison))")
                // Unsorted: in key order either way (an indexed predicate's rows found in the index's order).
                var unsorted = FetchRequest(entityName: "Thing", predicate: predicate)
                unsorted.fetchLimit = request.fetchLimit
                unsorted.fetchOffset = request.fetchOffset
                #expect(
                    Self.answer(sql, unsorted) == Self.answer(memory, unsorted), "seed \(seed): \(format) unsorted")
                // The same fetch in batches, as faults, or as IDs and a count, gives the same objects.
                var batched = request
                batched.fetchBatchSize = Int.random(in: 1...7, using: &random)
                var faults = request
                faults.returnsObjectsAsFaults = true
                faults.includesPropertyValues = Bool.random(using: &random)
                for (variant, other) in [("batches", batched), ("faults", faults)] {
                    #expect(Self.answer(sql, other) == inSQL, "seed \(seed): \(format) in \(variant)")
                }
                let objects = try sql.fetch(request).map(\.objectID)
                #expect(try sql.fetchObjectIDs(request) == objects, "seed \(seed): \(format) as IDs")
                #expect(try sql.count(for: request) == objects.count, "seed \(seed): \(format) counted")
            }
        }
    }
}

/// Fetches with unsaved changes (inserted, changed and deleted objects merged with the store's matches, sorted, then
/// limited) against the same fetches after the changes are saved: the same objects, in the same order.
struct RandomPendingChangesTests {
    @Test(arguments: StoreUnderTest.all.filter { $0.fileExtension != nil })
    func aFetchWithUnsavedChangesAnswersAsAfterTheSave(store: StoreUnderTest) throws {
        let model = try RandomValuePredicateTests.model()
        for seed in UInt64(1)...3 {
            var random = RandomGraph.Generator(state: seed &* 998_244_353)
            let (coordinator, _) = try store.makeStore(model: model, named: "things")
            let context = ManagedObjectContext(coordinator: coordinator)
            var next = 0
            func insert() throws {
                try RandomValuePredicateTests.insertThing(next, into: context, &random)
                next += 1
            }
            for _ in 0..<40 { try insert() }
            try context.save()
            for round in 0..<6 {
                // Unsaved: a few new objects, changed values, deletions.
                for _ in 0..<4 { try insert() }
                let things = try context.fetch(FetchRequest(entityName: "Thing"))
                for _ in 0..<8 {
                    let (name, type) = RandomValuePredicateTests.attributes.randomElement(using: &random)!
                    try things.randomElement(using: &random)!.setAttributeValue(
                        RandomValuePredicateTests.value(type, &random), forKey: name)
                }
                for _ in 0..<2 { context.delete(things.randomElement(using: &random)!) }
                var requests: [FetchRequest] = []
                for _ in 0..<40 {
                    let (key, _) = RandomValuePredicateTests.attributes.randomElement(using: &random)!
                    var request = FetchRequest(
                        entityName: "Thing",
                        predicate: try ObjectPredicate(format: RandomValuePredicateTests.predicate(&random)),
                        sortDescriptors: [
                            ObjectSortDescriptor(keyPath: key, ascending: Bool.random(using: &random)),
                            ObjectSortDescriptor(keyPath: "id"),
                        ])
                    if Bool.random(using: &random) {
                        request.fetchLimit = Int.random(in: 1...10, using: &random)
                        request.fetchOffset = Int.random(in: 0...5, using: &random)
                    }
                    requests.append(request)
                }
                let before = try requests.map { try RandomValuePredicateTests.ids(context, $0) }
                // A count says how many a fetch returns (its limit and offset too).
                for (i, request) in requests.enumerated() {
                    #expect(try context.count(for: request) == before[i].count, "\(store), seed \(seed): count")
                }
                try context.save()
                let after = try requests.map { try RandomValuePredicateTests.ids(context, $0) }
                for (i, request) in requests.enumerated() {
                    #expect(try context.count(for: request) == after[i].count, "\(store), seed \(seed): count")
                }
                for (i, request) in requests.enumerated() where before[i] != after[i] {
                    Issue.record(
                        "\(store), seed \(seed), round \(round): \(request.predicate.map { "\($0)" } ?? "") sorted by \(request.sortDescriptors[0].keyPath), limit \(request.fetchLimit) offset \(request.fetchOffset): \(before[i]) unsaved, \(after[i]) saved"
                    )
                }
            }
        }
    }
}
