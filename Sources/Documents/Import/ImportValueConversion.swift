import Foundation
import ObjectGraph

/// Why a source value does not fit an attribute.
struct ImportValueError: Error {
    var reason: String
}

extension ImportValue {
    /// The value as `attribute`'s type, without loss.
    ///
    /// Text (CSV, TSV, strings) is parsed by the type: integers, decimals, doubles (`NaN`, `Infinity` too), booleans
    /// (`YES NO true false 1 0`), dates (ISO 8601, or Xcode's `yyyy-MM-dd HH:mm:ss ±hhmm`), binary (base64), UUIDs,
    /// URIs. An empty CSV or TSV cell is nil. Numbers, booleans, dates and data from JSON or property lists must
    /// suit the type (a whole number is not a date; a string attribute takes only strings).
    func attributeValue(
        for attribute: AttributeDescription, model: ManagedObjectModel
    ) throws(ImportValueError) -> AttributeValue {
        try attributeValue(type: attribute.type, compositeName: attribute.compositeName, model: model)
    }

    /// As ``attributeValue(for:model:)``, for an attribute of this type (and composite, for a composite attribute).
    func attributeValue(
        type: AttributeType, compositeName: String?, model: ManagedObjectModel
    ) throws(ImportValueError) -> AttributeValue {
        func mismatch() -> ImportValueError {
            ImportValueError(reason: "expected \(Self.expected(type)), found \(kind)")
        }
        func convert(_ value: AttributeValue) throws(ImportValueError) -> AttributeValue {
            do {
                return try value.converted(to: type)
            } catch {
                throw ImportValueError(reason: error.reason)
            }
        }
        switch self {
        case .null:
            return .null
        case .text(let text):
            if text.isEmpty { return .null }
            return try Self.parse(text, as: type)
        case .string(let text):
            if type == .string { return .string(text) }
            return try Self.parse(text, as: type)
        case .integer(let value):
            switch type {
            case .integer16, .integer32, .integer64, .decimal, .double, .float:
                return try convert(.integer64(value))
            case .boolean:
                guard value == 0 || value == 1 else { throw ImportValueError(reason: "only 0 and 1 are booleans") }
                return .boolean(value == 1)
            default: throw mismatch()
            }
        case .number(let text):
            switch type {
            case .integer16, .integer32, .integer64, .decimal, .double, .float:
                return try Self.parse(text, as: type)
            default: throw mismatch()
            }
        case .real(let value):
            switch type {
            case .integer16, .integer32, .integer64, .decimal, .double, .float: return try convert(.double(value))
            default: throw mismatch()
            }
        case .bool(let value):
            guard type == .boolean else { throw mismatch() }
            return .boolean(value)
        case .date(let date):
            guard type == .date else { throw mismatch() }
            return .date(date)
        case .data(let data):
            switch type {
            case .binary: return .binary(data)
            case .transformable: return .transformable(data)
            case .uuid:
                guard data.count == 16 else {
                    throw ImportValueError(reason: "a UUID is 16 bytes, found \(data.count)")
                }
                return try convert(.binary(data))
            default: throw mismatch()
            }
        case .array:
            throw mismatch()
        case .object(let fields):
            guard type == .composite, let name = compositeName, let composite = model.composite(named: name)
            else { throw mismatch() }
            var members: [String: AttributeValue] = [:]
            for field in fields {
                guard let member = composite.attributes.first(where: { $0.name == field.name }) else {
                    throw ImportValueError(reason: "the composite \(name) has no member '\(field.name)'")
                }
                do {
                    members[member.name] = try field.node.value.attributeValue(for: member, model: model)
                } catch {
                    throw ImportValueError(reason: "\(field.name): \(error.reason)")
                }
            }
            return .composite(members)
        }
    }

    /// Text as a value of the attribute's type (strictly: booleans are only `YES NO true false 1 0`, base64 has
    /// nothing but base64, dates are written as dates).
    static func parse(_ text: String, as type: AttributeType) throws(ImportValueError) -> AttributeValue {
        // The common forms first, without trimming or conversions (an import reads millions of cells).
        switch type {
        case .string:
            return .string(text)
        case .integer64:
            if let value = Int64(text) { return .integer64(value) }
        case .integer32:
            if let value = Int32(text) { return .integer32(value) }
        case .integer16:
            if let value = Int16(text) { return .integer16(value) }
        case .double:
            if let value = Double(text) { return .double(value) }
        case .date:
            if let date = DateText.parse(text) { return .date(date) }
        case .boolean:
            if text == "true" || text == "YES" || text == "1" { return .boolean(true) }
            if text == "false" || text == "NO" || text == "0" { return .boolean(false) }
        default:
            break
        }
        switch type {
        case .boolean:
            switch text.lowercased() {
            case "yes", "true", "1": return .boolean(true)
            case "no", "false", "0": return .boolean(false)
            default: throw ImportValueError(reason: "'\(text)' is not a boolean (YES NO true false 1 0)")
            }
        case .binary, .transformable:
            guard let data = Data(base64Encoded: text) else {
                throw ImportValueError(reason: "not base64 data")
            }
            return type == .binary ? .binary(data) : .transformable(data)
        case .date:
            guard let date = DateText.parse(text.trimmingCharacters(in: .whitespaces)) else {
                throw ImportValueError(reason: "'\(text)' is not an ISO 8601 date")
            }
            return .date(date)
        case .composite:
            throw ImportValueError(reason: "a composite attribute takes an object (JSON or property list)")
        default:
            do {
                return try AttributeValue(parsing: text, as: type)
            } catch {
                throw ImportValueError(reason: "'\(text)': \(error.reason)")
            }
        }
    }

    static func expected(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: "a number"
        case .string: "a string"
        case .boolean: "a boolean"
        case .date: "a date"
        case .binary, .transformable: "data"
        case .uuid: "a UUID"
        case .uri, .objectID: "a URI"
        case .composite: "an object"
        case .undefined: "no value (the attribute's type is undefined)"
        }
    }
}
