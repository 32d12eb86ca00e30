import Foundation
import TestSupport
import Testing

struct PredicateCommandTests {
    @Test func printsTheCanonicalForm() throws {
        let result = try Docutil.run(["predicate", "age>30 and name beginswith[C] 'a' or not(x=nil)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "(age > 30 AND name BEGINSWITH[c] \"a\") OR NOT x == nil\n")
    }

    @Test func substitutesVariablesReadAsLiterals() throws {
        let result = try Docutil.run([
            "predicate", "title == $t AND pages > $p AND signed == $s AND id IN $ids AND other == $other",
            "--var", "t='Dune'", "--var", "p=70", "--var", "s=YES", "--var", "ids={1, 2}",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == "title == \"Dune\" AND pages > 70 AND signed == YES AND id IN {1, 2} AND other == $other\n"
        )
    }

    @Test func jsonIsTheParseTree() throws {
        let result = try Docutil.run(["predicate", "--format", "json", "ANY tags.name ==[cd] $n"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["formatVersion"] as? Int == 1)
        #expect(json["predicate"] as? String == "ANY tags.name ==[cd] $n")
        #expect(json["variables"] as? [String] == ["n"])
        let tree = try #require(json["tree"] as? [String: Any])
        #expect(tree["type"] as? String == "comparison")
        #expect(tree["modifier"] as? String == "ANY")
        #expect(tree["options"] as? [String] == ["c", "d"])
        #expect((tree["left"] as? [String: Any])?["path"] as? [String] == ["tags", "name"])
        #expect((tree["right"] as? [String: Any])?["type"] as? String == "variable")
    }

    @Test func syntaxErrorsShowThePlaceAndExit65() throws {
        let result = try Docutil.run(["predicate", "name == )"])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("syntax error at offset 8: expected an expression, found ')'"))
        #expect(result.stderr.contains("  name == )\n          ^"))
    }

    @Test func badVariablesAreUsageErrors() throws {
        let noEquals = try Docutil.run(["predicate", "a == $a", "--var", "a"])
        #expect(noEquals.status == 64)
        #expect(noEquals.stderr.contains("NAME=VALUE"))
        let notLiteral = try Docutil.run(["predicate", "a == $a", "--var", "a=b.c"])
        #expect(notLiteral.status == 64)
        #expect(notLiteral.stderr.contains("not a literal"))
    }

    /// A variable given twice, or one the predicate does not have (a typo: `$Prefix` for `$prefix`), is a usage
    /// error in `predicate` and in `query` (with `--where` or a template), never the last value or an ignored one.
    @Test func aVariableGivenTwiceOrNotUsedIsAUsageError() throws {
        let library = Fixtures.project("Library.xml").path
        let cases: [([String], String)] = [
            (["predicate", "a == $a", "--var", "a=1", "--var", "a=2"], "--var a is given twice"),
            (["predicate", "a == $a", "--var", "b=1"], "--var b: the predicate has no variable $b (it has: $a)"),
            (
                [
                    "query", library, "--entity", "Book", "--where", "title == $t", "--var", "t='Dune'", "--var",
                    "t='Emma'",
                ],
                "--var t is given twice"
            ),
            (
                ["query", library, "--entity", "Book", "--where", "title == $t", "--var", "t='Dune'", "--var", "u=1"],
                "the predicate has no variable $u"
            ),
            (
                ["query", library, "--entity", "Book", "--template", "BooksByTitle", "--var", "Prefix='Du'"],
                "--var Prefix: the predicate has no variable $Prefix (it has: $prefix)"
            ),
            (["query", library, "--entity", "Book", "--var", "t=1"], "--var needs --where or --template"),
        ]
        for (arguments, message) in cases {
            let result = try Docutil.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let used = try Docutil.run(
            [
                "query", library, "--entity", "Book", "--template", "BooksByTitle", "--var", "prefix='Du'", "--format",
                "csv",
            ])
        #expect(used.status == 0 && used.stdout.contains("Dune"), "\(used.stderr)")
    }
}
