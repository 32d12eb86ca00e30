import Foundation
import TestSupport
import Testing

/// The command line as people expect it: option values that start with '-', '-' for standard input and output,
/// progress only on a terminal, completions, one form for every diagnostic, man pages for every verb.
struct ConventionsCommandTests {
    static let library = Fixtures.project("Library.xml").path

    @Test func optionValuesMayStartWithADash() throws {
        let result = try Docutil.run([
            "query", Self.library, "--entity", "Book", "--sort", "-title", "--format", "csv",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let titles = result.stdout.split(separator: "\r\n").dropFirst().map { $0.split(separator: ",").last ?? "" }
        #expect(titles.count == 2)
        #expect(result.stdout.range(of: "Emma")!.lowerBound < result.stdout.range(of: "Dune")!.lowerBound)
        let two = try Docutil.run(["query", Self.library, "--entity", "Book", "--sort", "-pages,title"])
        #expect(two.status == 0, "\(two.stderr)")
        // A negative limit is refused as a usage error naming the option, not read as an unknown option.
        let negative = try Docutil.run(["query", Self.library, "--entity", "Book", "--limit", "-1"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--limit must not be negative"))
    }

    @Test func aDashIsStandardInputForDocumentsAndStandardOutputForXML() throws {
        let folder = try Fixtures.temporaryDirectory()
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.library))
        let xml = try Docutil.run(["convert", Self.library, "-"], currentDirectory: folder)
        #expect(xml.status == 0, "\(xml.stderr)")
        #expect(xml.stdout.hasPrefix("<?xml"))
        #expect(xml.stdout.contains("<database>"))
        // Round trip through a pipe: what came out reads back equal to the original.
        let back = try Docutil.run(["diff", Self.library, "-"], input: Data(xml.stdout.utf8))
        #expect(back.status == 0, "\(back.stdout)\(back.stderr)")
        for arguments in [
            ["convert", Self.library, "-", "--to", "sqlite"], ["convert", Self.library, "-", "--to", "binary"],
            ["import", Self.library, "-", "--model", Fixtures.project("Library.xcdatamodeld").path],
            ["open", "-", "-c", "status"],
        ] {
            let refused = try Docutil.run(arguments, currentDirectory: folder, input: data)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("docutil: "))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
        let info = try Docutil.run(["info", "-", "--format", "json"], input: data)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"storeType\": \"XML\""))
        let session = try Docutil.run(["open", "-", "--read-only", "-c", "list Author"], input: data)
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("Frank Herbert"))
        let saveAs = try Docutil.run(
            ["open", Self.library, "--read-only", "-c", "save-as -"], currentDirectory: folder)
        #expect(saveAs.status != 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
        // Standard input is read once: two '-' is a usage error.
        #expect(try Docutil.run(["diff", "-", "-"], input: data).status == 64)
    }

    @Test func progressIsShownOnATerminalAndNeverInAPipe() throws {
        let environment = ["DOCUTIL_PROGRESS_DELAY": "0"]
        let folder = try Fixtures.temporaryDirectory()
        for (verb, word) in [("check", "checking"), ("dump", "dumping"), ("convert", "converting")] {
            let output = folder.appendingPathComponent("\(UUID().uuidString).sqlite").path
            let child = try ChildProcess(
                Docutil.executable, [verb, Self.library] + (verb == "convert" ? [output] : []),
                environment: environment, terminal: true)
            let shown = child.read(until: "objects (100%)", timeout: 30)
            #expect(shown?.contains("\(word): ") == true, "\(verb): \(shown ?? "nothing")")
            #expect(child.wait() == 0)
            let piped = try Docutil.run(
                [verb, Self.library] + (verb == "convert" ? [output + ".2.sqlite"] : []), environment: environment)
            #expect(piped.status == 0)
            #expect(!piped.stderr.contains(word), "\(verb): \(piped.stderr)")
            #expect(!piped.stdout.contains(word))
        }
        // An import reports records read, on a terminal only.
        let shelves = "label\n" + (0..<3000).map { "Shelf \($0)\n" }.joined()
        let source = folder.appendingPathComponent("Shelf.csv")
        try Data(shelves.utf8).write(to: source)
        let model = Fixtures.project("Library.xcdatamodeld").path
        let importing = try ChildProcess(
            Docutil.executable, ["import", source.path, folder.appendingPathComponent("i.xml").path, "--model", model],
            environment: environment, terminal: true)
        let shown = importing.read(until: "records/s", timeout: 30)
        #expect(shown?.contains("importing Shelf.csv: ") == true, "import: \(shown ?? "nothing")")
        #expect(importing.wait() == 0)
        let piped = try Docutil.run(
            ["import", source.path, folder.appendingPathComponent("p.xml").path, "--model", model],
            environment: environment)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stderr.contains("importing"))
    }

    @Test func shellCompletionScriptsAreGenerated() throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try Docutil.run(["--generate-completion-script", shell])
            #expect(result.status == 0, "\(shell): \(result.stderr)")
            #expect(result.stdout.contains("docutil"))
            #expect(result.stdout.contains("check") && result.stdout.contains("diff"))
        }
    }

    @Test func everyDiagnosticNamesTheToolAndEveryStatusIsDocumented() throws {
        let missing = try Docutil.run(["dump", "/nonexistent/library.xml"])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("docutil: /nonexistent/library.xml: "))
        let unknown = try Docutil.run(["dump", Self.library, "--frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("docutil: "))
        let verb = try Docutil.run(["frobnicate"])
        #expect(verb.status == 64)
        #expect(verb.stderr.hasPrefix("docutil: "))
        let help = try Docutil.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("OVERVIEW"))
        let readme = try String(contentsOf: Fixtures.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for status in [0, 1, 64, 65, 66, 69, 73, 74, 75] {
            #expect(readme.contains(" \(status) "), "exit status \(status) is documented")
            #expect(help.stdout.contains("\(status)"))
        }
    }

    /// The man pages are what `generate-manual` makes of the command's current help: every verb's abstract,
    /// discussion, options and their help texts (read from `--experimental-dump-help`, the description
    /// `generate-manual` itself works from) appear in `Man/docutil.VERB.1`.
    @Test func theManPagesCarryTheCurrentHelpOfEveryVerb() throws {
        let dump = try Docutil.run(["--experimental-dump-help"])
        #expect(dump.status == 0)
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let subcommands = try #require(command["subcommands"] as? [[String: Any]])
        #expect(subcommands.count >= 10)
        for verb in subcommands {
            let name = try #require(verb["commandName"] as? String)
            guard name != "help" else { continue }
            let page = Fixtures.projectRoot.appendingPathComponent("Man/docutil.\(name).1")
            let text = try String(contentsOf: page, encoding: .utf8)
            // mdoc escapes a backslash as \e; nothing else in our help texts changes.
            func shown(_ help: String) -> Bool { text.contains(help.replacingOccurrences(of: "\\", with: "\\e")) }
            let stale = "Man/docutil.\(name).1 is stale: regenerate the man pages (README, 'Man pages')"
            if let abstract = verb["abstract"] as? String {
                // The page's one-line description drops a closing full stop or ellipsis.
                let line = abstract.hasSuffix("…") || abstract.hasSuffix(".") ? String(abstract.dropLast()) : abstract
                #expect(text.contains(".Nd \"\(line)"), "\(stale): abstract")
            }
            if let discussion = verb["discussion"] as? String, !discussion.isEmpty {
                #expect(shown(discussion), "\(stale): discussion")
            }
            for argument in verb["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { entry -> String? in
                    guard entry["kind"] as? String == "long", let name = entry["name"] as? String else { return nil }
                    return name
                }
                for long in names { #expect(text.contains("Fl -\(long)"), "\(stale): --\(long)") }
                if let help = argument["abstract"] as? String, !help.isEmpty {
                    #expect(shown(help), "\(stale): \(names.first ?? "argument") help")
                }
            }
        }
    }

    @Test func everyVerbHasAManPageAndAREADMEEntryThatAgreeWithItsHelp() throws {
        let help = try Docutil.run(["--help"]).stdout
        let section = try #require(help.range(of: "SUBCOMMANDS:"))
        // A verb's line is indented two spaces; its abstract's continuation lines are indented further.
        let verbs = help[section.upperBound...].split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first.isLetter else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }.filter { $0 != "help" && $0 != "See" }
        #expect(verbs.count >= 10, "\(verbs)")
        let readme = try String(contentsOf: Fixtures.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for verb in verbs {
            let page = Fixtures.projectRoot.appendingPathComponent("Man/docutil.\(verb).1")
            let text = try String(contentsOf: page, encoding: .utf8)
            #expect(readme.contains("`docutil \(verb)"), "the README documents \(verb)")
            // The man page carries the verb's own help: its abstract.
            let verbHelp = try Docutil.run([verb, "--help"]).stdout
            // Help is the root's: its usage names the program (a verb's own parser alone would leave it out).
            #expect(verbHelp.contains("USAGE: docutil \(verb) "), "\(verb) --help: \(verbHelp.prefix(300))")
            let abstract = try #require(verbHelp.split(separator: "\n").first).replacingOccurrences(
                of: "OVERVIEW: ", with: "")
            let firstWords = abstract.split(separator: " ").prefix(4).joined(separator: " ")
            #expect(text.contains(firstWords), "Man/docutil.\(verb).1 is regenerated (\(firstWords))")
        }
    }
}
