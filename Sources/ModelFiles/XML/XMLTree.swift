import CLibXML2
import Foundation

/// A small, immutable XML element tree read with libxml2, for model files and XML property lists.
///
/// Network access, DTD loading and entity substitution are off, so reading never touches anything but the bytes
/// given. Each element remembers its line for error messages.
struct XMLElement: Sendable {
    var name: String
    var attributes: [(name: String, value: String)]
    var children: [XMLElement]
    /// The element's text content (its direct text and CDATA children, concatenated).
    var text: String
    var line: Int

    subscript(attribute name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    func children(named name: String) -> [XMLElement] {
        children.filter { $0.name == name }
    }

    func child(named name: String) -> XMLElement? {
        children.first { $0.name == name }
    }

    /// Parses a whole document and returns its root element.
    /// - Throws: ``ModelFileError`` with the line and column libxml2 reports.
    static func parse(_ data: Data) throws(ModelFileError) -> XMLElement {
        guard !data.isEmpty else { throw ModelFileError(.malformed, "empty file") }
        guard data.count < Int32.max else { throw ModelFileError(.malformed, "file too large for an XML model") }
        try XMLSafety.checkProlog(data)
        docutil_xml_silence_errors()
        xmlResetLastError()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document: xmlDocPtr? = data.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: CChar.self) { chars in
                xmlReadMemory(chars.baseAddress, Int32(chars.count), "model.xml", nil, options)
            }
        }
        guard let document else {
            if let error = xmlGetLastError() {
                let message =
                    error.pointee.message.map { String(cString: $0) }?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "not well-formed"
                throw ModelFileError(
                    .malformed, location: "\(error.pointee.line):\(error.pointee.int2)", "XML: \(message)")
            }
            throw ModelFileError(.malformed, "XML: not well-formed")
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            throw ModelFileError(.malformed, "XML: no root element")
        }
        return try convert(root, depth: 0)
    }

    /// The deepest element nesting read (libxml2 refuses more than 256 levels anyway without XML_PARSE_HUGE).
    static let maximumDepth = 256

    private static func convert(_ node: xmlNodePtr, depth: Int) throws(ModelFileError) -> XMLElement {
        guard depth < maximumDepth else {
            throw ModelFileError(
                .malformed, location: "\(xmlGetLineNo(node))", "XML: elements nested deeper than \(maximumDepth) levels"
            )
        }
        var element = XMLElement(
            name: string(node.pointee.name), attributes: [], children: [], text: "", line: Int(xmlGetLineNo(node)))
        var attribute = node.pointee.properties
        while let a = attribute {
            var part = a.pointee.children
            while let p = part {
                if p.pointee.type == XML_ENTITY_REF_NODE {
                    throw XMLSafety.entityReference(string(p.pointee.name), location: "\(xmlGetLineNo(node))")
                }
                part = p.pointee.next
            }
            var value = ""
            if let content = xmlNodeListGetString(node.pointee.doc, a.pointee.children, 1) {
                value = String(cString: content)
                docutil_xmlFree(content)
            }
            element.attributes.append((string(a.pointee.name), value))
            attribute = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE:
                element.children.append(try convert(c, depth: depth + 1))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = c.pointee.content { element.text += String(cString: content) }
            case XML_ENTITY_REF_NODE:
                throw XMLSafety.entityReference(string(c.pointee.name), location: "\(xmlGetLineNo(c))")
            default:
                break
            }
            child = c.pointee.next
        }
        return element
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}
