import Foundation

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
        case "string":
            return .string(element.text)
        case "integer":
            guard let i = Int64(element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw fail(element, "bad integer '\(element.text)'")
            }
            return .integer(i)
        case "real":
            guard let r = Double(element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw fail(element, "bad real '\(element.text)'")
            }
            return .real(r)
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "data":
            guard let d = Data(base64Encoded: element.text, options: .ignoreUnknownCharacters) else {
                throw fail(element, "bad base64 data")
            }
            return .data(d)
        case "date":
            let formatter = ISO8601DateFormatter()
            guard let d = formatter.date(from: element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw fail(element, "bad date '\(element.text)'")
            }
            return .date(d)
        default:
            throw fail(element, "unknown element <\(element.name)>")
        }
    }
}
