import Foundation
import ModelFiles
import ObjectGraph

/// How attribute values are stored in SQLite columns: integers and booleans as INTEGER, dates as REAL seconds since
/// 2001, UUIDs as 16-byte BLOBs, URIs as TEXT, decimals as their text (NUMERIC affinity may store them as REAL).
enum SQLiteValueCoding {
    /// Why a column value is not a value of its attribute's type (SQLite's columns take any value).
    struct Mismatch: Error {
        let reason: String
    }

    static func encode(_ value: AttributeValue, external: Bool = false) -> SQLiteValue {
        switch value {
        case .null, .composite: return .null
        case .integer16(let v): return .integer(Int64(v))
        case .integer32(let v): return .integer(Int64(v))
        case .integer64(let v): return .integer(v)
        case .boolean(let b): return .integer(b ? 1 : 0)
        case .decimal: return .text(value.literalText)
        case .double(let v): return .real(v)
        case .float(let v): return .real(Double(v))
        case .date(let d): return .real(d.timeIntervalSinceReferenceDate)
        case .string(let s): return .text(s)
        case .binary(let d), .transformable(let d):
            // Attributes that allow external storage carry a marker byte: 1 = the bytes follow inline.
            return .blob(external ? Data([1]) + d : d)
        case .uuid(let u): return .blob(u.bytes)
        case .uri(let u), .objectID(let u): return .text(u.absoluteString)
        }
    }

    /// A column value as it is, for a lenient read that keeps what does not fit.
    static func raw(_ value: SQLiteValue) -> AttributeValue {
        switch value {
        case .null: .null
        case .integer(let v): .integer64(v)
        case .real(let v): .double(v)
        case .text(let s): .string(s)
        case .invalidText(let d), .blob(let d): .binary(d)
        }
    }

    /// The attribute value of a column; `externalDirectory` holds files of externally stored binary values.
    /// - Throws: ``Mismatch`` when the stored value is not a value of `type` (text in an Integer column, a number
    ///   out of range, a missing external file): it is never read as nil.
    static func decode(_ value: SQLiteValue, as type: AttributeType, external: Bool, externalDirectory: URL?)
        throws(Mismatch) -> AttributeValue
    {
        func mismatch(_ what: String) -> Mismatch {
            Mismatch(reason: "the stored \(describe(value)) is not \(what)")
        }
        switch (value, type) {
        case (.null, _): return .null
        case (.integer(let v), .integer16):
            guard let small = Int16(exactly: v) else { throw mismatch("in the range of Integer 16") }
            return .integer16(small)
        case (.integer(let v), .integer32):
            guard let small = Int32(exactly: v) else { throw mismatch("in the range of Integer 32") }
            return .integer32(small)
        case (.integer(let v), .integer64): return .integer64(v)
        case (.real(let v), .integer16), (.real(let v), .integer32), (.real(let v), .integer64):
            do {
                return try AttributeValue.double(v).converted(to: type)
            } catch {
                throw mismatch("a whole number in the range of \(type.xcodeName)")
            }
        case (.integer(let v), .boolean):
            guard v == 0 || v == 1 else { throw mismatch("a boolean (0 or 1)") }
            return .boolean(v == 1)
        case (.integer(let v), .double):
            guard let d = Double(exactly: v) else { throw mismatch("exactly representable as a Double") }
            return .double(d)
        case (.real(let v), .double): return .double(v)
        case (.integer(let v), .float):
            guard let f = Float(exactly: v) else { throw mismatch("exactly representable as a Float") }
            return .float(f)
        case (.real(let v), .float):
            // Core Data stores a Float as the REAL of exactly that Float; anything else would be rounded.
            let f = Float(v)
            guard Double(f) == v || v.isNaN else { throw mismatch("exactly representable as a Float") }
            return .float(f)
        case (.integer(let v), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.real(let v), .date): return .date(Date(timeIntervalSinceReferenceDate: v))
        case (.integer(let v), .decimal): return .decimal(Decimal(v))
        case (.real(let v), .decimal):
            // NUMERIC affinity stored the decimal's text as a REAL: its shortest text is the decimal (an exponent
            // form goes the long way).
            let text = "\(v)"
            if v.isFinite, !text.utf8.contains(UInt8(ascii: "e")), let d = DecimalText.parse(text) {
                return .decimal(d)
            }
            guard v.isFinite, let d = try? AttributeValue(parsing: text, as: .decimal) else {
                throw mismatch("a finite decimal number")
            }
            return d
        case (.text(let s), .decimal):
            do {
                return try AttributeValue(parsing: s, as: .decimal)
            } catch {
                throw mismatch("a decimal number")
            }
        case (.text(let s), .string): return .string(s)
        case (.text(let s), .uri):
            guard let url = URL(string: s), !s.isEmpty else { throw mismatch("a URL") }
            return .uri(url)
        case (.text(let s), .objectID):
            guard let url = URL(string: s), url.scheme == "x-coredata" else { throw mismatch("an object ID URI") }
            return .objectID(url)
        case (.blob(let d), .uuid):
            guard let uuid = UUID(bytes: d) else { throw mismatch("a UUID (16 bytes)") }
            return .uuid(uuid)
        case (.text(let s), .uuid):
            guard let u = UUID(uuidString: s) else { throw mismatch("a UUID") }
            return .uuid(u)
        case (.blob(let d), .binary), (.blob(let d), .transformable):
            var bytes = d
            if external {
                guard let marker = d.first else { return type == .binary ? .binary(d) : .transformable(d) }
                switch marker {
                case 1:
                    bytes = d.dropFirst()
                case 2:
                    let name = String(decoding: d.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                    guard let directory = externalDirectory else {
                        throw Mismatch(reason: "external data without a folder")
                    }
                    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                        throw Mismatch(
                            reason: "the external data reference '\(Diagnostics.quote(name))' is not a file name")
                    }
                    let file = directory.appendingPathComponent(name)
                    do {
                        bytes = try FileKind.readRegularFile(file)
                    } catch {
                        throw Mismatch(
                            reason: "its external data file \(file.path) cannot be read (\(error.localizedDescription))"
                        )
                    }
                default:
                    throw Mismatch(reason: "the external data marker \(marker) is unknown (1 = inline, 2 = a file)")
                }
            }
            return type == .binary ? .binary(Data(bytes)) : .transformable(Data(bytes))
        case (.text(let s), .binary):
            return .binary(Data(s.utf8))
        case (.invalidText(let d), .binary):
            return .binary(d)
        case (.integer(let v), .string): throw mismatch("text (it is the number \(v))")
        default:
            throw mismatch("a \(type.xcodeName) value")
        }
    }

    static func describe(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let v): "integer \(v)"
        case .real(let v): "real \(v)"
        case .text(let s): "text '\(Diagnostics.quote(s, limit: 60))'"
        case .invalidText(let d): "text of \(d.count) bytes that is not UTF-8"
        case .blob(let d): "blob of \(d.count) bytes"
        }
    }
}
