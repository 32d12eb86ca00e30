import Foundation
import ObjectGraph
import TestSupport
import Testing

/// The object graph never invents an answer: unknown entities and keys, faults that cannot be read, values that do
/// not fit, and inputs built to exhaust the stack or the clock all end in errors.
struct DataSafetyTests {
    @Test func anObjectIDOfAnUnknownEntityIsAnError() throws {
        let context = try Company.context()
        let id = ManagedObjectID(entityName: "Gadget", storeIdentifier: "S", primaryKey: 1)
        #expect(throws: ObjectGraphError.self) { try context.object(with: id) }
        do {
            _ = try context.object(with: id)
        } catch {
            #expect(error.code == .unknownEntity)
            #expect(error.objectID == id)
        }
    }

    @Test func refreshingAnObjectDeletedElsewhereReportsIt() throws {
        let context = try Company.context()
        let sales = try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        other.delete(try other.existingObject(with: sales.objectID))
        try other.save()
        try sales.setValue(.string("Renamed"), forKey: "name")
        #expect(throws: ContextError.self) { try context.refresh(sales, mergeChanges: true) }
        // The object keeps its own change: nothing was merged in from nowhere.
        #expect(try sales.attributeValue(forKey: "name") == .string("Renamed"))
    }

    @Test func typedSettersReportValuesThatDoNotFit() throws {
        let context = try Catalog.context()
        let item = try context.insertNewObject(forEntityName: "Item")
        #expect(throws: ObjectGraphError.self) { try item.set(40_000, forKey: "small") }
        #expect(throws: ObjectGraphError.self) { try item.set(0.1, forKey: "ratio") }
        #expect(throws: ObjectGraphError.self) { try item.set("x", forKey: "nope") }
        try item.set(Int16(12), forKey: "small")
        try item.set(0.5, forKey: "ratio")
        #expect(try item.value(forKey: "small", as: Int.self) == 12)
        #expect(try item.value(forKey: "ratio", as: Float.self) == 0.5)
        #expect(throws: ObjectGraphError.self) { try item.value(forKey: "small", as: String.self) }
    }

    @Test(arguments: [
        ("nosuchkey == 3", "nosuchkey"), ("department.nosuch == 'x'", "nosuch"),
        ("ANY employees.nosuch > 1", "nosuch"), ("SUBQUERY(employees, $e, $e.nosuch == 1).@count > 0", "nosuch"),
        ("employees.@bogus.salary > 1", "@bogus"),
    ])
    func unknownKeysInPredicatesAreErrors(format: String, key: String) throws {
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        let entity = format.hasPrefix("department") ? "Employee" : "Department"
        let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
        do {
            _ = try context.fetch(request)
            Issue.record("\(format) fetched without an error")
        } catch {
            guard case .predicate(let predicateError) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(predicateError.code == .unknownKey)
            #expect(predicateError.message.contains(key))
        }
    }

    @Test func unknownSortKeysAreErrors() throws {
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        let request = FetchRequest(entityName: "Employee", sortDescriptors: [ObjectSortDescriptor(keyPath: "nosuch")])
        #expect(throws: ContextError.self) { try context.fetch(request) }
    }

    @Test func anInvalidRegularExpressionIsAnError() throws {
        let predicate = try ObjectPredicate(format: "name MATCHES '('")
        do {
            _ = try predicate.evaluate(with: ["name": .string("(")])
            Issue.record("an invalid pattern matched or not")
        } catch {
            #expect(error.code == .invalidPattern)
        }
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        #expect(throws: ContextError.self) {
            try context.fetch(FetchRequest(entityName: "Employee", predicate: predicate))
        }
    }

    @Test func nestingPastTheLimitIsASyntaxErrorNotACrash() throws {
        let cases = [
            "1" + String(repeating: " + 1", count: 5000) + " == 2",
            "a" + String(repeating: "[FIRST]", count: 5000) + " == 1",
            String(repeating: "NOT ", count: 5000) + "a == 1",
            String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000),
            String(repeating: "SUBQUERY(x, $v, ", count: 300) + "TRUEPREDICATE"
                + String(repeating: ").@count > 0", count: 300),
            "a == " + String(repeating: "-", count: 5000) + "1",
            String(repeating: "{", count: 5000) + String(repeating: "}", count: 5000) + " == a",
        ]
        for format in cases {
            #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: format) }
        }
    }

    @Test func nestedSubqueriesTakeLinearTime() throws {
        // 26 nested subqueries over two elements each: 2^26 evaluations if each inner one were re-entered.
        var format = "TRUEPREDICATE"
        for level in 0..<26 { format = "SUBQUERY(items, $v\(level), \(format)).@count == 2" }
        let predicate = try ObjectPredicate(format: format)
        let row: [String: PredicateValue] = [
            "items": .collection([.dictionary(["n": .integer(1)]), .dictionary(["n": .integer(2)])], ordered: true)
        ]
        #expect(try predicate.evaluate(with: row))
    }

    @Test func workThatCannotBeMemoisedHasABudget() throws {
        // Each level uses the variable of the level around it: genuinely exponential, so it is cut off.
        var format = "$v0.n == 1"
        for level in (1..<30).reversed() {
            format =
                "SUBQUERY(items, $v\(level), \(format.replacingOccurrences(of: "$v0", with: "$v\(level)"))).@count == 2"
        }
        let items = PredicateValue.collection(
            (0..<8).map {
                PredicateValue.dictionary(["n": .integer(Int64($0)), "items": .collection([], ordered: true)])
            },
            ordered: true)
        var row: [String: PredicateValue] = ["items": items]
        row["n"] = .integer(1)
        let predicate = try ObjectPredicate(format: format)
        do {
            _ = try predicate.evaluate(with: row)
        } catch {
            #expect(error.code == .tooComplex || error.code == .missingVariable)
        }
    }

    @Test func theSmallestIntegerPrintsAsItselfAndRoundTrips() throws {
        for format in ["x == -9223372036854775808", "x == -0x8000000000000000", "x == -(-9223372036854775808)"] {
            let predicate = try ObjectPredicate(format: format)
            #expect(!predicate.format.contains("--"), "\(predicate.format)")
            #expect(try ObjectPredicate(format: predicate.format) == predicate)
        }
        #expect(try ObjectPredicate(format: "x == -9223372036854775808").format == "x == -9223372036854775808")
    }

    @Test func objectIDURIsEscapeWhateverTheStoreUUIDHolds() throws {
        for uuid in ["A B", "a/b", "%41", "x?y#z", "ü", ""] {
            let id = ManagedObjectID(entityName: "Item", storeIdentifier: uuid, primaryKey: 7)
            let uri = id.uriRepresentation
            #expect(uri.scheme == "x-coredata")
            if uuid.isEmpty {
                #expect(ManagedObjectID(uriRepresentation: uri) == nil)
            } else {
                #expect(ManagedObjectID(uriRepresentation: uri) == id, "\(uuid) → \(uri)")
            }
        }
    }
}
