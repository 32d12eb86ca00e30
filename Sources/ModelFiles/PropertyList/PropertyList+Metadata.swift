public import Foundation
public import ObjectGraph

extension PropertyList {
    /// The property list as store metadata (UIDs and nulls, which metadata never holds, are dropped).
    public var metadataValue: MetadataValue? {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .real(let r): .real(r)
        case .boolean(let b): .boolean(b)
        case .date(let d): .date(d)
        case .data(let d): .data(d)
        case .array(let items): .array(items.compactMap(\.metadataValue))
        case .dictionary(let entries): .dictionary(entries.compactMapValues(\.metadataValue))
        case .uid, .null: nil
        }
    }

    /// A property list from store metadata.
    public init(_ value: MetadataValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .real(let r): self = .real(r)
        case .boolean(let b): self = .boolean(b)
        case .date(let d): self = .date(d)
        case .data(let d): self = .data(d)
        case .array(let items): self = .array(items.map(PropertyList.init))
        case .dictionary(let entries): self = .dictionary(entries.mapValues(PropertyList.init))
        }
    }
}

/// Writes XML property lists the way Apple's serializer lays them out (keys sorted, data in tab-indented lines),
/// for the metadata of XML stores.
public enum XMLPropertyListWriter {
    /// The `<plist>` element and its contents, each line indented by `indent` spaces.
    public static func plistElement(_ value: PropertyList, indent: Int) -> String {
        var out = ""
        let pad = String(repeating: " ", count: indent)
        out += pad + "<plist version=\"1.0\">\n"
        write(value, depth: 0, indent: indent + 4, into: &out)
        out += pad + "</plist>\n"
        return out
    }

    /// A whole XML property list document.
    public static func document(_ value: PropertyList) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

            """
        out += plistElement(value, indent: 0)
        return out
    }

    private static func write(_ value: PropertyList, depth: Int, indent: Int, into out: inout String) {
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
            for item in items { write(item, depth: depth + 1, indent: indent + 4, into: &out) }
            out += pad + "</array>\n"
        case .dictionary(let entries):
            if entries.isEmpty {
                out += pad + "<dict/>\n"
                return
            }
            out += pad + "<dict>\n"
            for key in entries.keys.sorted() {
                out += pad + "    <key>\(XMLText.escapeText(key))</key>\n"
                write(entries[key]!, depth: depth + 1, indent: indent + 4, into: &out)
            }
            out += pad + "</dict>\n"
        case .uid(let u): out += pad + "<dict><key>CF$UID</key><integer>\(u)</integer></dict>\n"
        case .null: out += pad + "<string></string>\n"
        }
    }
}
