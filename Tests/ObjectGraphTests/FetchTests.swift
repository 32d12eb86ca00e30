import Foundation
import ObjectGraph
import Testing

struct FetchTests {
    static var employees: [PredicateValue] {
        [
            ("Ann", "Sales", 5000, "ann"), ("bob", "Sales", 4000, "Bob"), ("Cid", "IT", 7000, "cid"),
            ("Dee", "IT", 6500, nil), ("eve", "HR", 4500, "Eve"), ("file10", "HR", 3000, nil),
            ("file9", "HR", 3000, nil),
        ].map { name, department, salary, nick in
            .dictionary([
                "name": .string(name), "department": .string(department), "salary": .integer(Int64(salary)),
                "nickname": nick.map { .string($0) } ?? .null,
            ])
        }
    }

    private func names(_ result: FetchResult) -> [String] {
        guard case .objects(let objects) = result else { return [] }
        return objects.map { (try? $0.value(forKey: "name").string) ?? "?" }
    }

    @Test func filtersAndSorts() throws {
        var request = FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "salary >= 4500"))
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "salary", ascending: false)]
        #expect(names(try InMemoryFetch.execute(request, over: Self.employees)) == ["Cid", "Dee", "Ann", "eve"])
    }

    @Test func sortsByCodePointCaseInsensitiveAndLocalizedStandard() throws {
        var request = FetchRequest(entityName: "Employee")
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name")]
        #expect(
            names(try InMemoryFetch.execute(request, over: Self.employees)) == [
                "Ann", "Cid", "Dee", "bob", "eve", "file10", "file9",
            ])
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name", comparison: .caseInsensitive)]
        #expect(
            names(try InMemoryFetch.execute(request, over: Self.employees)) == [
                "Ann", "bob", "Cid", "Dee", "eve", "file10", "file9",
            ])
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "name", comparison: .localizedStandard)]
        #expect(
            names(try InMemoryFetch.execute(request, over: Self.employees)) == [
                "Ann", "bob", "Cid", "Dee", "eve", "file9", "file10",
            ])
    }

    @Test func sortsNilFirstAndBreaksTiesWithLaterDescriptors() throws {
        var request = FetchRequest(entityName: "Employee")
        request.sortDescriptors = [
            ObjectSortDescriptor(keyPath: "nickname"), ObjectSortDescriptor(keyPath: "name", ascending: false),
        ]
        #expect(
            names(try InMemoryFetch.execute(request, over: Self.employees)) == [
                "file9", "file10", "Dee", "bob", "eve", "Ann", "Cid",
            ])
        request.sortDescriptors = [
            ObjectSortDescriptor(parsing: "-department"), ObjectSortDescriptor(parsing: "salary"),
        ]
        #expect(
            names(try InMemoryFetch.execute(request, over: Self.employees)) == [
                "bob", "Ann", "Dee", "Cid", "file10", "file9", "eve",
            ])
    }

    @Test func offsetLimitAndCount() throws {
        var request = FetchRequest(entityName: "Employee", sortDescriptors: [ObjectSortDescriptor(keyPath: "salary")])
        request.fetchOffset = 2
        request.fetchLimit = 3
        #expect(names(try InMemoryFetch.execute(request, over: Self.employees)) == ["bob", "eve", "Ann"])
        request.resultType = .count
        guard case .count(let n) = try InMemoryFetch.execute(request, over: Self.employees) else {
            Issue.record("expected a count")
            return
        }
        #expect(n == 3)
        request.fetchOffset = 10
        guard case .count(let none) = try InMemoryFetch.execute(request, over: Self.employees) else { return }
        #expect(none == 0)
    }

    @Test func dictionaryResultsWithDistinct() throws {
        var request = FetchRequest(entityName: "Employee", resultType: .dictionary)
        request.propertiesToFetch = [.property("department")]
        request.returnsDistinctResults = true
        request.sortDescriptors = [ObjectSortDescriptor(keyPath: "department")]
        guard case .dictionaries(let rows) = try InMemoryFetch.execute(request, over: Self.employees) else {
            Issue.record("expected dictionaries")
            return
        }
        #expect(rows.map { $0["department"]?.string } == ["HR", "IT", "Sales"])
    }

    @Test func aggregateExpressions() throws {
        var request = FetchRequest(entityName: "Employee", resultType: .dictionary)
        request.propertiesToFetch = ExpressionDescription.Aggregate.allCases.map {
            .expression(.aggregate($0, of: "salary", as: $0.rawValue))
        }
        guard case .dictionaries(let rows) = try InMemoryFetch.execute(request, over: Self.employees) else {
            Issue.record("expected dictionaries")
            return
        }
        #expect(rows.count == 1)
        let row = rows[0]
        #expect(ValueComparisonHelper.equal(row["sum"], .integer(33000)))
        #expect(ValueComparisonHelper.equal(row["count"], .integer(7)))
        #expect(ValueComparisonHelper.equal(row["min"], .integer(3000)))
        #expect(ValueComparisonHelper.equal(row["max"], .integer(7000)))
        #expect(ValueComparisonHelper.equal(row["average"], .double(33000.0 / 7)))
    }

    @Test func groupedAggregatesWithHaving() throws {
        var request = FetchRequest(entityName: "Employee", resultType: .dictionary)
        request.propertiesToFetch = [.property("department"), .expression(.aggregate(.max, of: "salary", as: "top"))]
        request.propertiesToGroupBy = ["department"]
        request.havingPredicate = try ObjectPredicate(format: "top > 4500")
        guard case .dictionaries(let rows) = try InMemoryFetch.execute(request, over: Self.employees) else {
            Issue.record("expected dictionaries")
            return
        }
        #expect(rows.map { $0["department"]?.string } == ["Sales", "IT"])
        #expect(ValueComparisonHelper.equal(rows[1]["top"], .integer(7000)))
    }

    @Test func templatesFromAModel() throws {
        let model = try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Employee", attributes: [AttributeDescription(name: "salary", type: .integer32)])
            ],
            fetchRequestTemplates: [
                FetchRequestTemplate(
                    name: "Earners", entity: "Employee", predicate: "salary > $floor", fetchLimit: 2,
                    resultType: .dictionary),
                FetchRequestTemplate(name: "Broken", entity: "Employee", predicate: "salary >"),
            ])
        let request = try model.fetchRequest(fromTemplate: "Earners", substitutionVariables: ["floor": .integer(4500)])
        #expect(request.predicate?.format == "salary > 4500")
        #expect(request.fetchLimit == 2)
        #expect(request.resultType == .dictionary)
        let missing = try #require(throws: ObjectPredicateError.self) {
            try model.fetchRequest(fromTemplate: "Earners")
        }
        #expect(missing.code == .missingVariable && missing.message.contains("$floor"))
        let unknown = try #require(throws: ObjectPredicateError.self) { try model.fetchRequest(fromTemplate: "Nope") }
        #expect(unknown.code == .unknownTemplate && unknown.message.contains("Earners"))
        let broken = try #require(throws: ObjectPredicateError.self) { try model.fetchRequest(fromTemplate: "Broken") }
        #expect(broken.code == .syntaxError)
    }
}

/// Equality of optional runtime values for expectations.
enum ValueComparisonHelper {
    static func equal(_ a: PredicateValue?, _ b: PredicateValue) -> Bool {
        guard let a else { return false }
        let p = ObjectPredicate.comparison(Comparison(.variable("a"), .equal, .variable("b")))
        return (try? p.evaluate(with: .null, variables: ["a": a, "b": b])) ?? false
    }
}
