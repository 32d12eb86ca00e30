import Foundation
import ObjectGraph

/// Issue 3: evaluating a simple comparison over 100,000 dictionary rows, against a hand-written Swift loop over the
/// same rows; parsing and printing a typical predicate.
enum PredicateBenchmarks {
    static func run() throws {
        let rowCount = 100_000
        let rows: [PredicateValue] = (0..<rowCount).map { i in
            .dictionary([
                "name": .string("person \(i)"), "age": .integer(Int64(i % 90)), "score": .double(Double(i) / 7),
                "city": .string(i % 3 == 0 ? "Zürich" : "Paris"),
            ])
        }
        print("Predicates over \(rowCount) dictionary rows")

        // Baseline: the same test written by hand in Swift, reading the same dictionaries.
        var handCount = 0
        let hand = Benchmark(name: "hand").measure {
            handCount = 0
            for row in rows {
                if case .dictionary(let d) = row, case .integer(let age)? = d["age"], age > 30 { handCount += 1 }
            }
        }
        report("hand-written Swift loop: age > 30", seconds: hand)

        let simple = try ObjectPredicate(format: "age > 30")
        var count = 0
        let evaluated = try Benchmark(name: "eval").measure {
            count = 0
            for row in rows where try simple.evaluate(with: row) { count += 1 }
        }
        precondition(count == handCount, "predicate and hand-written loop disagree")
        report("ObjectPredicate.evaluate: age > 30", seconds: evaluated, baseline: hand, goal: "goal < 100 ms")

        let request = FetchRequest(entityName: "Person", predicate: simple)
        let fetched = try Benchmark(name: "fetch").measure {
            blackHole(try InMemoryFetch.execute(request, over: rows))
        }
        report("InMemoryFetch: age > 30 (filter only)", seconds: fetched, baseline: hand)

        let compound = try ObjectPredicate(
            format: "age BETWEEN {20, 40} AND city ==[cd] 'zurich' OR name BEGINSWITH 'person 9'")
        let compoundTime = try Benchmark(name: "compound").measure {
            var n = 0
            for row in rows where try compound.evaluate(with: row) { n += 1 }
            blackHole(n)
        }
        report("compound with [cd] and BEGINSWITH", seconds: compoundTime, baseline: hand)

        let text =
            "ANY friends.name BEGINSWITH[cd] $prefix AND age > 30 AND SUBQUERY(items, $x, $x.price > 5).@count > 2"
        let parseTime = try Benchmark(name: "parse").measure {
            for _ in 0..<10_000 { blackHole(try ObjectPredicate(format: text)) }
        }
        report("parse a 100-character predicate × 10,000", seconds: parseTime)
        let parsed = try ObjectPredicate(format: text)
        let printTime = Benchmark(name: "print").measure {
            for _ in 0..<10_000 { blackHole(parsed.format) }
        }
        report("print it × 10,000", seconds: printTime)
    }
}
