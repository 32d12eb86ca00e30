import Foundation
import ObjectGraph

/// The parse tree of a predicate as JSON, for `docutil predicate --format json`.
enum PredicateJSON {
    static func predicate(_ p: ObjectPredicate) -> JSONValue {
        switch p {
        case .true: return .object([("type", .string("true"))])
        case .false: return .object([("type", .string("false"))])
        case .and(let parts): return .object([("type", .string("and")), ("predicates", .array(parts.map(predicate)))])
        case .or(let parts): return .object([("type", .string("or")), ("predicates", .array(parts.map(predicate)))])
        case .not(let inner): return .object([("type", .string("not")), ("predicate", predicate(inner))])
        case .comparison(let c):
            var options: [JSONValue] = []
            if c.options.contains(.caseInsensitive) { options.append(.string("c")) }
            if c.options.contains(.diacriticInsensitive) { options.append(.string("d")) }
            if c.options.contains(.normalized) { options.append(.string("n")) }
            if c.options.contains(.localeSensitive) { options.append(.string("l")) }
            return .object([
                ("type", .string("comparison")),
                ("operator", .string(c.op.rawValue)),
                ("modifier", c.modifier == .direct ? .null : .string(c.modifier.rawValue)),
                ("options", .array(options)),
                ("left", expression(c.lhs)),
                ("right", expression(c.rhs)),
            ])
        }
    }

    static func expression(_ e: ObjectExpression) -> JSONValue {
        func node(_ type: String, _ members: [(String, JSONValue)]) -> JSONValue {
            .object([("type", .string(type))] + members)
        }
        switch e {
        case .constant(let c): return node("constant", [("valueType", .string(typeName(c))), ("value", constant(c))])
        case .evaluatedObject: return node("self", [])
        case .variable(let name): return node("variable", [("name", .string(name))])
        case .keyPath(let base, let path):
            return node("keyPath", [("base", expression(base)), ("path", .array(path.map { .string($0) }))])
        case .function(let name, let args):
            return node("function", [("name", .string(name)), ("arguments", .array(args.map(expression)))])
        case .methodCall(let receiver, let selector, let args):
            return node(
                "methodCall",
                [
                    ("receiver", expression(receiver)), ("selector", .string(selector)),
                    ("arguments", .array(args.map(expression))),
                ])
        case .arithmetic(let op, let l, let r):
            return node(
                "arithmetic", [("operator", .string(op.rawValue)), ("left", expression(l)), ("right", expression(r))])
        case .negation(let operand): return node("negation", [("operand", expression(operand))])
        case .aggregate(let items): return node("aggregate", [("elements", .array(items.map(expression)))])
        case .subquery(let collection, let variable, let p):
            return node(
                "subquery",
                [("collection", expression(collection)), ("variable", .string(variable)), ("predicate", predicate(p))])
        case .index(let base, let kind):
            let index: JSONValue
            switch kind {
            case .at(let i): index = expression(i)
            case .first: index = .string("FIRST")
            case .last: index = .string("LAST")
            case .size: index = .string("SIZE")
            }
            return node("index", [("base", expression(base)), ("index", index)])
        case .cast(let value, let type): return node("cast", [("value", expression(value)), ("to", .string(type))])
        case .conditional(let p, let a, let b):
            return node("conditional", [("condition", predicate(p)), ("then", expression(a)), ("else", expression(b))])
        case .assignment(let name, let value):
            return node("assignment", [("variable", .string(name)), ("value", expression(value))])
        case .setOperation(let op, let l, let r):
            return node(
                "setOperation", [("operator", .string(op.rawValue)), ("left", expression(l)), ("right", expression(r))])
        case .anyKey: return node("anyKey", [])
        }
    }

    static func typeName(_ c: PredicateConstant) -> String {
        switch c {
        case .null: "null"
        case .boolean: "boolean"
        case .integer: "integer"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .url: "url"
        case .array: "array"
        }
    }

    static func constant(_ c: PredicateConstant) -> JSONValue {
        switch c {
        case .null: .null
        case .boolean(let b): .bool(b)
        case .integer(let i): .int(i)
        case .double(let d): .double(d)
        case .decimal(let d):
            .string(DecimalText.string(d))
        case .string(let s): .string(s)
        case .date(let d): .string(ISO8601.string(d))
        case .data(let d): .string(d.base64EncodedString())
        case .uuid(let u): .string(u.uuidString)
        case .url(let u): .string(u.absoluteString)
        case .array(let items): .array(items.map(constant))
        }
    }
}
