import CLibXML2
import Foundation
import ModelFiles
import ObjectGraph

/// Reads a Core Data XML store with libxml2's SAX2 push parser, a piece at a time (``XMLEventStream``): documents of
/// any size, no DTD or external entity loading, no network. Every error names the line.
struct XMLStoreReader {
    let path: String?
    /// Stop after `<databaseInfo>` (UUID and metadata), leaving the objects unread.
    var headerOnly = false

    func read(_ data: Data) throws(StoreError) -> RawXMLStore {
        guard !data.isEmpty else { throw .xml(path, line: nil, "empty file: not a Core Data XML store") }
        try checkProlog(data)
        let result = data.withUnsafeBytes { raw -> Result<RawXMLStore, StoreError> in
            parse(decoder: nil, storeIdentifier: "", input: .memory(raw)).result
        }
        return try result.get()
    }

    /// Reads the store file at `url` as it goes (libxml2 reads the open file in small pieces: the file is never held
    /// in memory whole).
    /// - Parameter url: a regular file (anything else is refused without being read).
    /// - Returns: the store's header and objects, as they are written.
    /// - Throws: ``StoreError`` naming the file and the line.
    func read(file url: URL) throws(StoreError) -> RawXMLStore {
        var none: XMLStoreDecoder? = nil
        return try read(file: url, decodingWith: &none, storeIdentifier: "")
    }

    /// As ``read(file:)``, with each object's attribute values decoded by `decoder` as soon as the object is read
    /// (its text is then let go at once: the store's values are not held twice over). Objects of entities the model
    /// lacks and repeated ids are left as read, for the decoder's whole-store pass to report.
    /// - Parameters:
    ///   - url: a regular file.
    ///   - decoder: decodes the values (its collected problems are kept in it).
    ///   - storeIdentifier: the store's UUID, for the URIs of problem reports.
    /// - Returns: the store's header and objects.
    /// - Throws: ``StoreError`` naming the file and the line.
    func read(file url: URL, decodingWith decoder: inout XMLStoreDecoder?, storeIdentifier: String)
        throws(StoreError) -> RawXMLStore
    {
        let fd: Int32
        let size: Int
        do {
            (fd, size) = try FileKind.openRegularFile(url)
        } catch {
            throw StoreError(reading: error, path: url.path)
        }
        defer { close(fd) }
        guard size > 0 else { throw .xml(path, line: nil, "empty file: not a Core Data XML store") }
        var head = [UInt8](repeating: 0, count: min(size, XMLSafety.prologLimit))
        var filled = 0
        while filled < head.count {
            let count = head.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(fd, base + filled, raw.count - filled, off_t(filled))
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw StoreError(.io, path: url.path, "cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        try checkProlog(Data(head[..<filled]))
        let parsed = parse(decoder: decoder, storeIdentifier: storeIdentifier, input: .file(fd))
        decoder = parsed.decoder
        return try parsed.result.get()
    }

    private var options: Int32 {
        Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
    }

    private func checkProlog(_ data: Data) throws(StoreError) {
        do {
            try XMLSafety.checkProlog(data)
        } catch {
            throw StoreError(.corrupt, path: path.map { p in error.location.map { "\(p):\($0)" } ?? p }, error.message)
        }
    }

    /// Runs the parser over `input`; the decoder comes back with what it collected.
    private func parse(
        decoder: XMLStoreDecoder?, storeIdentifier: String, input: XMLEventStream.Input
    ) -> (result: Result<RawXMLStore, StoreError>, decoder: XMLStoreDecoder?) {
        docutil_xml_silence_errors()
        xmlResetLastError()
        guard let events = XMLEventStream(input, path: path, options: options) else {
            return (.failure(.xml(path, line: nil, "libxml2 could not start reading")), decoder)
        }
        var parser = Parser(events: events, path: path, headerOnly: headerOnly)
        parser.decoder = decoder
        parser.storeIdentifier = storeIdentifier
        do throws(StoreError) {
            let store = try parser.parse()
            return (.success(store), parser.decoder)
        } catch {
            return (.failure(error), parser.decoder)
        }
    }

    /// The streaming state machine.
    struct Parser {
        let events: XMLEventStream
        let path: String?
        let headerOnly: Bool
        var store = RawXMLStore()
        /// The most attributes and relationships an object of each type had so far: the next one's lists are made
        /// that size at once (lists grown by doubling would hold up to twice what they need until decoded).
        var shapes: [String: (attributes: Int, relationships: Int)] = [:]
        /// Decodes each object's values as it is read, when set.
        var decoder: XMLStoreDecoder?
        var storeIdentifier = ""
        /// The ids whose objects were decoded as read (a repeated id is left for the whole-store pass to report).
        var decodedIDs = Set<Int64>()

        init(events: XMLEventStream, path: String?, headerOnly: Bool = false) {
            self.events = events
            self.path = path
            self.headerOnly = headerOnly
        }

        var line: Int { events.line }

        func fail(_ message: String) -> StoreError { .xml(path, line: line, message) }

        /// Advances one event; `false` at the end. A libxml2 error becomes a StoreError, and so does a reference to
        /// an entity (never substituted).
        mutating func next() throws(StoreError) -> Bool {
            guard try events.next() else { return false }
            if events.isEntityReference {
                let name = events.text.map { String(cString: $0) } ?? ""
                throw .xml(path, line: line, XMLSafety.entityReference(name, location: nil).message)
            }
            return true
        }

        var isElement: Bool { events.isElement }
        var isEndElement: Bool { events.isEndElement }
        var name: String { events.namePointer.map { String(cString: $0) } ?? "" }
        var isEmptyElement: Bool { events.isEmptyElement }

        /// The elements an object holds.
        enum ObjectPart { case attribute, relationship, other }

        /// The current element among an object's parts, told from its name's bytes (no string made).
        var elementName: ObjectPart {
            guard let name = events.namePointer else { return .other }
            if strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self), "attribute") == 0 {
                return .attribute
            }
            if strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self), "relationship") == 0 {
                return .relationship
            }
            return .other
        }

        /// Strings seen before (property names, types, entity types), so that each is made once.
        var interned: [(bytes: [UInt8], string: String)] = []
        var internHint = 0

        mutating func intern(_ pointer: UnsafePointer<xmlChar>) -> String {
            let length = strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
            func matches(_ i: Int) -> Bool {
                interned[i].bytes.count == length
                    && (length == 0
                        || interned[i].bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, pointer, length) == 0 })
            }
            if internHint < interned.count, matches(internHint) {
                internHint += 1
                return interned[internHint - 1].string
            }
            for i in interned.indices where matches(i) {
                internHint = i + 1
                return interned[i].string
            }
            let bytes = Array(UnsafeBufferPointer(start: pointer, count: length))
            let string = String(decoding: bytes, as: UTF8.self)
            if interned.count < 4096 { interned.append((bytes, string)) }
            internHint = interned.count
            return string
        }

        /// An attribute of the current element, read without copying through malloc.
        func withAttribute<T>(_ name: String, _ body: (UnsafePointer<xmlChar>) -> T) -> T? {
            guard let value = events.attribute(name) else { return nil }
            return body(value)
        }

        func attribute(_ name: String) -> String? {
            withAttribute(name) { String(cString: $0) }
        }

        mutating func internedAttribute(_ name: String) -> String? {
            guard let value = events.attribute(name) else { return nil }
            return intern(value)
        }

        /// The text of the current element (its whole content), leaving the stream on its end.
        mutating func elementText() throws(StoreError) -> String {
            if isEmptyElement { return "" }
            guard try next() else { throw fail("the document ends inside an element") }
            var text = ""
            while true {
                if isEndElement { return text }
                if isElement { throw fail("unexpected <\(name)> inside a value") }
                text += events.textString
                guard try next() else { throw fail("the document ends inside an element") }
            }
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
                case "databaseInfo":
                    try parseInfo()
                    if headerOnly { return store }
                case "object":
                    if headerOnly { return store }
                    try parseObject()
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
                case "UUID":
                    let uuid = try elementText().trimmingCharacters(in: .whitespacesAndNewlines)
                    // Every object's ID names the store by it: none could be written as a URI and read back.
                    guard !uuid.isEmpty else { throw fail("the file records no store UUID (<UUID> is empty)") }
                    store.uuid = uuid
                case "nextObjectID":
                    let text = try elementText().trimmingCharacters(in: .whitespacesAndNewlines)
                    guard let value = Int64(text) else { throw fail("nextObjectID '\(text)' is not a number") }
                    store.nextObjectID = value
                case "metadata":
                    if let value = try parseMetadata() {
                        guard let dictionary = value.dictionary else {
                            throw fail("metadata: the property list is not a dictionary")
                        }
                        store.metadata = dictionary
                    }
                default:
                    if !isEmptyElement { try skipElement() }
                }
            }
            throw fail("the document ends inside <databaseInfo>")
        }

        /// The property list inside `<metadata>`, read as it streams by, with an explicit stack (no recursion, in
        /// libxml2 or here): the deepest nesting accepted is ``maximumMetadataDepth``.
        mutating func parseMetadata() throws(StoreError) -> PropertyList? {
            if isEmptyElement { return nil }
            enum Frame {
                case dictionary([String: PropertyList], key: String?)
                case array([PropertyList])
            }
            var stack: [Frame] = []
            var result: PropertyList?
            func deliver(_ value: PropertyList, into stack: inout [Frame]) throws(StoreError) {
                guard let top = stack.popLast() else {
                    guard result == nil else { throw fail("metadata: more than one property list") }
                    result = value
                    return
                }
                switch top {
                case .dictionary(var entries, let key):
                    guard let key else { throw fail("metadata: a value without a key") }
                    entries[key] = value
                    stack.append(.dictionary(entries, key: nil))
                case .array(var items):
                    items.append(value)
                    stack.append(.array(items))
                }
            }
            while try next() {
                if isEndElement {
                    switch name {
                    case "metadata":
                        guard stack.isEmpty else { throw fail("metadata: the property list is not closed") }
                        return result
                    case "dict", "array":
                        guard let top = stack.popLast() else { throw fail("metadata: </\(name)> without <\(name)>") }
                        switch top {
                        case .dictionary(let entries, let key):
                            guard key == nil else { throw fail("metadata: a key without a value") }
                            try deliver(.dictionary(entries), into: &stack)
                        case .array(let items):
                            try deliver(.array(items), into: &stack)
                        }
                    default:
                        continue
                    }
                    continue
                }
                guard isElement else { continue }
                let element = name
                switch element {
                case "plist":
                    continue
                case "dict", "array":
                    if isEmptyElement {
                        try deliver(element == "dict" ? .dictionary([:]) : .array([]), into: &stack)
                    } else {
                        guard stack.count < Self.maximumMetadataDepth else {
                            throw fail("metadata: nested deeper than \(Self.maximumMetadataDepth) levels")
                        }
                        stack.append(element == "dict" ? .dictionary([:], key: nil) : .array([]))
                    }
                case "key":
                    let key = try elementText()
                    guard case .dictionary(let entries, nil)? = stack.last else {
                        throw fail("metadata: a <key> outside a dictionary, or two in a row")
                    }
                    stack[stack.count - 1] = .dictionary(entries, key: key)
                default:
                    let text = try elementText()
                    let value: PropertyList
                    do {
                        value = try PropertyList.xmlScalar(element, text: text)
                    } catch {
                        throw fail("metadata: \(error.message)")
                    }
                    try deliver(value, into: &stack)
                }
            }
            throw fail("the document ends inside <metadata>")
        }

        static let maximumMetadataDepth = 64

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

        struct BadToken: Error {
            let text: String
        }

        /// Parses `z1 z2 z3` straight from libxml2's buffer; the bad token on failure.
        static func parseRefs(_ pointer: UnsafePointer<xmlChar>) -> Result<[Int64], BadToken> {
            func isSpace(_ c: xmlChar) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
            // Counted first, so that the list is made its size (kept until the objects are decoded).
            var tokens = 0
            var q = pointer
            var inToken = false
            while q.pointee != 0 {
                let space = isSpace(q.pointee)
                if !space && !inToken { tokens += 1 }
                inToken = !space
                q += 1
            }
            var refs: [Int64] = []
            refs.reserveCapacity(tokens)
            var p = pointer
            while true {
                while p.pointee == 0x20 || p.pointee == 0x09 || p.pointee == 0x0A || p.pointee == 0x0D { p += 1 }
                if p.pointee == 0 { return .success(refs) }
                let start = p
                while p.pointee != 0 && p.pointee != 0x20 && p.pointee != 0x09 && p.pointee != 0x0A && p.pointee != 0x0D
                { p += 1 }
                let token = UnsafeBufferPointer(start: start, count: p - start)
                guard token.count >= 2, token[0] == UInt8(ascii: "z") || token[0] == UInt8(ascii: "Z") else {
                    return .failure(BadToken(text: String(decoding: token, as: UTF8.self)))
                }
                var value: Int64 = 0
                for digit in token.dropFirst() {
                    // Any key up to Int64.max, as an object's own id reads.
                    let (tens, overTen) = value.multipliedReportingOverflow(by: 10)
                    let (next, over) = tens.addingReportingOverflow(Int64(digit) - 0x30)
                    guard digit >= 0x30 && digit <= 0x39, !overTen, !over else {
                        return .failure(BadToken(text: String(decoding: token, as: UTF8.self)))
                    }
                    value = next
                }
                refs.append(value)
            }
        }

        static func objectNumber(_ text: Substring) -> Int64? {
            guard text.first == "z" || text.first == "Z" else { return nil }
            return Int64(text.dropFirst())
        }

        /// Decodes the values of an object just read, when a decoder is set and knows its entity.
        mutating func decodeValues(of object: inout RawXMLStore.Object) throws(StoreError) {
            guard let layout = decoder?.layout(ofType: object.type), decodedIDs.insert(object.id).inserted else {
                return
            }
            try decoder?.decodeValues(of: &object, layout: layout, storeIdentifier: storeIdentifier)
        }

        mutating func parseObject() throws(StoreError) {
            guard let type = internedAttribute("type"), !type.isEmpty else { throw fail("<object> without a type") }
            guard let idText = attribute("id"), let id = Self.objectNumber(idText[...]) else {
                throw fail("<object> with a bad id '\(attribute("id") ?? "")' (expected z<number>)")
            }
            var object = RawXMLStore.Object(type: type, id: id, line: line)
            let shape = shapes[type] ?? (0, 0)
            object.attributes.reserveCapacity(shape.attributes)
            object.relationships.reserveCapacity(shape.relationships)
            if isEmptyElement {
                try decodeValues(of: &object)
                store.objects.append(object)
                return
            }
            while try next() {
                if isEndElement {
                    if object.attributes.count > shape.attributes || object.relationships.count > shape.relationships {
                        shapes[type] = (
                            max(shape.attributes, object.attributes.count),
                            max(shape.relationships, object.relationships.count)
                        )
                    }
                    try decodeValues(of: &object)
                    store.objects.append(object)
                    return
                }
                guard isElement else { continue }
                switch elementName {
                case .attribute:
                    guard let name = internedAttribute("name") else { throw fail("<attribute> without a name") }
                    let type = internedAttribute("type") ?? "string"
                    object.attributes.append(.init(name: name, type: type, text: try elementText()))
                case .relationship:
                    guard let name = internedAttribute("name") else { throw fail("<relationship> without a name") }
                    let type = internedAttribute("type") ?? "1/1"
                    let destination = internedAttribute("destination") ?? ""
                    var refs: [Int64] = []
                    let parsed: Result<[Int64], StoreError>? = withAttribute("idrefs") { value in
                        Self.parseRefs(value).mapError { token in
                            fail("relationship '\(name)' refers to a bad id '\(token.text)'")
                        }
                    }
                    if let parsed { refs = try parsed.get() }
                    // A to-many is a set (ordered or not): an id given twice is one link.
                    refs = refs.withoutRepeats(by: \.self)
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
