import CLibXML2
import Foundation
import ModelFiles
import ObjectGraph

/// Reads a Core Data XML store with libxml2's streaming reader (`xmlTextReader`): documents of any size, no DTD or
/// external entity loading, no network. Every error names the line.
struct XMLStoreReader {
    let path: String?

    func read(_ data: Data) throws(StoreError) -> RawXMLStore {
        guard !data.isEmpty else { throw .xml(path, line: nil, "empty file: not a Core Data XML store") }
        guard data.count < Int32.max else { throw .xml(path, line: nil, "file too large for libxml2's reader") }
        docutil_xml_silence_errors()
        xmlResetLastError()
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
        let result = data.withUnsafeBytes { raw -> Result<RawXMLStore, StoreError> in
            let chars = raw.bindMemory(to: CChar.self)
            guard
                let reader = xmlReaderForMemory(
                    chars.baseAddress, Int32(chars.count), path ?? "store.xml", nil, options)
            else { return .failure(.xml(path, line: nil, "libxml2 could not start reading")) }
            defer { xmlFreeTextReader(reader) }
            var parser = Parser(reader: reader, path: path)
            do throws(StoreError) {
                return .success(try parser.parse())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The streaming state machine.
    struct Parser {
        let reader: xmlTextReaderPtr
        let path: String?
        var store = RawXMLStore()

        init(reader: xmlTextReaderPtr, path: String?) {
            self.reader = reader
            self.path = path
        }

        var line: Int { Int(xmlTextReaderGetParserLineNumber(reader)) }

        func fail(_ message: String) -> StoreError { .xml(path, line: line, message) }

        /// Advances one node; `false` at the end. A libxml2 error becomes a StoreError.
        mutating func next() throws(StoreError) -> Bool {
            let status = xmlTextReaderRead(reader)
            // libxml2's reader may go on returning nodes after an error (closing the open elements of a truncated
            // file, for instance): any recorded error ends the read.
            if let error = xmlGetLastError(), error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue {
                let message = error.pointee.message.map { String(cString: $0) }?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "malformed XML"
                throw .xml(path, line: Int(error.pointee.line), "XML: \(message)")
            }
            if status == 1 { return true }
            if status == 0 { return false }
            if let error = xmlGetLastError() {
                let message =
                    error.pointee.message.map { String(cString: $0) }?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "malformed XML"
                throw .xml(path, line: Int(error.pointee.line), "XML: \(message)")
            }
            throw fail("XML: malformed")
        }

        var nodeType: Int32 { xmlTextReaderNodeType(reader) }
        var isElement: Bool { nodeType == Int32(XML_READER_TYPE_ELEMENT.rawValue) }
        var isEndElement: Bool { nodeType == Int32(XML_READER_TYPE_END_ELEMENT.rawValue) }
        var name: String { xmlTextReaderConstName(reader).map { String(cString: $0) } ?? "" }
        var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

        func attribute(_ name: String) -> String? {
            guard let value = xmlTextReaderGetAttribute(reader, name) else { return nil }
            defer { docutil_xmlFree(value) }
            return String(cString: value)
        }

        /// The text of the current element (its whole content), leaving the reader on its end.
        mutating func elementText() throws(StoreError) -> String {
            if isEmptyElement { return "" }
            var text = ""
            while try next() {
                switch xmlReaderTypes(rawValue: UInt32(nodeType)) {
                case XML_READER_TYPE_TEXT, XML_READER_TYPE_CDATA, XML_READER_TYPE_SIGNIFICANT_WHITESPACE,
                    XML_READER_TYPE_WHITESPACE:
                    if let value = xmlTextReaderConstValue(reader) { text += String(cString: value) }
                case XML_READER_TYPE_END_ELEMENT:
                    return text
                case XML_READER_TYPE_ELEMENT:
                    throw fail("unexpected <\(name)> inside a value")
                default:
                    break
                }
            }
            throw fail("the document ends inside an element")
        }

        mutating func parse() throws(StoreError) -> RawXMLStore {
            // The root element.
            while try next() {
                if isElement { break }
            }
            guard isElement else { throw fail("no root element: not a Core Data XML store") }
            guard name == "database" else {
                throw fail("the root element is <\(name)>, not <database>: not a Core Data XML store")
            }
            if isEmptyElement { return store }
            while try next() {
                if isEndElement { return store }
                guard isElement else { continue }
                switch name {
                case "databaseInfo": try parseInfo()
                case "object": try parseObject()
                default: throw fail("unexpected element <\(name)> in <database>")
                }
            }
            throw fail("the document ends before </database>: it is truncated")
        }

        mutating func parseInfo() throws(StoreError) {
            if isEmptyElement { return }
            while try next() {
                if isEndElement { return }
                guard isElement else { continue }
                switch name {
                case "version": store.version = try elementText().trimmingCharacters(in: .whitespacesAndNewlines)
                case "UUID": store.uuid = try elementText().trimmingCharacters(in: .whitespacesAndNewlines)
                case "nextObjectID":
                    let text = try elementText().trimmingCharacters(in: .whitespacesAndNewlines)
                    guard let value = Int64(text) else { throw fail("nextObjectID '\(text)' is not a number") }
                    store.nextObjectID = value
                case "metadata":
                    let metadataLine = line
                    guard let outer = xmlTextReaderReadInnerXml(reader) else { continue }
                    let inner = String(cString: outer)
                    docutil_xmlFree(outer)
                    if !isEmptyElement { try skipElement() }
                    let trimmed = inner.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !trimmed.isEmpty else { continue }
                    do {
                        store.metadata = try PropertyList.read(Data(trimmed.utf8)).dictionary ?? [:]
                    } catch {
                        throw .xml(path, line: metadataLine, "metadata: \(error.message)")
                    }
                default:
                    if !isEmptyElement { try skipElement() }
                }
            }
            throw fail("the document ends inside <databaseInfo>")
        }

        mutating func skipElement() throws(StoreError) {
            var depth = 1
            while try next() {
                if isElement && !isEmptyElement { depth += 1 }
                if isEndElement {
                    depth -= 1
                    if depth == 0 { return }
                }
            }
            throw fail("the document ends inside an element")
        }

        static func objectNumber(_ text: Substring) -> Int64? {
            guard text.first == "z" || text.first == "Z" else { return nil }
            return Int64(text.dropFirst())
        }

        mutating func parseObject() throws(StoreError) {
            guard let type = attribute("type"), !type.isEmpty else { throw fail("<object> without a type") }
            guard let idText = attribute("id"), let id = Self.objectNumber(idText[...]) else {
                throw fail("<object> with a bad id '\(attribute("id") ?? "")' (expected z<number>)")
            }
            var object = RawXMLStore.Object(type: type, id: id, line: line)
            if isEmptyElement {
                store.objects.append(object)
                return
            }
            while try next() {
                if isEndElement {
                    store.objects.append(object)
                    return
                }
                guard isElement else { continue }
                switch name {
                case "attribute":
                    guard let name = attribute("name") else { throw fail("<attribute> without a name") }
                    let type = attribute("type") ?? "string"
                    object.attributes.append(.init(name: name, type: type, text: try elementText()))
                case "relationship":
                    guard let name = attribute("name") else { throw fail("<relationship> without a name") }
                    let type = attribute("type") ?? "1/1"
                    let destination = attribute("destination") ?? ""
                    var refs: [Int64] = []
                    if let idrefs = attribute("idrefs") {
                        for token in idrefs.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
                            guard let ref = Self.objectNumber(token) else {
                                throw fail("relationship '\(name)' refers to a bad id '\(token)'")
                            }
                            refs.append(ref)
                        }
                    }
                    if !isEmptyElement { try skipElement() }
                    object.relationships.append(.init(name: name, type: type, destination: destination, refs: refs))
                default:
                    throw fail("unexpected element <\(name)> in <object>")
                }
            }
            throw fail("the document ends inside <object id=\"z\(id)\">: it is truncated")
        }
    }
}
