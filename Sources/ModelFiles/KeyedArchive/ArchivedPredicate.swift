public import Foundation
public import ObjectGraph

/// Decodes predicates and expressions archived with `NSKeyedArchiver` (`NSPredicate`, `NSComparisonPredicate`,
/// `NSCompoundPredicate`, `NSExpression`), as compiled models (`.mom`) and store model caches hold them for fetch
/// request templates, fetched properties and fetch indexes.
///
/// Known from Apple's own archives (a Core Data store's model cache): comparison predicates keep
/// `NSLeftExpression`, `NSRightExpression` and an operator object whose `NSOperatorType` is the public
/// `NSPredicateOperatorType` value, `NSModifier` the public modifier and `NSOptions` (or `NSFlags`) the public
/// option bits; compound predicates keep `NSCompoundPredicateType` and `NSSubpredicates`; expressions keep
/// `NSExpressionType` — constant values (`NSConstantValue`), `SELF`, variables (`NSVariable`), and key paths and
/// functions as an `NSOperand`, an `NSSelectorName` and `NSArguments`, where a key path is the selector
/// `valueForKey:`/`valueForKeyPath:` applied to an `NSKeyPathSpecifierExpression` (`NSKeyPath`). Other kinds
/// (subqueries, aggregates, blocks, custom selectors) are not decoded: they are errors, never a predicate that
/// matches everything.
public enum ArchivedPredicate {
    /// The deepest nesting decoded (deeper archives are refused, so decoding never exhausts the stack).
    static let maximumDepth = 200

    /// Decodes a keyed archive whose root object is a predicate.
    /// - Parameter data: the archive's bytes.
    /// - Returns: the predicate.
    /// - Throws: ``ModelFileError``: `malformed` for a damaged archive, `unsupported` for a kind of predicate or
    ///   expression that is not decoded.
    public static func decode(_ data: Data) throws(ModelFileError) -> ObjectPredicate {
        let archive = try KeyedArchive(data: data)
        return try predicate(.uid(archive.rootUID), in: archive)
    }

    /// Decodes a keyed archive whose root object is an expression, as mapping models hold the value expressions of
    /// their property mappings. Unlike in predicates, a `FUNCTION` sent to an object (`FUNCTION($manager,
    /// "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`) is decoded, as a method call, for the
    /// migration that runs it to handle or refuse.
    /// - Parameter data: the archive's bytes.
    /// - Returns: the expression.
    /// - Throws: ``ModelFileError``: `malformed` for a damaged archive, `unsupported` for a kind of expression that
    ///   is not decoded.
    public static func decodeExpression(_ data: Data) throws(ModelFileError) -> ObjectExpression {
        let archive = try KeyedArchive(data: data)
        var decoder = Decoder(archive: archive)
        decoder.decodesMethodCalls = true
        return try decoder.expression(.uid(archive.rootUID), depth: 0)
    }

    static func predicate(_ value: PropertyList?, in archive: KeyedArchive) throws(ModelFileError) -> ObjectPredicate {
        var decoder = Decoder(archive: archive)
        return try decoder.predicate(value, depth: 0)
    }

    struct Decoder {
        let archive: KeyedArchive
        /// Decode `FUNCTION(object, "selector", …)` as a method call instead of refusing it.
        var decodesMethodCalls = false

        func unsupported(_ uid: Int, _ what: String) -> ModelFileError {
            ModelFileError(.unsupported, location: "$objects[\(uid)]", "archived predicate: \(what) is not decoded")
        }

        func instance(_ value: PropertyList?, depth: Int) throws(ModelFileError) -> ArchivedInstance {
            guard depth < ArchivedPredicate.maximumDepth else {
                throw ModelFileError(
                    .malformed, "archived predicate: nested deeper than \(ArchivedPredicate.maximumDepth)")
            }
            guard let instance = try archive.instance(value) else {
                throw ModelFileError(.malformed, "archived predicate: a part is missing ($null)")
            }
            return instance
        }

        func integer(_ instance: ArchivedInstance, _ key: String) throws(ModelFileError) -> Int64? {
            try archive.scalar(instance[key])?.integer
        }

        mutating func predicate(_ value: PropertyList?, depth: Int) throws(ModelFileError) -> ObjectPredicate {
            let p = try instance(value, depth: depth)
            switch p.className {
            case "NSTruePredicate": return .true
            case "NSFalsePredicate": return .false
            case "NSCompoundPredicate":
                var parts: [ObjectPredicate] = []
                for part in try archive.array(p["NSSubpredicates"]) {
                    parts.append(try predicate(part, depth: depth + 1))
                }
                switch try integer(p, "NSCompoundPredicateType") {
                case 0?:
                    guard parts.count == 1 else { throw archive.fail(p.uid, "NOT with \(parts.count) subpredicates") }
                    return .not(parts[0])
                case 1?: return parts.isEmpty ? .true : parts.count == 1 ? parts[0] : .and(parts)
                case 2?: return parts.isEmpty ? .false : parts.count == 1 ? parts[0] : .or(parts)
                case let other:
                    throw archive.fail(p.uid, "unknown compound predicate type \(other.map(String.init) ?? "none")")
                }
            case "NSComparisonPredicate":
                let lhs = try expression(p["NSLeftExpression"], depth: depth + 1)
                let rhs = try expression(p["NSRightExpression"], depth: depth + 1)
                let op = try instance(p["NSPredicateOperator"], depth: depth + 1)
                guard let type = try integer(op, "NSOperatorType") else {
                    throw archive.fail(op.uid, "comparison operator without NSOperatorType")
                }
                let operators: [Int64: Comparison.Operator] = [
                    0: .lessThan, 1: .lessThanOrEqual, 2: .greaterThan, 3: .greaterThanOrEqual, 4: .equal, 5: .notEqual,
                    6: .matches, 7: .like, 8: .beginsWith, 9: .endsWith, 10: .in, 99: .contains, 100: .between,
                ]
                guard let kind = operators[type] else {
                    throw unsupported(op.uid, "operator type \(type) (\(op.className))")
                }
                let modifier: Comparison.Modifier
                var modifierCode = try integer(op, "NSModifier")
                if modifierCode == nil { modifierCode = try integer(p, "NSModifier") }
                switch modifierCode ?? 0 {
                case 0: modifier = .direct
                case 1: modifier = .all
                case 2: modifier = .any
                case let other: throw archive.fail(op.uid, "unknown comparison modifier \(other)")
                }
                var optionBits = try integer(op, "NSOptions")
                if optionBits == nil { optionBits = try integer(op, "NSFlags") }
                let bits = optionBits ?? 0
                var options: Comparison.Options = []
                if bits & 1 != 0 { options.insert(.caseInsensitive) }
                if bits & 2 != 0 { options.insert(.diacriticInsensitive) }
                if bits & 4 != 0 { options.insert(.normalized) }
                if bits & 8 != 0 { options.insert(.localeSensitive) }
                return .comparison(Comparison(lhs, kind, rhs, modifier: modifier, options: options))
            default:
                throw unsupported(p.uid, "a \(p.className)")
            }
        }

        mutating func expression(_ value: PropertyList?, depth: Int) throws(ModelFileError) -> ObjectExpression {
            let e = try instance(value, depth: depth)
            switch try integer(e, "NSExpressionType") {
            case 0?:
                guard let constant = try archive.resolve(e["NSConstantValue"]) else { return .constant(.null) }
                return .constant(try self.constant(constant.value, uid: constant.uid ?? e.uid, depth: depth + 1))
            case 1?: return .evaluatedObject
            case 2?:
                guard let name = try archive.string(e["NSVariable"]), !name.isEmpty else {
                    throw archive.fail(e.uid, "variable expression without a name")
                }
                return .variable(name)
            case 3?, 4?:
                let selector = try archive.string(e["NSSelectorName"]) ?? ""
                var arguments: [ObjectExpression] = []
                for argument in try archive.array(e["NSArguments"]) {
                    arguments.append(try expression(argument, depth: depth + 1))
                }
                if selector == "valueForKey:" || selector == "valueForKeyPath:" {
                    guard arguments.count == 1, case .keyPath(.evaluatedObject, let path) = arguments[0] else {
                        throw archive.fail(e.uid, "\(selector) without a key path")
                    }
                    let operand = try expression(e["NSOperand"], depth: depth + 1)
                    if case .keyPath(let base, let start) = operand { return .keyPath(base, start + path) }
                    return .keyPath(operand, path)
                }
                // Predicate-language functions are sent to a constant naming _NSPredicateUtilities.
                let operand = try instance(e["NSOperand"], depth: depth + 1)
                guard try archive.string(operand["NSConstantValueClassName"]) == "_NSPredicateUtilities",
                    !selector.isEmpty
                else {
                    if decodesMethodCalls && !selector.isEmpty {
                        return .methodCall(try expression(e["NSOperand"], depth: depth + 1), selector, arguments)
                    }
                    throw unsupported(e.uid, "FUNCTION with selector '\(selector)' sent to an object")
                }
                let name = selector.filter { $0 == ":" }.count == 1 ? String(selector.dropLast()) : selector
                return .function(name, arguments)
            case 10?:
                guard let path = try archive.string(e["NSKeyPath"]), !path.isEmpty else {
                    throw archive.fail(e.uid, "key path expression without a key path")
                }
                return .keyPath(
                    .evaluatedObject, path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
            case let type:
                throw unsupported(e.uid, "an \(e.className) (expression type \(type.map(String.init) ?? "none"))")
            }
        }

        /// A constant value: a number, string, date, data, UUID, URL, null, or an array of them.
        func constant(_ value: PropertyList, uid: Int, depth: Int) throws(ModelFileError) -> PredicateConstant {
            guard depth < ArchivedPredicate.maximumDepth else {
                throw ModelFileError(
                    .malformed, "archived predicate: nested deeper than \(ArchivedPredicate.maximumDepth)")
            }
            switch value {
            case .string(let s): return .string(s)
            case .integer(let i): return .integer(i)
            case .real(let r): return .double(r)
            case .boolean(let b): return .boolean(b)
            case .date(let d): return .date(d)
            case .data(let d): return .data(d)
            case .null: return .null
            case .dictionary:
                switch archive.className(of: value) {
                case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                    var items: [PredicateConstant] = []
                    for item in try archive.array(value) {
                        guard let resolved = try archive.resolve(item) else {
                            items.append(.null)
                            continue
                        }
                        items.append(try constant(resolved.value, uid: resolved.uid ?? uid, depth: depth + 1))
                    }
                    return .array(items)
                case "NSNull": return .null
                case "NSUUID":
                    guard case .data(let bytes)? = try archive.scalar(value), let uuid = UUID(bytes: bytes) else {
                        throw archive.fail(uid, "NSUUID without 16 bytes")
                    }
                    return .uuid(uuid)
                case "NSURL":
                    guard case .string(let text)? = try archive.scalar(value), let url = URL(string: text) else {
                        throw archive.fail(uid, "NSURL without a URL")
                    }
                    return .url(url)
                case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
                    guard case .string(let text)? = try archive.scalar(value),
                        case .decimal(let d)? = try? AttributeValue(parsing: text, as: .decimal)
                    else { throw archive.fail(uid, "NSDecimalNumber that cannot be read") }
                    return .decimal(d)
                default:
                    switch try archive.scalar(value) {
                    case .string(let s)?: return .string(s)
                    case .date(let d)?: return .date(d)
                    case .data(let d)?: return .data(d)
                    case .integer(let i)?: return .integer(i)
                    case .real(let r)?: return .double(r)
                    case .boolean(let b)?: return .boolean(b)
                    default: throw unsupported(uid, "a constant of class \(archive.className(of: value) ?? "?")")
                    }
                }
            default:
                throw unsupported(uid, "a constant of this kind")
            }
        }
    }
}
