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
/// formatted by hand, no Foundation formatter is involved.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(byte: UInt8) { bytes.append(byte) }

    /// Text copied as it is (no escaping).
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Bytes copied as they are.
    mutating func append(bytes more: [UInt8]) { bytes.append(contentsOf: more) }

    /// Fixed text copied as it is (no escaping), without going through `String`.
    mutating func append(literal text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A UUID as a JSON string in `uuidString`'s form (upper-case hexadecimal, `8-4-4-4-12`).
    mutating func append(uuid: UUID) {
        let hex: StaticString = "0123456789ABCDEF"
        bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: uuid.uuid) { raw in
            hex.withUTF8Buffer { digits in
                for (i, byte) in raw.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 { bytes.append(UInt8(ascii: "-")) }
                    bytes.append(digits[Int(byte >> 4)])
                    bytes.append(digits[Int(byte & 15)])
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A line break and two spaces per level.
    mutating func newline(_ level: Int) {
        let width = Swift.max(0, level * 2)
        if width < Self.lineStarts.count {
            bytes.append(contentsOf: Self.lineStarts[...width])
        } else {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width))
        }
    }

    /// A line break and the spaces of the usual indentation levels, copied from in one piece.
    private static let lineStarts = [UInt8(ascii: "\n")] + [UInt8](repeating: UInt8(ascii: " "), count: 32)

    /// An integer in decimal digits, formatted in a small buffer and appended in one piece.
    mutating func append(integer value: Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            var magnitude = value.magnitude
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
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
            bytes.append(UInt8(ascii: "\""))
            DateText.writeISO8601(d, into: &bytes)
            bytes.append(UInt8(ascii: "\""))
        case .decimal(let d):
            bytes.append(UInt8(ascii: "\""))
            DecimalText.write(d, into: &bytes)
            bytes.append(UInt8(ascii: "\""))
        case .uuid(let u): append(uuid: u)
        default: ObjectOutput.json(value).write(to: &self, indent: indent)
        }
    }

    /// A JSON string: quoted, with `"`, `\\` and control characters escaped.
    mutating func append(string: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { utf8 in
            // Most strings need no escape: one scan, then one copy.
            var plain = true
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                plain = false
                break
            }
            if plain {
                bytes.append(contentsOf: utf8)
                return
            }
            var start = 0
            for (i, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: utf8[start..<i])
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: Array("\\u00".utf8))
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 15)])
                }
            }
            bytes.append(contentsOf: utf8[start...])
        }
        bytes.append(UInt8(ascii: "\""))
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
