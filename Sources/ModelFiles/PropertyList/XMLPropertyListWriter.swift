import Foundation
public import ObjectGraph

/// Writes XML property lists the way Apple's serializer lays them out (keys sorted, data in tab-indented lines),
/// for the metadata of XML stores.
public enum XMLPropertyListWriter {
    /// The `<plist>` element and its contents, each line indented by `indent` spaces.
    /// - Parameters:
    ///   - value: The property list.
    ///   - indent: Spaces before each line.
    /// - Returns: The element's text, ending with a newline.
    /// - Throws: ``ModelFileError`` `unsupported` for a keyed-archive reference, a null value or a character XML
    ///   cannot hold (a control character), which an XML property list cannot hold (they are refused rather than
    ///   written as something else).
    public static func plistElement(_ value: PropertyList, indent: Int) throws(ModelFileError) -> String {
        var out = ""
        let pad = String(repeating: " ", count: indent)
        out += pad + "<plist version=\"1.0\">\n"
        try write(value, depth: 0, indent: indent + 4, into: &out)
        out += pad + "</plist>\n"
        if let (scalar, line) = XMLCharacters.firstUnwritable(in: out) {
            throw ModelFileError(
                .unsupported,
                "line \(line) of the property list holds \(XMLCharacters.name(scalar)), which XML cannot hold")
        }
        return out
    }

    /// A whole XML property list document.
    /// - Parameter value: The property list.
    /// - Returns: The document's text.
    /// - Throws: ``ModelFileError`` `unsupported` for a value an XML property list cannot hold.
    public static func document(_ value: PropertyList) throws(ModelFileError) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

            """
        out += try plistElement(value, indent: 0)
        return out
    }

    private static func write(
        _ value: PropertyList, depth: Int, indent: Int, into out: inout String
    ) throws(ModelFileError) {
        let pad = String(repeating: " ", count: indent)
        switch value {
        case .string(let s): out += pad + "<string>\(XMLText.escapeText(s))</string>\n"
        case .integer(let i): out += pad + "<integer>\(i)</integer>\n"
        case .real(let r): out += pad + "<real>\(r)</real>\n"
        case .boolean(let b): out += pad + (b ? "<true/>\n" : "<false/>\n")
        case .date(let d):
            out += pad + "<date>\(DateText.iso8601Seconds(d))</date>\n"
        case .data(let d):
            let tabs = String(repeating: "\t", count: depth)
            let text = d.base64EncodedString()
            out += pad + "<data>\n"
            var index = text.startIndex
            while index < text.endIndex {
                let end = text.index(index, offsetBy: 68, limitedBy: text.endIndex) ?? text.endIndex
                out += tabs + text[index..<end] + "\n"
                index = end
            }
            out += tabs + "</data>\n"
        case .array(let items):
            if items.isEmpty {
                out += pad + "<array/>\n"
                return
            }
            out += pad + "<array>\n"
            for item in items { try write(item, depth: depth + 1, indent: indent + 4, into: &out) }
            out += pad + "</array>\n"
        case .dictionary(let entries):
            if entries.isEmpty {
                out += pad + "<dict/>\n"
                return
            }
            out += pad + "<dict>\n"
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                out += pad + "    <key>\(XMLText.escapeText(key))</key>\n"
                try write(item, depth: depth + 1, indent: indent + 4, into: &out)
            }
            out += pad + "</dict>\n"
        case .uid(let u):
            throw ModelFileError(.unsupported, "a keyed-archive reference (\(u)) has no form in an XML property list")
        case .null: throw ModelFileError(.unsupported, "a null value has no form in an XML property list")
        }
    }
}
