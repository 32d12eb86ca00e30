import Foundation
import TestSupport
import Testing

/// Every public declaration of every module carries a `///` comment: the API is read before the code.
struct PublicDocumentationTests {
    /// `public`/`open` declarations (not imports or extensions) whose line above — attributes skipped — is not
    /// a documentation comment, as `file:line: declaration`.
    static func undocumented(in folder: URL) throws -> [String] {
        var missing: [String] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                let text = line.drop { $0 == " " }
                let words = text.split(separator: " ").drop { $0.hasPrefix("@") }
                guard let first = words.first, first == "public" || first == "open" else { continue }
                let second = words.dropFirst().first ?? ""
                guard second != "import", second != "extension" else { continue }
                var above = index - 1
                while above >= 0, Self.isAttributeLine(lines[above]) { above -= 1 }
                let comment = above >= 0 ? lines[above].drop { $0 == " " } : ""
                if !comment.hasPrefix("///") && !comment.hasSuffix("*/") {
                    missing.append("\(file.lastPathComponent):\(index + 1): \(text)")
                }
            }
        }
        return missing
    }

    /// A line of attributes only (`@MainActor`, `@available(macOS 15, *)`), which sits between a comment and its
    /// declaration.
    static func isAttributeLine(_ line: String) -> Bool {
        line.range(of: #"^\s*(@\w+(\([^)]*\))?\s*)+$"#, options: .regularExpression) != nil
    }

    @Test func everyPublicDeclarationIsDocumented() throws {
        let sources = Fixtures.projectRoot.appendingPathComponent("Sources")
        let missing = try Self.undocumented(in: sources)
        #expect(missing.isEmpty, "undocumented public declarations:\n\(missing.joined(separator: "\n"))")
    }

    @Test func theCheckFindsAnUndocumentedDeclaration() throws {
        let folder = try Fixtures.temporaryDirectory()
        let source = """
            /// Documented.
            public struct A {
                /// Documented.
                @inlinable public var a: Int { 1 }
                public var b: Int { 2 }
            }
            public import Foundation
            public extension A {}
            @MainActor
            public func c() {}
            """
        try Data(source.utf8).write(to: folder.appendingPathComponent("A.swift"))
        let missing = try Self.undocumented(in: folder)
        #expect(missing == ["A.swift:5: public var b: Int { 2 }", "A.swift:10: public func c() {}"])
    }
}
