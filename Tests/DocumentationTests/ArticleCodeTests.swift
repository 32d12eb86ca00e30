import Foundation
import TestSupport
import Testing

/// Every `swift` code block of every DocC article is code that `ArticleSnippets` compiles and runs, and every
/// region marked there appears in an article: the articles' examples cannot go stale.
struct ArticleCodeTests {
    /// The regions between `// snippet` and `// end snippet` lines, their common indentation removed.
    static func regions(in source: String) -> [String] {
        var regions: [String] = []
        var current: [Substring]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// snippet" {
                current = []
            } else if trimmed == "// end snippet", let lines = current {
                regions.append(dedented(lines))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return regions
    }

    /// The ```` ```swift ```` blocks of a Markdown text.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if line.trimmingCharacters(in: .whitespaces) == "```", let lines = current {
                blocks.append(dedented(lines))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static func dedented(_ lines: [Substring]) -> String {
        let indent =
            lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")
    }

    /// Every article of every module's documentation catalog.
    static func articles() throws -> [URL] {
        let sources = Fixtures.projectRoot.appendingPathComponent("Sources")
        var found: [URL] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
            found += files.filter { $0.hasSuffix(".md") }.sorted().map { catalog.appendingPathComponent($0) }
        }
        return found
    }

    @Test func everyArticleCodeBlockIsCompiledAndEverySnippetIsShown() throws {
        let snippets = Fixtures.projectRoot.appendingPathComponent("Tests/DocumentationTests/ArticleSnippets.swift")
        let regions = Self.regions(in: try String(contentsOf: snippets, encoding: .utf8))
        #expect(regions.count >= 10)
        var shown = Set<String>()
        let articles = try Self.articles()
        for module in ["ObjectGraph", "ModelFiles", "SQLiteStore", "XMLStore", "BinaryStore", "Documents"] {
            #expect(articles.contains { $0.lastPathComponent == "\(module).md" }, "\(module) has a landing page")
        }
        for article in articles {
            for block in Self.swiftBlocks(in: try String(contentsOf: article, encoding: .utf8)) {
                if !regions.contains(block) {
                    Issue.record("\(article.lastPathComponent): a code block no test compiles:\n\(block)")
                }
                shown.insert(block)
            }
        }
        for region in regions where !shown.contains(region) {
            Issue.record("a snippet no article shows:\n\(region)")
        }
    }

    @Test func theChecksSeeADifference() {
        let source = "x\n    // snippet\n    let a = 1\n    // end snippet\n"
        #expect(Self.regions(in: source) == ["let a = 1"])
        #expect(Self.swiftBlocks(in: "text\n```swift\nlet a = 1\n```\n") == ["let a = 1"])
        #expect(Self.swiftBlocks(in: "```swift\nlet a = 2\n```") != Self.regions(in: source))
    }
}
