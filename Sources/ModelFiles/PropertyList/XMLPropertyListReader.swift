import Foundation
public import ObjectGraph

/// Reads XML property lists (`<plist><dict>…</dict></plist>`), such as `.xccurrentversion` files and the metadata
/// embedded in XML stores.
enum XMLPropertyListReader {
    static func read(_ data: Data) throws(ModelFileError) -> PropertyList {
        let root = try XMLElement.parse(data)
        return try read(root: root)
    }

    /// Reads a `<plist>` element (or a bare value element) already parsed as part of a larger document.
    static func read(root: XMLElement) throws(ModelFileError) -> PropertyList {
        if root.name == "plist" {
            guard let value = root.children.first else { return .dictionary([:]) }
            return try self.value(value)
        }
        return try value(root)
    }

    private static func fail(_ element: XMLElement, _ message: String) -> ModelFileError {
        ModelFileError(.malformed, location: "\(element.line)", "property list: \(message)")
    }

    private static func value(_ element: XMLElement) throws(ModelFileError) -> PropertyList {
        switch element.name {
        case "dict":
            var result: [String: PropertyList] = [:]
            var pendingKey: String?
            for child in element.children {
                if child.name == "key" {
                    guard pendingKey == nil else { throw fail(child, "two keys in a row") }
                    pendingKey = child.text
                } else {
                    guard let key = pendingKey else { throw fail(child, "a value without a key") }
                    result[key] = try value(child)
                    pendingKey = nil
                }
            }
            guard pendingKey == nil else { throw fail(element, "a key without a value") }
            return .dictionary(result)
        case "array":
            var result: [PropertyList] = []
            for child in element.children { result.append(try value(child)) }
            return .array(result)
        default:
            do {
                return try PropertyList.xmlScalar(element.name, text: element.text)
            } catch {
                throw fail(element, error.message)
            }
        }
    }
}

extension PropertyList {
    /// The value of a scalar XML property-list element (`string`, `integer`, `real`, `true`, `false`, `data`, `date`)
    /// with its text.
    /// - Parameters:
    ///   - name: the element's name.
    ///   - text: its text.
    /// - Returns: the value.
    /// - Throws: ``ModelFileError`` `malformed` for an unknown element or text that is not a value of its kind.
    public static func xmlScalar(_ name: String, text: String) throws(ModelFileError) -> PropertyList {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func bad(_ what: String) -> ModelFileError {
            ModelFileError(.malformed, "property list: bad \(what) '\(Diagnostics.quote(text, limit: 60))'")
        }
        switch name {
        case "string": return .string(text)
        case "integer":
            guard let i = Int64(trimmed) else { throw bad("integer") }
            return .integer(i)
        case "real":
            guard let r = Double(trimmed) else { throw bad("real") }
            return .real(r)
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "data":
            guard let d = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw bad("base64 data") }
            return .data(d)
        case "date":
            guard let d = DateText.parse(trimmed) else { throw bad("date") }
            return .date(d)
        default:
            throw ModelFileError(.malformed, "property list: unknown element <\(Diagnostics.quote(name, limit: 60))>")
        }
    }
}
