import Foundation

extension ObjectPredicate: CustomStringConvertible {
    /// The canonical format string: parsing it gives an equal predicate, and printing that prints the same text.
    ///
    /// Compound sub-predicates are parenthesised, strings use double quotes with backslash escapes, dates print as
    /// `CAST(<seconds since 2001>, "NSDate")`, and reserved words used as keys are escaped with `#`.
    public var format: String {
        switch self {
        case .true: return "TRUEPREDICATE"
        case .false: return "FALSEPREDICATE"
        case .and(let parts): return parts.map(\.operandFormat).joined(separator: " AND ")
        case .or(let parts): return parts.map(\.operandFormat).joined(separator: " OR ")
        case .not(let inner): return "NOT " + inner.operandFormat
        case .comparison(let c): return c.format
        }
    }

    /// The format as a part of a compound: compounds in parentheses.
    var operandFormat: String {
        switch self {
        case .and, .or: "(\(format))"
        default: format
        }
    }

    /// The canonical format string.
    public var description: String { format }
}

extension Comparison {
    /// The comparison as format text, e.g. `ANY tags.name BEGINSWITH[cd] "a"`.
    public var format: String {
        var text = modifier == .direct ? "" : modifier.rawValue + " "
        text += lhs.operandFormat(above: 0)
        text += " " + op.rawValue
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        if options.contains(.localeSensitive) { letters += "l" }
        if !letters.isEmpty { text += "[\(letters)]" }
        return text + " " + rhs.operandFormat(above: 0)
    }
}

extension ObjectExpression: CustomStringConvertible {
    /// The canonical format text of the expression.
    public var format: String { operandFormat(above: 0) }

    /// The canonical format string.
    public var description: String { format }

    /// Binding strength, for deciding where parentheses are needed.
    private var precedence: Int {
        switch self {
        case .assignment: -1
        case .setOperation: 0
        case .arithmetic(let op, _, _): op.precedence
        case .negation: 3
        default: 10
        }
    }

    /// The text, parenthesised when this expression binds looser than its context.
    func operandFormat(above minimum: Int) -> String {
        let text = bareFormat
        // A negative number before ** or a postfix would otherwise read as a negation of the whole.
        if minimum > 4, case .constant(let c) = self, text.hasPrefix("-") || c.format.hasPrefix("-") {
            return "(\(text))"
        }
        return precedence < minimum || (minimum > 0 && precedence < 0) ? "(\(text))" : text
    }

    private var bareFormat: String {
        switch self {
        case .constant(let c): return c.format
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(let base, let path):
            let components = path.map(Self.keyComponent).joined(separator: ".")
            if case .evaluatedObject = base, let first = path.first, !first.isEmpty { return components }
            if case .keyPath = base { return "(" + base.format + ")." + components }
            return base.operandFormat(above: 10) + "." + components
        case .function(let name, let arguments):
            // A function named like a keyword (`#CAST(…)`) keeps its escape, or it would read back as the keyword.
            let head = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
            let printed = PredicateLexer.keywords.contains(head.uppercased()) ? "#" + name : name
            return printed + "(" + arguments.map { $0.operandFormat(above: 0) }.joined(separator: ", ") + ")"
        case .methodCall(let receiver, let selector, let arguments):
            let rest = arguments.map { ", " + $0.operandFormat(above: 0) }.joined()
            return "FUNCTION(\(receiver.operandFormat(above: 0)), \(PredicateConstant.string(selector).format)\(rest))"
        case .arithmetic(let op, let lhs, let rhs):
            // Left-associative + - * /: the right operand needs parentheses at equal precedence.
            // Right-associative **: the left operand does.
            let left = lhs.operandFormat(above: op == .power ? op.precedence + 1 : op.precedence)
            let right = rhs.operandFormat(above: op == .power ? 3 : op.precedence + 1)
            return "\(left) \(op.rawValue) \(right)"
        case .negation(let operand):
            let text = operand.operandFormat(above: 4)
            // A space keeps "- -x" two minus signs (no parentheses, so printing adds no nesting).
            return text.hasPrefix("-") ? "- " + text : "-" + text
        case .aggregate(let items):
            return "{" + items.map { $0.operandFormat(above: 0) }.joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection.operandFormat(above: 0)), $\(variable), \(predicate.format))"
        case .index(let base, let kind):
            let inside: String
            switch kind {
            case .at(let e): inside = e.operandFormat(above: 0)
            case .first: inside = "FIRST"
            case .last: inside = "LAST"
            case .size: inside = "SIZE"
            }
            return base.operandFormat(above: 10) + "[" + inside + "]"
        case .cast(let value, let type):
            return "CAST(\(value.operandFormat(above: 0)), \(PredicateConstant.string(type).format))"
        case .conditional(let condition, let whenTrue, let whenFalse):
            return
                "TERNARY(\(condition.format), \(whenTrue.operandFormat(above: 0)), \(whenFalse.operandFormat(above: 0)))"
        case .assignment(let name, let value):
            return "$\(name) := \(value.operandFormat(above: 0))"
        case .setOperation(let op, let lhs, let rhs):
            return "\(lhs.operandFormat(above: 0)) \(op.rawValue) \(rhs.operandFormat(above: 1))"
        case .anyKey:
            return "ANYKEY"
        }
    }

    /// A key path component, escaped with `#` when it is a reserved word.
    private static func keyComponent(_ component: String) -> String {
        if component.hasPrefix("@") { return component }
        if PredicateLexer.keywords.contains(component.uppercased()) || component.uppercased() == "UTI" {
            return "#" + component
        }
        return component
    }
}

extension PredicateConstant {
    /// The constant as format text that parses back to an equal constant.
    public var format: String {
        switch self {
        case .null: return "nil"
        case .boolean(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .double(let d):
            if d.isNaN || d.isInfinite { return "CAST(\(PredicateConstant.string(String(d)).format), \"NSNumber\")" }
            let text = "\(d)"
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        case .decimal(let d):
            let text = DecimalText.string(d)
            return "CAST(\(PredicateConstant.string(text).format), \"NSDecimalNumber\")"
        case .string(let s):
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        case .date(let d):
            return "CAST(\(PredicateConstant.double(d.timeIntervalSinceReferenceDate).format), \"NSDate\")"
        case .data(let d): return "CAST(\(PredicateConstant.string(d.base64EncodedString()).format), \"NSData\")"
        case .uuid(let u): return "CAST(\(PredicateConstant.string(u.uuidString).format), \"NSUUID\")"
        case .url(let u): return "CAST(\(PredicateConstant.string(u.absoluteString).format), \"NSURL\")"
        case .array(let items): return "{" + items.map(\.format).joined(separator: ", ") + "}"
        }
    }
}
