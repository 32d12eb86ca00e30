import Foundation
import ObjectGraph

/// How attribute values are stored in SQLite columns: integers and booleans as INTEGER, dates as REAL seconds since
/// 2001, UUIDs as 16-byte BLOBs, URIs as TEXT, decimals as their text (NUMERIC affinity may store them as REAL).
enum SQLiteValueCoding {
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

    /// The attribute value of a column; `externalDirectory` holds files of externally stored binary values.
    static func decode(_ value: SQLiteValue, as type: AttributeType, external: Bool, externalDirectory: URL?)
        -> AttributeValue
    {
        switch (value, type) {
        case (.null, _): return .null
        case (.integer(let v), .integer16): return Int16(exactly: v).map { .integer16($0) } ?? .integer64(v)
        case (.integer(let v), .integer32): return Int32(exactly: v).map { .integer32($0) } ?? .integer64(v)
        case (.integer(let v), .integer64): return .integer64(v)
        case (.real(let v), .integer16), (.real(let v), .integer32), (.real(let v), .integer64):
            return (try? AttributeValue.double(v).converted(to: type)) ?? .null
        case (.integer(let v), .boolean): return .boolean(v != 0)
        case (.integer(let v), .double): return .double(Double(v))
        case (.real(let v), .double): return .double(v)
        case (.integer(let v), .float): return .float(Float(v))
        case (.real(let v), .float): return .float(Float(v))
        case (.integer(let v), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.real(let v), .date): return .date(Date(timeIntervalSinceReferenceDate: v))
        case (.integer(let v), .decimal): return .decimal(Decimal(v))
        case (.real(let v), .decimal): return (try? AttributeValue(parsing: "\(v)", as: .decimal)) ?? .null
        case (.text(let s), .decimal): return (try? AttributeValue(parsing: s, as: .decimal)) ?? .null
        case (.text(let s), .string): return .string(s)
        case (.text(let s), .uri): return URL(string: s).map { .uri($0) } ?? .null
        case (.text(let s), .objectID): return URL(string: s).map { .objectID($0) } ?? .null
        case (.blob(let d), .uuid) where d.count == 16: return .uuid(UUID(bytes: d))
        case (.text(let s), .uuid): return UUID(uuidString: s).map { .uuid($0) } ?? .null
        case (.blob(let d), .binary), (.blob(let d), .transformable):
            var bytes = d
            if external, let marker = d.first {
                if marker == 1 {
                    bytes = d.dropFirst()
                } else if marker == 2, let directory = externalDirectory {
                    let name = String(decoding: d.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                    bytes = (try? Data(contentsOf: directory.appendingPathComponent(name))) ?? Data()
                }
            }
            return type == .binary ? .binary(Data(bytes)) : .transformable(Data(bytes))
        case (.text(let s), .binary): return .binary(Data(s.utf8))
        case (.integer(let v), .string): return .string(String(v))
        case (.real(let v), .string): return .string("\(v)")
        default: return .null
        }
    }
}
