import CSQLite
import Foundation
import ObjectGraph

/// SQL functions and collations the store registers so that SQL gives exactly the in-memory results:
/// `DOCUTIL_CMP(op, options, a, b)` runs a predicate comparison; collations `DOCUTIL_CI` and `DOCUTIL_LS` order
/// strings case-insensitively and as the Finder does.
enum SQLiteFunctions {
    static func register(on handle: OpaquePointer?, triggerEffects: TriggerEffects) {
        sqlite3_create_function_v2(
            handle, "DOCUTIL_CMP", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, docutilCompare, nil, nil, nil)
        // Apple's derived-attribute triggers (`Z_DA_…`) report each row they change through these; without them any
        // write to a table with such a trigger fails. The rows are noted so that the objects are read again.
        let effects = Unmanaged.passUnretained(triggerEffects).toOpaque()
        for name in [
            "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        ] {
            sqlite3_create_function_v2(handle, name, 5, SQLITE_UTF8, effects, derivedAttributeTrigger, nil, nil, nil)
        }
        sqlite3_create_collation_v2(handle, "DOCUTIL_CI", SQLITE_UTF8, nil, caseInsensitiveCollation, nil)
        sqlite3_create_collation_v2(handle, "DOCUTIL_LS", SQLITE_UTF8, nil, localizedStandardCollation, nil)
    }

    static func value(_ argument: OpaquePointer?) -> PredicateValue {
        switch sqlite3_value_type(argument) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(argument))
        case SQLITE_FLOAT: return .double(sqlite3_value_double(argument))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(argument))
            guard count > 0, let text = sqlite3_value_text(argument) else { return .string("") }
            return .string(String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(argument))
            guard count > 0, let bytes = sqlite3_value_blob(argument) else { return .data(Data()) }
            return .data(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    static func string(_ length: Int32, _ bytes: UnsafeRawPointer?) -> String {
        guard let bytes, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
    }
}

/// The rows Apple's derived-attribute triggers changed during a save: (entity number, primary key).
final class TriggerEffects: @unchecked Sendable {
    var rows: [(entity: Int64, key: Int64)] = []
}

/// `NSCoreDataDATrigger…AffectedObjectValue(table, Z_ENT, Z_PK, property, value)`: notes the row, returns NULL.
private func derivedAttributeTrigger(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    if let arguments, count == 5, let pointer = sqlite3_user_data(context) {
        let effects = Unmanaged<TriggerEffects>.fromOpaque(pointer).takeUnretainedValue()
        effects.rows.append((sqlite3_value_int64(arguments[1]), sqlite3_value_int64(arguments[2])))
    }
    sqlite3_result_null(context)
}

private func docutilCompare(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let arguments, count == 4, let opText = sqlite3_value_text(arguments[0]),
        let op = Comparison.Operator(rawValue: String(cString: opText))
    else {
        sqlite3_result_error(context, "DOCUTIL_CMP: bad arguments", -1)
        return
    }
    let options = Comparison.Options(rawValue: Int(sqlite3_value_int(arguments[1])))
    let comparison = Comparison(.evaluatedObject, op, .evaluatedObject, options: options)
    do {
        let holds = try comparison.holds(SQLiteFunctions.value(arguments[2]), SQLiteFunctions.value(arguments[3]))
        sqlite3_result_int(context, holds ? 1 : 0)
    } catch {
        // An invalid MATCHES pattern fails the query, with the message, instead of matching nothing.
        sqlite3_result_error(context, error.message, -1)
    }
}

private func caseInsensitiveCollation(
    _: UnsafeMutableRawPointer?, _ la: Int32, _ a: UnsafeRawPointer?, _ lb: Int32, _ b: UnsafeRawPointer?
) -> Int32 {
    Int32(
        ObjectSortDescriptor.compareStrings(
            SQLiteFunctions.string(la, a), SQLiteFunctions.string(lb, b), .caseInsensitive
        ).rawValue)
}

private func localizedStandardCollation(
    _: UnsafeMutableRawPointer?, _ la: Int32, _ a: UnsafeRawPointer?, _ lb: Int32, _ b: UnsafeRawPointer?
) -> Int32 {
    Int32(
        ObjectSortDescriptor.compareStrings(
            SQLiteFunctions.string(la, a), SQLiteFunctions.string(lb, b), .localizedStandard
        ).rawValue)
}
