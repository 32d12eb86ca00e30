import Foundation

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
        var out = ""
        write(to: &out, indent: compact ? nil : 0)
        return out
    }

    /// Indented text for a value nested `indent` levels deep (its first line not indented).
    func serialized(indent: Int) -> String {
        var out = ""
        write(to: &out, indent: indent)
        return out
    }

    private func write(to out: inout String, indent: Int?) {
        let newline = indent == nil ? "" : "\n"
        let pad = { (level: Int) in String(repeating: "  ", count: level) }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite {
                out += d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)"
            } else {
                // JSON has no NaN or infinities; never null, which would read as "no value".
                Self.writeString(d.isNaN ? "NaN" : d > 0 ? "Infinity" : "-Infinity", to: &out)
            }
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + newline
            for (i, item) in items.enumerated() {
                if let indent { out += pad(indent + 1) }
                item.write(to: &out, indent: indent.map { $0 + 1 })
                if i < items.count - 1 { out += "," }
                out += newline
            }
            if let indent { out += pad(indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{" + newline
            for (i, (key, value)) in members.enumerated() {
                if let indent { out += pad(indent + 1) }
                Self.writeString(key, to: &out)
                out += indent == nil ? ":" : ": "
                value.write(to: &out, indent: indent.map { $0 + 1 })
                if i < members.count - 1 { out += "," }
                out += newline
            }
            if let indent { out += pad(indent) }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue {
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
                    out += "  " + entry.0 + ": " + text + "\n"
                }
            } else if key == "entityCounts", case .object(let entries) = value {
                var total: Int64 = 0
                for entry in entries { if case .int(let n) = entry.1 { total += n } }
                out += "objects: " + String(total) + "\n"
                for entry in entries { out += "  " + entry.0 + ": " + entry.1.serialized(compact: true) + "\n" }
            } else if case .string(let text) = value {
                out += key + ": " + text + "\n"
            } else {
                out += key + ": " + value.serialized(compact: true) + "\n"
            }
        }
        return out
    }
}
