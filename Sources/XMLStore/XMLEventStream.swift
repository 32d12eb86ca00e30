import CLibXML2
import CXMLEvents
import Foundation
import ObjectGraph

/// A document read with libxml2's SAX2 push parser, a piece at a time, its events taken in order (elements with their
/// attributes, end elements, text, entity references): libxml2 builds no tree, and only one piece's events are held
/// at once. No DTD or external entity is loaded and no entity is substituted.
final class XMLEventStream {
    /// Where the document's bytes come from.
    enum Input {
        /// An open file, read from its start.
        case file(Int32)
        /// Bytes in memory (alive while the stream is read).
        case memory(UnsafeRawBufferPointer)
    }

    /// How much of the document is parsed at a time: 4 KB first (reading a store's header stops early), each next
    /// piece four times larger, up to 256 KB.
    static let pieceSize = 256 * 1024
    static let firstPieceSize = 4 * 1024

    private let recorder: UnsafeMutablePointer<docutil_xml_recorder>
    private let input: Input
    private let path: String?
    private var piece: [UInt8]
    private var position = 0
    private var nextPieceSize = XMLEventStream.firstPieceSize
    private var finished = false
    /// The current event (an index into the recorder's events), and how many can be taken now.
    private var index = -1
    private var available = 0

    /// A stream over `input`, parsed with libxml2's `options`; `nil` when memory runs out.
    init?(_ input: Input, path: String?, options: Int32) {
        guard let recorder = docutil_xml_recorder_new(path ?? "store.xml", options) else { return nil }
        self.recorder = recorder
        self.input = input
        self.path = path
        piece = []
    }

    deinit { docutil_xml_recorder_free(recorder) }

    /// Advances to the next event; `false` at the end of the document.
    /// - Throws: ``StoreError`` for libxml2's first error (reached in document order), or when the file cannot be
    ///   read.
    func next() throws(StoreError) -> Bool {
        index += 1
        while index >= available {
            try checkError()
            if finished { return false }
            try readPiece()
        }
        try checkError()
        return true
    }

    private func checkError() throws(StoreError) {
        let r = recorder.pointee
        if r.out_of_memory != 0 { throw .xml(path, line: line, "XML: out of memory") }
        guard r.error_at >= 0, index >= Int(r.error_at) else { return }
        let message =
            r.error_message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? "malformed XML"
        throw .xml(path, line: Int(r.error_line), "XML: \(message)")
    }

    /// Forgets the events taken, parses the next piece, and works out how many events can be taken: all but a last
    /// one that what follows may still change (an element not yet closed may turn out empty, text may go on), until
    /// the document ends or libxml2 stops at an error.
    private func readPiece() throws(StoreError) {
        docutil_xml_recorder_drop(recorder, available)
        index -= available
        available = 0
        switch input {
        case .file(let fd):
            if piece.count < nextPieceSize { piece = [UInt8](repeating: 0, count: nextPieceSize) }
            let size = nextPieceSize
            let count = piece.withUnsafeMutableBytes { raw -> Int in
                while true {
                    let count = read(fd, raw.baseAddress, size)
                    if count < 0 && errno == EINTR { continue }
                    return count
                }
            }
            guard count >= 0 else {
                throw StoreError(.io, path: path, "cannot read: \(String(cString: strerror(errno)))")
            }
            _ = piece.withUnsafeBytes { raw in
                docutil_xml_recorder_feed(
                    recorder, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(count), count == 0 ? 1 : 0)
            }
            finished = count == 0
        case .memory(let bytes):
            let count = min(nextPieceSize, bytes.count - position)
            let last = position + count == bytes.count
            _ = docutil_xml_recorder_feed(
                recorder, bytes.baseAddress.map { ($0 + position).assumingMemoryBound(to: CChar.self) },
                Int32(count), last ? 1 : 0)
            position += count
            finished = last
        }
        nextPieceSize = min(nextPieceSize * 4, Self.pieceSize)
        let r = recorder.pointee
        let holdLast =
            !finished && r.error_at < 0 && r.out_of_memory == 0 && docutil_xml_recorder_last_is_open(recorder) != 0
        available = Int(r.count) - (holdLast ? 1 : 0)
    }

    private var event: docutil_xml_event { recorder.pointee.events[index] }

    /// The current event's kind, numbered as libxml2's reader numbers node types.
    var kind: Int32 { event.kind }
    /// Whether the current event is an element (with nothing inside it or not).
    var isElement: Bool { event.kind == Int32(DOCUTIL_XML_ELEMENT) }
    /// Whether the current event ends an element.
    var isEndElement: Bool { event.kind == Int32(DOCUTIL_XML_END_ELEMENT) }
    /// Whether the current element has nothing inside it (it has no end event).
    var isEmptyElement: Bool { event.empty != 0 }
    /// Whether the current event is text (whitespace only or not).
    var isText: Bool { event.kind == Int32(DOCUTIL_XML_TEXT) || event.kind == Int32(DOCUTIL_XML_WHITESPACE) }
    /// Whether the current event is a reference to an entity (never substituted).
    var isEntityReference: Bool { event.kind == Int32(DOCUTIL_XML_ENTITY_REFERENCE) }
    /// The line of the current event (where libxml2 was when it reported it).
    var line: Int { index >= 0 && index < Int(recorder.pointee.count) ? Int(event.line) : 0 }

    /// The current element's (or end element's) qualified name, NUL-terminated.
    var namePointer: UnsafePointer<xmlChar>? { event.name }

    /// The current text's (or entity reference's name's) bytes, NUL-terminated.
    var text: UnsafePointer<xmlChar>? {
        guard isText || isEntityReference, let bytes = recorder.pointee.bytes else { return nil }
        return UnsafePointer(bytes + Int(event.text))
    }

    /// The current text as a string (empty for other events).
    var textString: String {
        guard let text else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(event.text_length)), as: UTF8.self)
    }

    /// The value of the current element's attribute `name`, NUL-terminated; `nil` when it has none.
    func attribute(_ name: UnsafePointer<CChar>) -> UnsafePointer<xmlChar>? {
        let current = event
        guard current.kind == Int32(DOCUTIL_XML_ELEMENT), let attributes = recorder.pointee.attributes,
            let bytes = recorder.pointee.bytes
        else { return nil }
        let first = Int(current.first_attribute)
        for i in first..<first + Int(current.attribute_count) {
            guard let attributeName = attributes[i].name else { continue }
            if strcmp(UnsafeRawPointer(attributeName).assumingMemoryBound(to: CChar.self), name) == 0 {
                return UnsafePointer(bytes + Int(attributes[i].value))
            }
        }
        return nil
    }
}
