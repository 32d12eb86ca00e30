import Foundation
import ObjectGraph

/// A JSON value whose objects keep their keys in the order given, so output is stable and reads naturally.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    static func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// The JSON text; pretty-printed with two-space indentation unless `compact`.
    func serialized(compact: Bool = false) -> String {
        var out = JSONBytes()
        write(to: &out, indent: compact ? nil : 0)
        return out.string
    }

    /// Indented text for a value nested `indent` levels deep (its first line not indented).
    func serialized(indent: Int) -> String {
        var out = JSONBytes()
        write(to: &out, indent: indent)
        return out.string
    }

    /// Appends the JSON text to a byte buffer (the value nested `indent` levels deep, `nil` for compact).
    func write(to out: inout JSONBytes, indent: Int?) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .int(let i): out.append(integer: i)
        case .double(let d):
            if d.isFinite {
                // Swift's shortest round-tripping form: `1.0` for integral values, an exponent from 2^53 on.
                out.append(d.description)
            } else {
                // JSON has no NaN or infinities; never null, which would read as "no value".
                out.append(string: d.isNaN ? "NaN" : d > 0 ? "Infinity" : "-Infinity")
            }
        case .string(let s): out.append(string: s)
        case .array(let items):
            if items.isEmpty {
                out.append("[]")
                return
            }
            out.append(byte: UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if let indent { out.newline(indent + 1) }
                item.write(to: &out, indent: indent.map { $0 + 1 })
                if i < items.count - 1 { out.append(byte: UInt8(ascii: ",")) }
            }
            if let indent { out.newline(indent) }
            out.append(byte: UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append("{}")
                return
            }
            out.append(byte: UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if let indent { out.newline(indent + 1) }
                out.append(string: key)
                out.append(indent == nil ? ":" : ": ")
                value.write(to: &out, indent: indent.map { $0 + 1 })
                if i < members.count - 1 { out.append(byte: UInt8(ascii: ",")) }
            }
            if let indent { out.newline(indent) }
            out.append(byte: UInt8(ascii: "}"))
        }
    }
}

/// JSON text built as UTF-8 bytes: strings are copied whole unless they hold a character JSON escapes, numbers are
/// formatted by hand, no Foundation formatter is involved. The bytes are in memory of its own, written through a
/// pointer: an `Array`'s append checks uniqueness and goes through the generic sequence path on every piece, which
/// cost more than the text itself for the short pieces JSON is made of (a URI is a prefix, a number and a quote).
/// Not copyable: it owns its memory, freed with it.
struct JSONBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    /// The bytes written.
    private(set) var count = 0
    private var capacity: Int
    /// Room for a date's or a decimal number's text, which their writers append to an array.
    private var scratch: [UInt8] = []

    init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// A copy of the bytes.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// Calls `body` with the bytes written (valid only during the call).
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    mutating func removeAll() { count = 0 }

    /// Room for `more` bytes after those written.
    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if capacity - count < more { grow(more) }
    }

    private mutating func grow(_ more: Int) {
        let larger = Swift.max(capacity * 2, count + more)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Bytes copied as they are.
    mutating func append(_ more: UnsafeBufferPointer<UInt8>) {
        guard let start = more.baseAddress else { return }
        reserve(more.count)
        (base + count).initialize(from: start, count: more.count)
        count += more.count
    }

    /// Text copied as it is (no escaping).
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Bytes copied as they are.
    mutating func append(bytes more: [UInt8]) { more.withUnsafeBufferPointer { append($0) } }

    /// Fixed text copied as it is (no escaping), without going through `String`.
    mutating func append(literal text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// A UUID as a JSON string in `uuidString`'s form (upper-case hexadecimal, `8-4-4-4-12`).
    mutating func append(uuid: UUID) {
        let hex: StaticString = "0123456789ABCDEF"
        reserve(38)
        var at = base + count
        at.pointee = UInt8(ascii: "\"")
        at += 1
        Swift.withUnsafeBytes(of: uuid.uuid) { raw in
            hex.withUTF8Buffer { digits in
                for (i, byte) in raw.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        at.pointee = UInt8(ascii: "-")
                        at += 1
                    }
                    at[0] = digits[Int(byte >> 4)]
                    at[1] = digits[Int(byte & 15)]
                    at += 2
                }
            }
        }
        at.pointee = UInt8(ascii: "\"")
        count += 38
    }

    /// A line break and two spaces per level.
    mutating func newline(_ level: Int) {
        let width = Swift.max(0, level * 2)
        reserve(width + 1)
        base[count] = UInt8(ascii: "\n")
        (base + count + 1).initialize(repeating: UInt8(ascii: " "), count: width)
        count += width + 1
    }

    /// An integer in decimal digits, written in place.
    mutating func append(integer value: Int64) {
        // A magnitude of Int64 has at most 19 digits; and a sign.
        reserve(20)
        var magnitude = value.magnitude
        var digits = 1
        var power: UInt64 = 10
        while digits < 19, magnitude >= power {
            digits += 1
            power &*= 10
        }
        if value < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var at = count + digits
        count = at
        // Two digits at a time from a table of the hundred pairs, then the first one when their count is odd.
        Self.digitPairs.withUnsafeBufferPointer { pairs in
            while magnitude >= 10 {
                let pair = Int(truncatingIfNeeded: magnitude % 100) * 2
                magnitude /= 100
                at -= 2
                base[at] = pairs[pair]
                base[at + 1] = pairs[pair + 1]
            }
        }
        if at > count - digits { base[at - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude) }
    }

    /// `00`, `01` … `99`, two bytes each.
    private static let digitPairs: [UInt8] = (0..<100).flatMap {
        [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)]
    }

    /// Bytes an array writer makes (a date's or a decimal number's text), through the kept scratch array.
    private mutating func appendWritten(_ write: (inout [UInt8]) -> Void) {
        scratch.removeAll(keepingCapacity: true)
        write(&scratch)
        scratch.withUnsafeBufferPointer { append($0) }
    }

    /// An attribute's value as dump writes it (``ObjectOutput/json(_:)-(AttributeValue)`` then `write(to:indent:)`,
    /// the same bytes), without building a ``JSONValue`` for the common types.
    mutating func append(value: AttributeValue, indent: Int) {
        switch value {
        case .null: append(literal: "null")
        case .integer16(let v): append(integer: Int64(v))
        case .integer32(let v): append(integer: Int64(v))
        case .integer64(let v): append(integer: v)
        case .boolean(let b): b ? append(literal: "true") : append(literal: "false")
        case .string(let s): append(string: s)
        case .double(let d) where d.isFinite: append(d.description)
        // Neither text has a character JSON escapes: both are written straight between quotes.
        case .date(let d):
            append(byte: UInt8(ascii: "\""))
            appendWritten { DateText.writeISO8601(d, into: &$0) }
            append(byte: UInt8(ascii: "\""))
        case .decimal(let d):
            append(byte: UInt8(ascii: "\""))
            appendWritten { DecimalText.write(d, into: &$0) }
            append(byte: UInt8(ascii: "\""))
        case .uuid(let u): append(uuid: u)
        default: ObjectOutput.json(value).write(to: &self, indent: indent)
        }
    }

    /// A JSON string: quoted, with `"`, `\\` and control characters escaped.
    mutating func append(string: String) {
        append(byte: UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { utf8 in
            // Most strings need no escape: one scan, then one copy.
            var start = 0
            for (i, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                append(UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                append(byte: UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte: byte)
                case UInt8(ascii: "\n"): append(byte: UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): append(byte: UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): append(byte: UInt8(ascii: "t"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    append(literal: "u00")
                    hex.withUTF8Buffer { digits in
                        append(byte: digits[Int(byte >> 4)])
                        append(byte: digits[Int(byte & 15)])
                    }
                }
            }
            append(UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        append(byte: UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// Text from a file as a line of `info` shows it: as it is, or quoted with its control characters escaped when
    /// it holds any (C0, DEL or C1: a terminal would act on them).
    static func shown(_ text: String) -> String {
        text.unicodeScalars.contains(where: Diagnostics.isControl) ? quoted(text) : text
    }

    /// `text` quoted as a JSON string, with DEL and C1 control characters escaped too (JSON leaves them as they are;
    /// a terminal would act on them): how text output shows a string from a file.
    static func quoted(_ text: String) -> String {
        var out = JSONBytes()
        JSONValue.string(text).write(to: &out, indent: nil)
        let quoted = out.string
        // JSON has escaped C0 already: what is left are DEL and C1.
        guard quoted.unicodeScalars.contains(where: Diagnostics.isControl) else { return quoted }
        var escaped = String.UnicodeScalarView()
        for scalar in quoted.unicodeScalars {
            if Diagnostics.isControl(scalar) {
                escaped.append(contentsOf: "\\u00\(String(scalar.value, radix: 16))".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The `docutil info` text form of an object: one line per member, nested objects summarised.
    func infoText() -> String {
        guard case .object(let members) = self else { return serialized(compact: true) + "\n" }
        var out = ""
        for member in members {
            let key = member.0
            let value = member.1
            if key == "metadata", case .object(let entries) = value {
                out += "metadata:\n"
                for entry in entries {
                    var text = entry.1.serialized(compact: true)
                    if case .object(let nested) = entry.1 { text = String(nested.count) + " entries" }
                    out += "  " + Self.shown(entry.0) + ": " + text + "\n"
                }
            } else if key == "entityCounts", case .object(let entries) = value {
                var total: Int64 = 0
                for entry in entries { if case .int(let n) = entry.1 { total += n } }
                out += "objects: " + String(total) + "\n"
                for entry in entries {
                    out += "  " + Self.shown(entry.0) + ": " + entry.1.serialized(compact: true) + "\n"
                }
            } else if case .string(let text) = value {
                out += key + ": " + Self.shown(text) + "\n"
            } else {
                out += key + ": " + value.serialized(compact: true) + "\n"
            }
        }
        return out
    }
}
