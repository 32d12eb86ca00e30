import Foundation
import TestSupport
import Testing

/// Every public declaration of every module carries a `///` comment: the API is read before the code.
struct PublicDocumentationTests {
    /// `public`/`open` declarations (not imports or extensions) whose line above — attributes skipped — is not
    /// a documentation comment, as `file:line: declaration`.
    static func undocumented(in folder: URL) throws -> [String] {
        var missing: [String] = []
        for (file, lines) in try swiftFiles(in: folder) {
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

    /// Every Swift file under `folder`, with its lines.
    static func swiftFiles(in folder: URL) throws -> [(URL, [String])] {
        var found: [(URL, [String])] = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            found.append((file, try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")))
        }
        return found
    }

    /// A line of attributes only (`@MainActor`, `@available(macOS 15, *)`), which sits between a comment and its
    /// declaration.
    static func isAttributeLine(_ line: String) -> Bool {
        line.range(of: #"^\s*(@\w+(\([^)]*\))?\s*)+$"#, options: .regularExpression) != nil
    }

    /// Public functions, initializers and subscripts (outside the command-line module) whose documentation lacks a
    /// `- Parameter(s):` section while they take parameters, a `- Returns:` while a function returns a value, or a
    /// `- Throws:` while they throw, as `file:line: what is missing`.
    static func missingSections(in folder: URL) throws -> [String] {
        var missing: [String] = []
        let declaration =
            #"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s+((static|class|override|mutating|convenience|required|final|nonisolated)\s+)*(func\s+[^\s(<]+|init[?!]?|subscript)\s*(<[^>]*>)?\("#
        for (file, lines) in try swiftFiles(in: folder) where !file.path.contains("/DocUtilCLI/") {
            for (index, line) in lines.enumerated() {
                guard let kind = line.range(of: declaration, options: .regularExpression) else { continue }
                let isFunction = line[kind].contains("func ")
                // The signature: from the opening parenthesis to the body's brace (or the line's end).
                var signature = String(line[kind.upperBound...])
                var next = index + 1
                while !signature.contains("{"), next < lines.count, next < index + 8 {
                    signature += " " + lines[next].trimmingCharacters(in: .whitespaces)
                    next += 1
                }
                signature = String(signature.prefix { $0 != "{" })
                var depth = 1
                var parameters = ""
                var rest = ""
                for character in signature {
                    if depth == 0 {
                        rest.append(character)
                        continue
                    }
                    if character == "(" { depth += 1 }
                    if character == ")" { depth -= 1 }
                    if depth > 0 { parameters.append(character) }
                }
                var above = index - 1
                var doc: [String] = []
                while above >= 0 {
                    let text = lines[above].trimmingCharacters(in: .whitespaces)
                    if text.hasPrefix("///") {
                        doc.append(text)
                    } else if !Self.isAttributeLine(lines[above]) {
                        break
                    }
                    above -= 1
                }
                let comment = doc.joined(separator: "\n")
                var lacks: [String] = []
                if !parameters.trimmingCharacters(in: .whitespaces).isEmpty, !comment.contains("- Parameter") {
                    lacks.append("Parameters")
                }
                let returns = rest.range(of: #"->\s*(?!Void\b)\S"#, options: .regularExpression) != nil
                if isFunction, returns, !comment.contains("- Returns") { lacks.append("Returns") }
                if rest.contains("throws"), !comment.contains("- Throws") { lacks.append("Throws") }
                if !lacks.isEmpty {
                    missing.append("\(file.lastPathComponent):\(index + 1): no \(lacks.joined(separator: ", "))")
                }
            }
        }
        return missing
    }

    @Test func everyPublicFunctionDocumentsItsParametersResultAndErrors() throws {
        let sources = Fixtures.projectRoot.appendingPathComponent("Sources")
        let missing = try Self.missingSections(in: sources)
        #expect(missing.isEmpty, "documentation sections missing:\n\(missing.joined(separator: "\n"))")
    }

    @Test func theSectionCheckFindsWhatIsMissing() throws {
        let folder = try Fixtures.temporaryDirectory()
        let source = """
            /// Complete.
            /// - Parameter a: a number.
            /// - Returns: a number.
            /// - Throws: never.
            public func f(_ a: Int) throws -> Int { a }
            /// No sections.
            @discardableResult
            public static func g(_ a: Int) throws(E) -> Int { a }
            /// Nothing to say.
            public init() {}
            /// A parameter and no result.
            /// - Parameter x: x.
            public func h(x: Int) -> Void {}
            """
        try Data(source.utf8).write(to: folder.appendingPathComponent("B.swift"))
        let missing = try Self.missingSections(in: folder)
        #expect(missing == ["B.swift:8: no Parameters, Returns, Throws"])
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
