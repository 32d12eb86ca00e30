import Foundation
import ObjectGraph
import TestSupport
import Testing

struct FormatArgumentTests {
    let person = PredicateTestData.person

    @Test func objectArgumentsBecomeConstants() throws {
        let p = try ObjectPredicate(format: "name == %@ AND age > %@", "Alice", 20)
        #expect(p.format == "name == \"Alice\" AND age > 20")
        #expect(try p.evaluate(with: person))
    }

    @Test func keyPathArgumentsBecomeKeyPaths() throws {
        let p = try ObjectPredicate(format: "%K == %@", .keyPath("address.city"), "Paris")
        #expect(p.format == "address.city == \"Paris\"")
        #expect(try p.evaluate(with: person))
        #expect(try ObjectPredicate(format: "friends.%K CONTAINS %@", .keyPath("name"), "Bob").evaluate(with: person))
    }

    @Test func printfSpecifiers() throws {
        let p = try ObjectPredicate(
            format: "age == %d AND age == %i AND age == %ld AND height > %f AND name == %s", 30, 30, 30, 1.5, "Alice")
        #expect(try p.evaluate(with: person))
        #expect(try ObjectPredicate(format: "age == %lld", 30).format == "age == 30")
        #expect(try ObjectPredicate(format: "height < %lf", 2).format == "height < 2.0")
    }

    @Test func otherArgumentKinds() throws {
        let date = PredicateTestData.birthday
        #expect(try ObjectPredicate(format: "birthday == %@", FormatArgument(date)).evaluate(with: person))
        #expect(try ObjectPredicate(format: "nickname == %@", nil).evaluate(with: person))
        #expect(try ObjectPredicate(format: "age IN %@", [29, 30]).evaluate(with: person))
        #expect(
            try ObjectPredicate(format: "uuid == %@", FormatArgument(PredicateTestData.uuid)).evaluate(with: person))
        #expect(
            try ObjectPredicate(format: "salary == %@", FormatArgument(Decimal(string: "5000.5")!)).evaluate(
                with: person))
        #expect(try ObjectPredicate(format: "isActive == %@", true).evaluate(with: person))
    }

    @Test func quotedSpecifiersAreText() throws {
        let p = try ObjectPredicate(format: "name == \"%@\"")
        #expect(p == .comparison(Comparison(.key("name"), .equal, .string("%@"))))
        #expect(try ObjectPredicate(format: "name == %% OR name == %@", "x").format == "name == \"%\" OR name == \"x\"")
    }

    @Test func missingAndWrongArgumentsAreErrors() throws {
        let missing = try #require(throws: PredicateSyntaxError.self) {
            try ObjectPredicate(format: "a == %@ AND b == %@", 1)
        }
        #expect(missing.offset == 17)
        #expect(missing.expected.contains("argument for %@"))
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "%K == 1", 5) }
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "a == %d", "x") }
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "a == %f", "x") }
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "a == %s", 5) }
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "a == %y", 5) }
    }
}

struct PredicateSyntaxErrorTests {
    @Test(arguments: [
        ("", 0, "end of input"), ("a ==", 4, "end of input"), ("a == )", 5, "')'"), ("== 1", 0, "'=='"),
        ("a 1", 2, "1"), ("a == 1 AND", 10, "end of input"), ("(a == 1", 7, "end of input"), ("a == 1)", 6, "')'"),
        ("a == \"abc", 5, "unterminated string"), ("a == 1 b == 2", 7, "'b'"), ("a ==[x] 1", 5, "'x'"),
        ("a IN {1, 2", 10, "end of input"), ("SUBQUERY(a, x, TRUEPREDICATE)", 12, "'x'"),
        ("CAST(1, 2)", 8, "2"), ("a.", 2, "end of input"), ("a == $", 5, "'$' must be followed"),
        ("a == 1 ? 2", 7, "unexpected character '?'"), ("isActive", 8, "end of input"), ("a == 0x", 5, "bad base-16"),
        ("a == 12abc", 7, "a number runs into a word"), ("é == ", 5, "end of input"),
        ("a == #", 5, "'#' must be followed"),
        ("a == @", 5, "'@' must be followed"), ("NOT", 3, "end of input"), ("a == \"\\u12\"", 8, "bad escape"),
    ])
    func reportsTheOffsetAndWhatWasFound(format: String, offset: Int, found: String) throws {
        let error = try #require(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: format) }
        #expect(error.offset == offset, "\(error)")
        #expect(error.found.contains(found), "\(error)")
        #expect(!error.expected.isEmpty)
    }

    @Test func descriptionShowsACaretUnderThePlace() throws {
        let error = try #require(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: "name == )") }
        #expect(
            error.description == "syntax error at offset 8: expected an expression, found ')'\n  name == )\n          ^"
        )
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let deep = String(repeating: "(", count: 5_000) + "a == 1" + String(repeating: ")", count: 5_000)
        let error = try #require(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: deep) }
        #expect(error.expected.contains("nesting"))
        let deepNot = String(repeating: "NOT ", count: 5_000) + "a == 1"
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: deepNot) }
        let deepMinus = "a == " + String(repeating: "-", count: 5_000) + "1"
        #expect(throws: PredicateSyntaxError.self) { try ObjectPredicate(format: deepMinus) }
        // Moderate nesting is fine.
        let fine = String(repeating: "(", count: 40) + "a == 1" + String(repeating: ")", count: 40)
        #expect(try ObjectPredicate(format: fine) == ObjectPredicate(format: "a == 1"))
    }
}

struct SubstitutionTests {
    @Test func substitutesVariables() throws {
        let p = try ObjectPredicate(format: "name == $name AND age > $age")
        #expect(p.variableNames == ["age", "name"])
        let q = try p.substituting(["name": .string("Alice"), "age": .integer(20)])
        #expect(q.format == "name == \"Alice\" AND age > 20")
        #expect(q.variableNames.isEmpty)
        #expect(try q.evaluate(with: PredicateTestData.person))
    }

    @Test func aMissingVariableIsAnErrorNamingIt() throws {
        let p = try ObjectPredicate(format: "name == $name AND age > $age")
        let error = try #require(throws: ObjectPredicateError.self) { try p.substituting(["name": .string("x")]) }
        #expect(error.code == .missingVariable)
        #expect(error.message.contains("$age"))
        let evaluationError = try #require(throws: ObjectPredicateError.self) {
            try p.evaluate(with: PredicateTestData.person)
        }
        #expect(evaluationError.message.contains("$name"))
    }

    @Test func subqueryVariablesAreNotSubstituted() throws {
        let p = try ObjectPredicate(format: "SUBQUERY(friends, $f, $f.age > $min).@count > 0")
        #expect(p.variableNames == ["min"])
        let q = try p.substituting(["min": .integer(30)])
        #expect(q.format == "SUBQUERY(friends, $f, $f.age > 30).@count > 0")
        #expect(try q.evaluate(with: PredicateTestData.person))
    }

    @Test func variablesCanBeGivenAtEvaluation() throws {
        let p = try ObjectPredicate(format: "age > $limit")
        #expect(try p.evaluate(with: PredicateTestData.person, variables: ["limit": .integer(10)]))
        #expect(try !p.evaluate(with: PredicateTestData.person, variables: ["limit": .integer(40)]))
    }

    @Test func partialSubstitutionKeepsTheRest() throws {
        let p = try ObjectPredicate(format: "a == $x AND b == $y")
        #expect(p.substitutingAvailable(["x": .integer(1)]).format == "a == 1 AND b == $y")
    }

    @Test func unsupportedFunctionsAreErrors() throws {
        for format in [
            "FUNCTION(SELF, 'description') == 1", "ANYKEY == 1", "nosuch(1) == 1",
            "distanceToLocation:fromLocation:(a, b) < 1", "CAST(name, \"NSWidget\") == 1", "name + 1 == 2",
        ] {
            #expect(throws: ObjectPredicateError.self, "\(format)") {
                try ObjectPredicate(format: format).evaluate(with: PredicateTestData.person)
            }
        }
    }

    @Test func expressionsParseAndEvaluateAlone() throws {
        let e = try ObjectExpression(format: "age * 2 + friends.@count")
        #expect(e.format == "age * 2 + friends.@count")
        guard case .integer(63) = try e.value(with: PredicateTestData.person) else {
            Issue.record("expected 63")
            return
        }
        #expect(throws: PredicateSyntaxError.self) { try ObjectExpression(format: "a ==") }
    }

    @Test func programmaticPredicatesPrint() {
        let p = ObjectPredicate.and([
            .comparison(
                Comparison(
                    .key("tags.name"), .beginsWith, .string("a"), modifier: .any,
                    options: [.caseInsensitive, .diacriticInsensitive])),
            .not(.or([.true, .false])),
        ])
        #expect(p.format == "ANY tags.name BEGINSWITH[cd] \"a\" AND NOT (TRUEPREDICATE OR FALSEPREDICATE)")
        #expect(ObjectPredicate.comparison(Comparison(.key("size"), .equal, .integer(1))).format == "#size == 1")
    }
}

/// A class with key-value access, standing in for managed objects.
final class Node: KeyValueCoding {
    var values: [String: PredicateValue]
    init(_ values: [String: PredicateValue]) { self.values = values }
    func predicateValue(forKey key: String) -> PredicateValue { values[key] ?? .null }
}

struct ObjectEvaluationTests {
    @Test func objectsAreReadByKeyAndComparedByIdentity() throws {
        let parent = Node(["name": .string("root")])
        let child = Node(["name": .string("leaf"), "parent": .object(parent)])
        parent.values["children"] = .collection([.object(child)], ordered: false)
        #expect(try ObjectPredicate(format: "parent.name == \"root\"").evaluate(with: .object(child)))
        #expect(try ObjectPredicate(format: "ANY children.name == \"leaf\"").evaluate(with: .object(parent)))
        #expect(try ObjectPredicate(format: "children.@count == 1").evaluate(with: .object(parent)))
        let samePredicate = ObjectPredicate.comparison(Comparison(.key("parent"), .equal, .evaluatedObject))
        #expect(try !samePredicate.evaluate(with: .object(child)))
        #expect(
            try ObjectPredicate(format: "SUBQUERY(children, $c, $c.parent == SELF).@count == 1").evaluate(
                with: .object(parent)))
    }
}
