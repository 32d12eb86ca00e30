import Foundation

/// The functions of `NSExpression` that make sense on Linux, by their format-string names.
enum FunctionLibrary {
    /// Every function name `call` knows (without trailing colons), for documentation and tests.
    static let names: [String] = [
        "sum", "count", "min", "max", "average", "median", "mode", "stddev", "sqrt", "log", "ln", "exp", "floor",
        "ceiling", "abs", "trunc", "random", "randomn", "now", "uppercase", "lowercase", "canonical", "noindex",
        "length",
        "add:to", "from:subtract", "multiply:by", "divide:by", "modulus:by", "raise:toPower", "bitwiseAnd:with",
        "bitwiseOr:with", "bitwiseXor:with", "leftshift:by", "rightshift:by", "onesComplement", "castObject:toType",
    ]

    static func call(_ rawName: String, _ args: [PredicateValue]) throws(ObjectPredicateError) -> PredicateValue {
        let name = rawName.hasSuffix(":") ? String(rawName.dropLast()) : rawName
        func need(_ count: Int) throws(ObjectPredicateError) {
            guard args.count == count else {
                throw ObjectPredicateError(.invalidArgument, "\(rawName) takes \(count) argument(s), got \(args.count)")
            }
        }
        func numbers() throws(ObjectPredicateError) -> [PredicateValue] {
            try need(1)
            let items = args[0].elements ?? [args[0]]
            return items.filter { !$0.isNull }
        }
        func unary(_ f: (Double) -> Double) throws(ObjectPredicateError) -> PredicateValue {
            try need(1)
            if args[0].isNull { return .null }
            guard let x = ValueComparison.double(args[0]) else { throw bad(args[0]) }
            return .double(f(x))
        }
        func bad(_ v: PredicateValue) -> ObjectPredicateError {
            ObjectPredicateError(.invalidArgument, "\(rawName) cannot use \(v.debugText)")
        }
        switch name {
        case "sum":
            var total: PredicateValue = .integer(0)
            for v in try numbers() { total = try arithmetic(.add, total, v) }
            return total
        case "count":
            try need(1)
            return .integer(Int64(args[0].elements?.count ?? (args[0].isNull ? 0 : 1)))
        case "min", "max":
            let items = try numbers()
            guard var best = items.first else { return .null }
            for v in items.dropFirst() {
                guard let o = ValueComparison.order(v, best) else { throw bad(v) }
                if (name == "min" && o == .orderedAscending) || (name == "max" && o == .orderedDescending) { best = v }
            }
            return best
        case "average":
            let items = try numbers()
            guard !items.isEmpty else { return .null }
            let sum = try call("sum", [.collection(items, ordered: true)])
            return try arithmetic(.divide, sum, .integer(Int64(items.count)))
        case "median":
            let items = try numbers().compactMap(ValueComparison.double).sorted()
            guard !items.isEmpty else { return .null }
            let mid = items.count / 2
            return .double(items.count % 2 == 1 ? items[mid] : (items[mid - 1] + items[mid]) / 2)
        case "mode":
            let items = try numbers()
            var counts: [(PredicateValue, Int)] = []
            for v in items {
                if let i = counts.firstIndex(where: { ValueComparison.equal($0.0, v) }) {
                    counts[i].1 += 1
                } else {
                    counts.append((v, 1))
                }
            }
            let most = counts.map(\.1).max() ?? 0
            return .collection(counts.filter { $0.1 == most }.map(\.0), ordered: true)
        case "stddev":
            let items = try numbers().compactMap(ValueComparison.double)
            guard !items.isEmpty else { return .null }
            let mean = items.reduce(0, +) / Double(items.count)
            return .double((items.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(items.count)).squareRoot())
        case "sqrt": return try unary { $0.squareRoot() }
        case "log": return try unary { Foundation.log10($0) }
        case "ln": return try unary { Foundation.log($0) }
        case "exp": return try unary { Foundation.exp($0) }
        case "floor": return try unary { $0.rounded(.down) }
        case "ceiling": return try unary { $0.rounded(.up) }
        case "trunc": return try unary { $0.rounded(.towardZero) }
        case "abs":
            try need(1)
            switch args[0] {
            case .integer(let i) where i != .min: return .integer(Swift.abs(i))
            case .decimal(let d): return .decimal(d < 0 ? -d : d)
            default: return try unary { Swift.abs($0) }
            }
        case "random":
            try need(0)
            return .double(Double.random(in: 0..<1))
        case "randomn":
            try need(1)
            guard case .integer(let n) = args[0], n > 0 else { throw bad(args[0]) }
            return .integer(Int64.random(in: 0..<n))
        case "now":
            try need(0)
            return .date(Date())
        case "uppercase", "lowercase":
            try need(1)
            if args[0].isNull { return .null }
            guard case .string(let s) = args[0] else { throw bad(args[0]) }
            return .string(name == "uppercase" ? s.uppercased() : s.lowercased())
        case "canonical":
            // Core Data's derived-attribute function: the string folded for case- and diacritic-insensitive
            // comparison, as `[cd]` compares.
            try need(1)
            if args[0].isNull { return .null }
            guard case .string(let s) = args[0] else { throw bad(args[0]) }
            return .string(ValueComparison.fold(s, [.caseInsensitive, .diacriticInsensitive]))
        case "noindex":
            try need(1)
            return args[0]
        case "length":
            try need(1)
            if args[0].isNull { return .null }
            guard case .string(let s) = args[0] else { throw bad(args[0]) }
            return .integer(Int64(s.utf16.count))
        case "add:to":
            try need(2)
            return try arithmetic(.add, args[0], args[1])
        case "from:subtract":
            try need(2)
            return try arithmetic(.subtract, args[0], args[1])
        case "multiply:by":
            try need(2)
            return try arithmetic(.multiply, args[0], args[1])
        case "divide:by":
            try need(2)
            return try arithmetic(.divide, args[0], args[1])
        case "raise:toPower":
            try need(2)
            return try arithmetic(.power, args[0], args[1])
        case "modulus:by":
            try need(2)
            if args[0].isNull || args[1].isNull { return .null }
            if case .integer(let a) = args[0], case .integer(let b) = args[1], b != 0 { return .integer(a % b) }
            guard let a = ValueComparison.double(args[0]), let b = ValueComparison.double(args[1]) else {
                throw bad(args[0])
            }
            return .double(a.truncatingRemainder(dividingBy: b))
        case "bitwiseAnd:with", "bitwiseOr:with", "bitwiseXor:with", "leftshift:by", "rightshift:by":
            try need(2)
            guard case .integer(let a) = args[0], case .integer(let b) = args[1] else { throw bad(args[0]) }
            switch name {
            case "bitwiseAnd:with": return .integer(a & b)
            case "bitwiseOr:with": return .integer(a | b)
            case "bitwiseXor:with": return .integer(a ^ b)
            case "leftshift:by": return .integer(a << b)
            default: return .integer(a >> b)
            }
        case "onesComplement":
            try need(1)
            guard case .integer(let a) = args[0] else { throw bad(args[0]) }
            return .integer(~a)
        case "castObject:toType":
            try need(2)
            guard case .string(let type) = args[1] else { throw bad(args[1]) }
            return try ExpressionEvaluator.cast(args[0], to: type)
        case "distanceToLocation:fromLocation":
            throw ObjectPredicateError(
                .unsupportedFunction, "\(rawName) needs Core Location, which Linux does not have")
        default:
            throw ObjectPredicateError(.unsupportedFunction, "unknown function \(rawName)")
        }
    }

    /// `+ - * / **` on numbers (integers stay integers for + - * unless they overflow; decimals stay decimals),
    /// and date ± seconds. A nil operand gives nil.
    static func arithmetic(
        _ op: ArithmeticOperator, _ a: PredicateValue, _ b: PredicateValue
    ) throws(ObjectPredicateError) -> PredicateValue {
        if a.isNull || b.isNull { return .null }
        switch (a, b) {
        case (.date(let d), _) where ValueComparison.isNumeric(b) && (op == .add || op == .subtract):
            guard let seconds = ValueComparison.double(b) else { break }
            return .date(d.addingTimeInterval(op == .add ? seconds : -seconds))
        case (.date(let x), .date(let y)) where op == .subtract:
            return .double(x.timeIntervalSince(y))
        default: break
        }
        guard ValueComparison.isNumeric(a), ValueComparison.isNumeric(b) else {
            throw ObjectPredicateError(.invalidArgument, "cannot compute \(a.debugText) \(op.rawValue) \(b.debugText)")
        }
        if case .integer(let x) = a, case .integer(let y) = b, op != .divide, op != .power {
            let (result, overflow) =
                switch op {
                case .add: x.addingReportingOverflow(y)
                case .subtract: x.subtractingReportingOverflow(y)
                default: x.multipliedReportingOverflow(by: y)
                }
            if !overflow { return .integer(result) }
        }
        let isDecimal: Bool = {
            if case .decimal = a { return true }
            if case .decimal = b { return true }
            return false
        }()
        if isDecimal, op != .power, let x = ValueComparison.decimal(a), let y = ValueComparison.decimal(b) {
            switch op {
            case .add: return .decimal(x + y)
            case .subtract: return .decimal(x - y)
            case .multiply: return .decimal(x * y)
            case .divide: return y == 0 ? .null : .decimal(x / y)
            case .power: break
            }
        }
        guard let x = ValueComparison.double(a), let y = ValueComparison.double(b) else {
            throw ObjectPredicateError(.invalidArgument, "cannot compute \(a.debugText) \(op.rawValue) \(b.debugText)")
        }
        switch op {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        case .divide: return .double(x / y)
        case .power: return .double(Foundation.pow(x, y))
        }
    }
}
