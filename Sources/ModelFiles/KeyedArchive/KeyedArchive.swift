import Foundation
import ObjectGraph

/// An `NSKeyedArchiver` archive: a binary property list whose `$objects` table holds every archived object, with
/// references between them as UIDs.
///
/// This is a read-only view that understands the Foundation container classes found in model archives
/// (`NSArray`, `NSSet`, `NSDictionary` and their mutable forms, `NSKnownKeysDictionary1`, `NSString`,
/// `NSMutableString`, `NSData`, `NSDate`, `NSNumber` inline values). Objects are looked up by UID, so the circular
/// references of a model (entity ↔ model, property ↔ entity) are harmless. Every lookup is bounds-checked and
/// errors name the object.
struct KeyedArchive {
    /// The `$objects` table.
    let objects: [PropertyList]
    /// The UID of the root object (`$top.root`).
    let rootUID: Int

    init(data: Data) throws(ModelFileError) {
        let plist = try PropertyList.read(data)
        guard case .dictionary(let top) = plist else {
            throw ModelFileError(.malformed, "keyed archive: top level is not a dictionary")
        }
        guard let archiver = top["$archiver"]?.string, archiver == "NSKeyedArchiver" else {
            throw ModelFileError(.malformed, "keyed archive: no '$archiver = NSKeyedArchiver' entry")
        }
        guard let objects = top["$objects"]?.array else {
            throw ModelFileError(.malformed, "keyed archive: no '$objects' array")
        }
        guard let root = top["$top"]?["root"]?.uid, root >= 0, root < objects.count else {
            throw ModelFileError(.malformed, "keyed archive: '$top.root' is missing or out of range")
        }
        self.objects = objects
        self.rootUID = root
    }

    func fail(_ uid: Int, _ message: String) -> ModelFileError {
        ModelFileError(.malformed, location: "$objects[\(uid)]", "keyed archive: \(message)")
    }

    /// The archived object a value refers to: the value itself unless it is a UID; `nil` for `$null`.
    func resolve(_ value: PropertyList?) throws(ModelFileError) -> (uid: Int?, value: PropertyList)? {
        guard let value else { return nil }
        guard case .uid(let uid) = value else { return (nil, value) }
        guard uid >= 0, uid < objects.count else { throw fail(uid, "reference \(uid) out of range") }
        let object = objects[uid]
        if case .string("$null") = object { return nil }
        return (uid, object)
    }

    /// The class name of an archived object (`$class` → `$classname`).
    func className(of object: PropertyList) -> String? {
        guard let classUID = object["$class"]?.uid, classUID >= 0, classUID < objects.count else { return nil }
        return objects[classUID]["$classname"]?.string
    }

    /// The keyed fields of the object at `uid`, with its class name.
    func instance(_ value: PropertyList?) throws(ModelFileError) -> ArchivedInstance? {
        guard let (uid, object) = try resolve(value) else { return nil }
        guard case .dictionary(let fields) = object, let className = className(of: object) else {
            throw fail(uid ?? -1, "expected an archived object")
        }
        return ArchivedInstance(uid: uid ?? -1, className: className, fields: fields)
    }

    /// A string stored inline or as an `NSString`/`NSMutableString` object; `nil` for `$null` or no value.
    func string(_ value: PropertyList?) throws(ModelFileError) -> String? {
        guard let (uid, object) = try resolve(value) else { return nil }
        switch object {
        case .string(let s): return s
        case .dictionary(let fields):
            if let s = fields["NS.string"]?.string { return s }
            if let d = fields["NS.bytes"]?.data {
                guard let string = String(validating: d, as: UTF8.self) else {
                    throw fail(uid ?? -1, "a string's NS.bytes are not UTF-8")
                }
                return string
            }
            throw fail(uid ?? -1, "expected a string, found \(className(of: object) ?? "an object")")
        default:
            throw fail(uid ?? -1, "expected a string")
        }
    }

    /// The elements of an `NSArray`, `NSSet` or their mutable forms (as unresolved values).
    func array(_ value: PropertyList?) throws(ModelFileError) -> [PropertyList] {
        guard let (uid, object) = try resolve(value) else { return [] }
        guard let elements = object["NS.objects"]?.array else {
            throw fail(uid ?? -1, "expected an array or set, found \(className(of: object) ?? "a plain value")")
        }
        return elements
    }

    /// The entries of an `NSDictionary`, its mutable form, or `NSKnownKeysDictionary1`, in archived order.
    func dictionary(_ value: PropertyList?) throws(ModelFileError) -> [(key: String, value: PropertyList)] {
        guard let (uid, object) = try resolve(value) else { return [] }
        let here = uid ?? -1
        if let keys = object["NS.keys"]?.array, let values = object["NS.objects"]?.array {
            guard keys.count == values.count else {
                throw fail(here, "dictionary has \(keys.count) keys, \(values.count) values")
            }
            var result: [(String, PropertyList)] = []
            for (k, v) in zip(keys, values) {
                guard let key = try string(k) else { throw fail(here, "dictionary key is null") }
                result.append((key, v))
            }
            return result
        }
        if className(of: object) == "NSKnownKeysDictionary1" {
            let values = try array(object["values"])
            guard let mapping = try instance(object["searchMapping"]) else {
                throw fail(here, "NSKnownKeysDictionary1 without searchMapping")
            }
            let keys = try array(mapping.fields["keys"])
            guard keys.count <= values.count else {
                throw fail(here, "NSKnownKeysDictionary1 has \(keys.count) keys, \(values.count) values")
            }
            var result: [(String, PropertyList)] = []
            for (k, v) in zip(keys, values) {
                guard let key = try string(k) else { throw fail(here, "dictionary key is null") }
                result.append((key, v))
            }
            return result
        }
        throw fail(here, "expected a dictionary, found \(className(of: object) ?? "a plain value")")
    }

    /// A plain value (number, boolean, string, data, date), decoding the Foundation classes that wrap them.
    func scalar(_ value: PropertyList?) throws(ModelFileError) -> PropertyList? {
        guard let (uid, object) = try resolve(value) else { return nil }
        guard case .dictionary(let fields) = object else { return object }
        switch className(of: object) {
        case "NSString", "NSMutableString": return try string(value).map { .string($0) }
        case "NSData", "NSMutableData": return fields["NS.data"].flatMap { try? resolve($0)?.value }
        case "NSDate":
            return fields["NS.time"]?.integer.map { .date(Date(timeIntervalSinceReferenceDate: Double($0))) }
                ?? fields["NS.time"].flatMap {
                    if case .real(let r) = $0 { .date(Date(timeIntervalSinceReferenceDate: r)) } else { nil }
                }
        case "NSUUID": return fields["NS.uuidbytes"].flatMap { try? resolve($0)?.value }
        case "NSURL":
            guard let relative = try string(fields["NS.relative"]) else { return nil }
            return .string(relative)
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
            return try decimal(fields, uid: uid ?? -1)
        default:
            throw fail(uid ?? -1, "unsupported value class \(className(of: object) ?? "?")")
        }
    }

    /// Decodes `NSDecimalNumber` fields into a string holding the exact decimal value.
    private func decimal(_ fields: [String: PropertyList], uid: Int) throws(ModelFileError) -> PropertyList {
        guard let exponent = fields["NS.exponent"]?.integer,
            let mantissaData = try resolve(fields["NS.mantissa"])?.value.data
        else { throw fail(uid, "NSDecimalNumber without mantissa or exponent") }
        let negative = fields["NS.negative"]?.boolean ?? false
        let bigEndian = (fields["NS.mantissa.bo"]?.integer ?? 1) == 0
        // Little-endian bytes after this, most significant last.
        let bytes = Array(bigEndian ? Data(mantissaData.reversed()) : mantissaData).prefix(16)
        var mantissa = Decimal(0)
        for byte in bytes.reversed() { mantissa = mantissa * 256 + Decimal(Int(byte)) }
        var result = mantissa
        let scale = Int(exponent)
        guard abs(scale) < 128 else { throw fail(uid, "NSDecimalNumber exponent out of range") }
        if scale > 0 {
            for _ in 0..<scale { result *= 10 }
        } else if scale < 0 {
            for _ in 0..<(-scale) { result /= 10 }
        }
        if negative { result = -result }
        return .string(DecimalText.string(result))
    }
}

/// One archived object: its UID, class and keyed fields.
struct ArchivedInstance {
    let uid: Int
    let className: String
    let fields: [String: PropertyList]

    subscript(key: String) -> PropertyList? { fields[key] }
}
