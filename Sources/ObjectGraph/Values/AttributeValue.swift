public import Foundation

/// A value of any attribute type, or null.
///
/// Each case holds the natural Swift value of one ``AttributeType``. Dates are `Date`s; at the storage
/// edges they become seconds since Apple's reference date (see ``ReferenceDate``).
public enum AttributeValue: Sendable, Hashable {
    case null
    case integer16(Int16)
    case integer32(Int32)
    case integer64(Int64)
    case decimal(Decimal)
    case double(Double)
    case float(Float)
    case string(String)
    case boolean(Bool)
    case date(Date)
    case binary(Data)
    case uuid(UUID)
    case uri(URL)
    /// The bytes a value transformer produced (Linux has no value transformers; the bytes are kept as is).
    case transformable(Data)
    /// The URI form of a managed object ID.
    case objectID(URL)
    /// The member values of a composite attribute, by member name.
    case composite([String: AttributeValue])

    /// The attribute type whose natural value this is; `nil` for ``null``.
    public var type: AttributeType? {
        switch self {
        case .null: nil
        case .integer16: .integer16
        case .integer32: .integer32
        case .integer64: .integer64
        case .decimal: .decimal
        case .double: .double
        case .float: .float
        case .string: .string
        case .boolean: .boolean
        case .date: .date
        case .binary: .binary
        case .uuid: .uuid
        case .uri: .uri
        case .transformable: .transformable
        case .objectID: .objectID
        case .composite: .composite
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a 64-bit integer, when it is an integer, a boolean, or a number with no fraction that fits.
    public var int64Value: Int64? {
        switch self {
        case .integer16(let v): Int64(v)
        case .integer32(let v): Int64(v)
        case .integer64(let v): v
        case .boolean(let v): v ? 1 : 0
        case .double(let v): Int64(exactly: v)
        case .float(let v): Int64(exactly: v)
        case .decimal(let v): Self.exactInteger(v)
        default: nil
        }
    }

    /// The value as a `Double`, for any number or boolean (may round an Integer 64 or a Decimal).
    public var doubleValue: Double? {
        switch self {
        case .integer16(let v): Double(v)
        case .integer32(let v): Double(v)
        case .integer64(let v): Double(v)
        case .boolean(let v): v ? 1 : 0
        case .double(let v): v
        case .float(let v): Double(v)
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        default: nil
        }
    }

    /// The value as a `Decimal`, for any number or boolean.
    public var decimalValue: Decimal? {
        switch self {
        case .decimal(let v): v
        case .integer16, .integer32, .integer64, .boolean: int64Value.map { Decimal($0) }
        case .double(let v): v.isFinite ? Decimal(string: String(v)) : nil
        case .float(let v): v.isFinite ? Decimal(string: String(v)) : nil
        default: nil
        }
    }

    /// The string, for ``string(_:)`` values.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    private static func exactInteger(_ decimal: Decimal) -> Int64? {
        guard decimal.isFinite else { return nil }
        var value = decimal
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        guard rounded == decimal else { return nil }
        return Int64(exactly: NSDecimalNumber(decimal: rounded).int64Value).flatMap {
            Decimal($0) == rounded ? $0 : nil
        }
    }
}

extension AttributeValue {
    /// Converts the value to `type` without losing information.
    ///
    /// Integers widen and narrow when the value fits; numbers with no fraction become integers; booleans become
    /// 0 or 1 and 0 or 1 become booleans; strings parse as the target type (see ``init(parsing:as:)``); a
    /// number becomes a date as seconds since the reference date. ``null`` converts to ``null``.
    /// - Parameter type: the attribute type.
    /// - Returns: the value, of that type.
    /// - Throws: ``ValueConversionError`` when the conversion would lose information or makes no sense.
    public func converted(to type: AttributeType) throws(ValueConversionError) -> AttributeValue {
        if isNull || self.type == type { return self }
        func fail(_ reason: String) -> ValueConversionError {
            ValueConversionError(value: self, targetType: type, reason: reason)
        }
        if case .string(let text) = self, type != .string {
            return try AttributeValue(parsing: text, as: type)
        }
        switch type {
        case .integer16, .integer32, .integer64:
            guard let wide = int64Value else { throw fail("not an integer") }
            switch type {
            case .integer16:
                guard let v = Int16(exactly: wide) else { throw fail("out of range for Integer 16") }
                return .integer16(v)
            case .integer32:
                guard let v = Int32(exactly: wide) else { throw fail("out of range for Integer 32") }
                return .integer32(v)
            default:
                return .integer64(wide)
            }
        case .decimal:
            guard let v = decimalValue else { throw fail("not a number") }
            return .decimal(v)
        case .double:
            switch self {
            case .integer64(let v):
                guard let d = Double(exactly: v) else { throw fail("not exactly representable as Double") }
                return .double(d)
            case .decimal(let v):
                let d = NSDecimalNumber(decimal: v).doubleValue
                guard Decimal(string: String(d)) == v else { throw fail("not exactly representable as Double") }
                return .double(d)
            case .date(let date):
                return .double(date.timeIntervalSinceReferenceDate)
            default:
                guard let d = doubleValue else { throw fail("not a number") }
                return .double(d)
            }
        case .float:
            guard let d = try converted(to: .double).doubleValue else { throw fail("not a number") }
            let f = Float(d)
            guard Double(f) == d || d.isNaN else { throw fail("not exactly representable as Float") }
            return .float(f)
        case .boolean:
            guard let v = int64Value, v == 0 || v == 1 else { throw fail("only 0 and 1 are booleans") }
            return .boolean(v == 1)
        case .string:
            switch self {
            case .uuid(let u): return .string(u.uuidString)
            case .uri(let u), .objectID(let u): return .string(u.absoluteString)
            case .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean:
                return .string(literalText)
            default: throw fail("no string form")
            }
        case .date:
            guard let seconds = doubleValue, !isBoolean else { throw fail("not a date or number of seconds") }
            return .date(ReferenceDate.date(secondsSinceReferenceDate: seconds))
        case .binary:
            if case .transformable(let d) = self { return .binary(d) }
            if case .uuid(let u) = self { return .binary(u.bytes) }
            throw fail("no binary form")
        case .transformable:
            if case .binary(let d) = self { return .transformable(d) }
            throw fail("only binary data becomes a transformable value")
        case .uuid:
            if case .binary(let d) = self, let uuid = UUID(bytes: d) { return .uuid(uuid) }
            throw fail("only a UUID string or 16 bytes become a UUID")
        case .uri:
            if case .objectID(let u) = self { return .uri(u) }
            throw fail("only a URL string becomes a URI")
        case .objectID:
            if case .uri(let u) = self { return .objectID(u) }
            throw fail("only a URI becomes an object ID")
        case .undefined, .composite:
            throw fail("no conversion to this type")
        }
    }

    /// Whether text is `[+-]digits[.digits][(e|E)[+-]digits]` with at least one digit before the exponent.
    private static func isDecimalLiteral(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { all in
            var bytes = all[...]
            func digits() -> Int {
                let count = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
                bytes = bytes.dropFirst(count)
                return count
            }
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            var mantissaDigits = digits()
            if bytes.first == UInt8(ascii: ".") {
                bytes = bytes.dropFirst()
                mantissaDigits += digits()
            }
            guard mantissaDigits > 0 else { return false }
            if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
                bytes = bytes.dropFirst()
                if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
                guard digits() > 0 else { return false }
            }
            return bytes.isEmpty
        }
    }

    private var isBoolean: Bool {
        if case .boolean = self { return true }
        return false
    }

    /// `text` without the white space (`CharacterSet.whitespaces`) at either end; text that starts and ends with
    /// printable ASCII (most values a store holds) is returned as it is, without a copy.
    static func trimmingWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        if let first = scalars.first, let last = scalars.last,
            first.value > 0x20, first.value < 0x7F, last.value > 0x20, last.value < 0x7F
        {
            return text
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// Parses text as a value of `type`, as written in model files (`defaultValueString`) and on the command line.
    ///
    /// Integers accept decimal text (and `YES`/`NO`); floating types accept any decimal or exponent form; booleans
    /// accept `YES NO TRUE FALSE 1 0` and numbers (non-zero is true, as Xcode's `0.0` shows); dates accept seconds
    /// since the reference date, ISO 8601, or Xcode's `yyyy-MM-dd HH:mm:ss Z`; UUIDs their string form; URIs any URL.
    /// - Parameters:
    ///   - text: the text.
    ///   - type: the attribute type.
    /// - Throws: ``ValueConversionError`` when the text is not a value of that type.
    public init(parsing text: String, as type: AttributeType) throws(ValueConversionError) {
        let trimmed = Self.trimmingWhitespace(text)
        func fail(_ reason: String) -> ValueConversionError {
            ValueConversionError(value: .string(text), targetType: type, reason: reason)
        }
        func integer() throws(ValueConversionError) -> Int64 {
            if let v = Int64(trimmed) { return v }
            switch trimmed.uppercased() {
            case "YES", "TRUE": return 1
            case "NO", "FALSE": return 0
            default: break
            }
            if let d = Double(trimmed), let v = Int64(exactly: d) { return v }
            throw fail("not an integer")
        }
        switch type {
        case .integer16:
            guard let v = Int16(exactly: try integer()) else { throw fail("out of range for Integer 16") }
            self = .integer16(v)
        case .integer32:
            guard let v = Int32(exactly: try integer()) else { throw fail("out of range for Integer 32") }
            self = .integer32(v)
        case .integer64:
            self = .integer64(try integer())
        case .decimal:
            guard Self.isDecimalLiteral(trimmed),
                let v = DecimalText.parse(trimmed)
            else { throw fail("not a decimal number") }
            self = .decimal(v)
        case .double:
            guard let v = Double(trimmed) else { throw fail("not a number") }
            self = .double(v)
        case .float:
            guard let v = Float(trimmed) else { throw fail("not a number") }
            self = .float(v)
        case .string:
            self = .string(text)
        case .boolean:
            switch trimmed.uppercased() {
            case "YES", "TRUE": self = .boolean(true)
            case "NO", "FALSE": self = .boolean(false)
            default:
                guard let d = Double(trimmed) else { throw fail("not a boolean") }
                self = .boolean(d != 0)
            }
        case .date:
            if let seconds = Double(trimmed) {
                self = .date(ReferenceDate.date(secondsSinceReferenceDate: seconds))
            } else if let date = DateText.parse(trimmed) {
                self = .date(date)
            } else {
                throw fail("not a date (seconds since 2001, ISO 8601, or yyyy-MM-dd HH:mm:ss Z)")
            }
        case .uuid:
            guard let u = UUIDText.parse(trimmed) else { throw fail("not a UUID") }
            self = .uuid(u)
        case .uri:
            guard let u = URL(string: trimmed), !trimmed.isEmpty else { throw fail("not a URL") }
            self = .uri(u)
        case .objectID:
            guard let u = URL(string: trimmed), u.scheme == "x-coredata" else { throw fail("not an object ID URI") }
            self = .objectID(u)
        case .binary:
            guard let d = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else {
                throw fail("not base64")
            }
            self = .binary(d)
        case .transformable:
            guard let d = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else {
                throw fail("not base64")
            }
            self = .transformable(d)
        case .undefined, .composite:
            throw fail("values of this type have no text form")
        }
    }

    /// Whether the value is, or a composite value holds, a decimal NaN: no store file has a form for it (its text,
    /// `NaN`, is not a decimal number when read back), so writers refuse it.
    package var holdsDecimalNaN: Bool {
        switch self {
        case .decimal(let d): d.isNaN
        case .composite(let members): members.values.contains { $0.holdsDecimalNaN }
        default: false
        }
    }

    /// The value as text that ``init(parsing:as:)`` reads back to an equal value.
    ///
    /// Numbers in their shortest exact form, booleans `YES`/`NO`, dates as seconds since the reference date,
    /// binary as base64; ``null`` as an empty string.
    public var literalText: String {
        switch self {
        case .null: ""
        case .integer16(let v): String(v)
        case .integer32(let v): String(v)
        case .integer64(let v): String(v)
        case .decimal(let v): DecimalText.string(v)
        case .double(let v): Self.shortest(v)
        case .float(let v): Self.shortest(Double(v), float: v)
        case .string(let s): s
        case .boolean(let b): b ? "YES" : "NO"
        case .date(let d): Self.shortest(d.timeIntervalSinceReferenceDate)
        case .binary(let d), .transformable(let d): d.base64EncodedString()
        case .uuid(let u): u.uuidString
        case .uri(let u), .objectID(let u): u.absoluteString
        case .composite(let members):
            members.keys.sorted().map { "\($0)=\(members[$0]!.literalText)" }.joined(separator: ",")
        }
    }

    /// A short description for messages: the literal text with its type.
    public var debugText: String {
        guard let type else { return "null" }
        if case .string(let s) = self { return "\"\(s)\"" }
        return "\(literalText) (\(type.xcodeName))"
    }

    private static func shortest(_ value: Double, float: Float? = nil) -> String {
        if let float {
            if float == float.rounded(), abs(float) < 1e15 { return String(Int64(float)) }
            return "\(float)"
        }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension UUID {
    /// The 16 bytes of the UUID, in order.
    public var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// A UUID from exactly 16 bytes.
    /// - Parameter bytes: the UUID's bytes, in order; any other length gives `nil`.
    public init?(bytes: Data) {
        guard bytes.count == 16 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // One copy of the 16 bytes (`copyBytes(from:)` of a `Data` went a byte at a time through its collection API).
        withUnsafeMutableBytes(of: &raw) { target in bytes.withUnsafeBytes { target.copyMemory(from: $0) } }
        self.init(uuid: raw)
    }
}

extension AttributeValue {
    /// `value` converted losslessly to the type of `attribute`. Undefined attributes take any value; composite values
    /// are checked member by member against their ``CompositeDescription`` (unknown members are an error, null members
    /// are dropped, and a composite whose members are all null is ``null``).
    /// - Parameters:
    ///   - value: the value.
    ///   - attribute: the attribute.
    ///   - composites: the model's composites, by name.
    /// - Returns: the value, of the attribute's type.
    /// - Throws: ``ValueConversionError`` when the value does not fit.
    public static func converted(
        _ value: AttributeValue, to attribute: AttributeDescription, composites: [String: CompositeDescription]
    ) throws(ValueConversionError) -> AttributeValue {
        switch attribute.type {
        case .undefined: return value
        case .composite:
            if value.isNull { return .null }
            guard case .composite(let members) = value else {
                throw ValueConversionError(
                    value: value, targetType: .composite, reason: "only a composite value fits a composite attribute")
            }
            guard let name = attribute.compositeName, let composite = composites[name] else {
                throw ValueConversionError(
                    value: value, targetType: .composite,
                    reason: "the model does not define the composite '\(attribute.compositeName ?? "")'")
            }
            var result: [String: AttributeValue] = [:]
            for (key, member) in members where !member.isNull {
                guard let description = composite.attributes.first(where: { $0.name == key }) else {
                    throw ValueConversionError(
                        value: value, targetType: .composite, reason: "composite '\(name)' has no member '\(key)'")
                }
                let converted = try Self.converted(member, to: description, composites: composites)
                if !converted.isNull { result[key] = converted }
            }
            return result.isEmpty ? .null : .composite(result)
        default:
            return try value.converted(to: attribute.type)
        }
    }
}

extension AttributeValue {
    /// Puts a member value of a composite attribute at its path (`["position", "x"]`) in nested member
    /// dictionaries, making the intermediate composites it needs: how stores that keep members apart (a column or
    /// an XML attribute each) put a composite value back together.
    /// - Parameters:
    ///   - value: the member's value.
    ///   - path: the member's path below the attribute.
    ///   - members: the composite's members so far.
    public static func insertMember(
        _ value: AttributeValue, at path: ArraySlice<String>, into members: inout [String: AttributeValue]
    ) {
        guard let first = path.first else { return }
        if path.count == 1 {
            members[first] = value
            return
        }
        var nested: [String: AttributeValue] = [:]
        if case .composite(let existing)? = members[first] { nested = existing }
        insertMember(value, at: path.dropFirst(), into: &nested)
        members[first] = .composite(nested)
    }
}

extension AttributeValue: CustomStringConvertible {
    /// ``debugText``: the literal text with its type. (The synthesized description prints a date through
    /// Foundation, which stops the program on a NaN date.)
    public var description: String { debugText }
}
