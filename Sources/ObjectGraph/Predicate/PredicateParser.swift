import Foundation

extension ObjectPredicate {
    /// Parses a predicate format string, filling format specifiers from `arguments`.
    ///
    /// - Parameters:
    ///   - format: the format string.
    ///   - arguments: values for its `%@`, `%d`, `%f` and `%K` specifiers, in order.
    /// - Throws: ``PredicateSyntaxError`` naming the offset, what was found and what was expected; a missing format
    ///   argument is a syntax error at its specifier.
    public init(format: String, _ arguments: FormatArgument...) throws(PredicateSyntaxError) {
        try self.init(format: format, arguments: arguments)
    }

    /// Parses a predicate format string with an array of format arguments.
    /// - Parameters:
    ///   - format: the format string.
    ///   - arguments: values for its specifiers, in order.
    /// - Throws: ``PredicateSyntaxError`` naming the offset of the problem.
    public init(format: String, arguments: [FormatArgument]) throws(PredicateSyntaxError) {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseWhole()
    }
}

extension ObjectExpression {
    /// Parses a single expression (e.g. `salary * 1.1`, `@sum.price`, `max:(values)`).
    /// - Parameters:
    ///   - format: the expression's text.
    ///   - arguments: values for its specifiers, in order.
    /// - Throws: ``PredicateSyntaxError`` naming the offset of the problem.
    public init(format: String, _ arguments: FormatArgument...) throws(PredicateSyntaxError) {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseWholeExpression()
    }
}

/// A recursive-descent parser for Apple's predicate grammar (FORMATS.md §f).
///
/// Precedence, loosest first: `OR`, `AND`, `NOT`, comparison; in expressions `UNION/INTERSECT/MINUS`, `+ -`, `* /`,
/// unary `-`, `**`, then postfix `.key` and `[index]`. Nesting is limited to ``maximumDepth`` so that no input can
/// exhaust the stack. Aggregates of constants and casts of constants are folded into constants, so printing a
/// parsed predicate and parsing the text again gives an equal predicate.
struct PredicateParser {
    static let maximumDepth = 200

    let format: String
    let tokens: [PredicateToken]
    let arguments: [FormatArgument]
    let utf8: [UInt8]
    var index = 0
    var argumentIndex = 0
    var depth = 0
    /// What parsing a parenthesised predicate gave at each place (see ``parsePrimaryPredicate()``).
    var parenthesized: [MemoKey: Parsed] = [:]

    init(format: String, arguments: [FormatArgument]) throws(PredicateSyntaxError) {
        self.format = format
        self.arguments = arguments
        self.utf8 = Array(format.utf8)
        do {
            tokens = try PredicateLexer.tokenize(format)
        } catch {
            throw Self.syntaxError(
                format: format, utf8: Array(format.utf8), byteOffset: error.offset, found: error.message,
                expected: "a valid token")
        }
    }

    // MARK: - Errors

    static func syntaxError(
        format: String, utf8: [UInt8], byteOffset: Int, found: String, expected: String
    ) -> PredicateSyntaxError {
        let prefix = String(decoding: utf8.prefix(byteOffset), as: UTF8.self)
        return PredicateSyntaxError(format: format, offset: prefix.count, found: found, expected: expected)
    }

    func error(_ expected: String, at token: PredicateToken? = nil) -> PredicateSyntaxError {
        let token = token ?? current
        return Self.syntaxError(
            format: format, utf8: utf8, byteOffset: token.offset, found: token.display, expected: expected)
    }

    // MARK: - Token helpers

    var current: PredicateToken { tokens[index] }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func isSymbol(_ s: String) -> Bool { current.kind == .symbol(s) }

    func isKeyword(_ k: String) -> Bool { current.kind == .keyword(k) }

    mutating func expectSymbol(_ s: String, _ what: String? = nil) throws(PredicateSyntaxError) {
        guard isSymbol(s) else { throw error(what ?? "'\(s)'") }
        advance()
    }

    mutating func enter() throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("less nesting (more than \(Self.maximumDepth) levels)") }
    }

    /// Counts one more level of the tree a loop builds (`a + b + c` nests to the left, `x[0][0]` nests too), so
    /// that no tree is deeper than ``maximumDepth`` however it was written: printing, comparing, hashing and
    /// evaluating a tree all walk its depth.
    mutating func deepen(_ levels: inout Int) throws(PredicateSyntaxError) {
        try enter()
        levels += 1
    }

    // MARK: - Entry points

    mutating func parseWhole() throws(PredicateSyntaxError) -> ObjectPredicate {
        let predicate = try parseOr()
        guard current.kind == .end else { throw error("AND, OR or the end of the predicate") }
        return predicate
    }

    mutating func parseWholeExpression() throws(PredicateSyntaxError) -> ObjectExpression {
        let expression = try parseExpression()
        guard current.kind == .end else { throw error("an operator or the end of the expression") }
        return expression
    }

    // MARK: - Predicates

    mutating func parseOr() throws(PredicateSyntaxError) -> ObjectPredicate {
        var parts = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd() throws(PredicateSyntaxError) -> ObjectPredicate {
        var parts = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot() throws(PredicateSyntaxError) -> ObjectPredicate {
        try enter()
        defer { depth -= 1 }
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            return .not(try parseNot())
        }
        return try parsePrimaryPredicate()
    }

    mutating func parsePrimaryPredicate() throws(PredicateSyntaxError) -> ObjectPredicate {
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .true
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .false
        }
        if isSymbol("(") {
            // "(" opens either a predicate or the left expression of a comparison: try the predicate first. Each
            // outcome is remembered by place, argument and depth, so that nested parentheses are parsed in
            // polynomial time instead of trying both readings at every level (2^n).
            let key = MemoKey(index: index, argument: argumentIndex, depth: depth)
            if let known = parenthesized[key] {
                switch known {
                case .success(let predicate, let end, let argument):
                    (index, argumentIndex) = (end, argument)
                    return predicate
                case .failure(let error):
                    throw error
                }
            }
            do {
                let predicate = try parseParenthesized()
                parenthesized[key] = .success(predicate, index, argumentIndex)
                return predicate
            } catch {
                parenthesized[key] = .failure(error)
                throw error
            }
        }
        return try parseComparison()
    }

    struct MemoKey: Hashable {
        let index: Int
        let argument: Int
        let depth: Int
    }

    enum Parsed {
        case success(ObjectPredicate, Int, Int)
        case failure(PredicateSyntaxError)
    }

    /// `(` … : a parenthesised predicate, or a comparison whose left side starts with a parenthesis.
    mutating func parseParenthesized() throws(PredicateSyntaxError) -> ObjectPredicate {
        let saved = (index, argumentIndex)
        advance()
        let predicateError: PredicateSyntaxError
        do {
            let inner = try parseOr()
            if isSymbol(")") {
                advance()
                return inner
            }
            predicateError = error("')'")
        } catch {
            predicateError = error
        }
        (index, argumentIndex) = saved
        do {
            return try parseComparison()
        } catch {
            throw error.offset >= predicateError.offset ? error : predicateError
        }
    }

    mutating func parseComparison() throws(PredicateSyntaxError) -> ObjectPredicate {
        var modifier = Comparison.Modifier.direct
        switch current.kind {
        case .keyword("ANY"), .keyword("SOME"): modifier = .any
        case .keyword("ALL"): modifier = .all
        case .keyword("NONE"): modifier = .none
        default: break
        }
        if modifier != .direct { advance() }
        let lhs = try parseExpression()
        let operatorToken = current
        let op: Comparison.Operator
        switch current.kind {
        case .symbol("="), .symbol("=="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .lessThan
        case .symbol("<="), .symbol("=<"): op = .lessThanOrEqual
        case .symbol(">"): op = .greaterThan
        case .symbol(">="), .symbol("=>"): op = .greaterThanOrEqual
        case .keyword("MATCHES"): op = .matches
        case .keyword("LIKE"): op = .like
        case .keyword("BEGINSWITH"): op = .beginsWith
        case .keyword("ENDSWITH"): op = .endsWith
        case .keyword("IN"): op = .in
        case .keyword("CONTAINS"): op = .contains
        case .keyword("BETWEEN"): op = .between
        case .keyword("UTI-CONFORMS-TO"): op = .utiConformsTo
        case .keyword("UTI-EQUALS"): op = .utiEquals
        default:
            throw error(
                "a comparison operator (==, !=, <, >, <=, >=, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, "
                    + "MATCHES, BETWEEN)", at: operatorToken)
        }
        advance()
        var options: Comparison.Options = []
        if isSymbol("[") {
            advance()
            guard case .identifier(let letters) = current.kind else { throw error("options such as c, d or cd") }
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                case "n": options.insert(.normalized)
                case "l": options.insert(.localeSensitive)
                default: throw error("options made of the letters c, d, n and l")
                }
            }
            advance()
            try expectSymbol("]")
        }
        let rhs = try parseExpression()
        return .comparison(Comparison(lhs, op, rhs, modifier: modifier, options: options))
    }

    // MARK: - Expressions

    mutating func parseExpression() throws(PredicateSyntaxError) -> ObjectExpression {
        try enter()
        defer { depth -= 1 }
        if case .variable(let name) = current.kind, tokens[index + 1].kind == .symbol(":=") {
            advance()
            advance()
            return .assignment(name, try parseExpression())
        }
        var lhs = try parseAdditive()
        var levels = 0
        defer { depth -= levels }
        while true {
            let op: SetOperator
            switch current.kind {
            case .keyword("UNION"): op = .union
            case .keyword("INTERSECT"): op = .intersect
            case .keyword("MINUS"): op = .minus
            default: return lhs
            }
            advance()
            try deepen(&levels)
            lhs = .setOperation(op, lhs, try parseAdditive())
        }
    }

    mutating func parseAdditive() throws(PredicateSyntaxError) -> ObjectExpression {
        var lhs = try parseMultiplicative()
        var levels = 0
        defer { depth -= levels }
        while isSymbol("+") || isSymbol("-") {
            let op: ArithmeticOperator = isSymbol("+") ? .add : .subtract
            advance()
            try deepen(&levels)
            lhs = .arithmetic(op, lhs, try parseMultiplicative())
        }
        return lhs
    }

    mutating func parseMultiplicative() throws(PredicateSyntaxError) -> ObjectExpression {
        var lhs = try parseUnary()
        var levels = 0
        defer { depth -= levels }
        while isSymbol("*") || isSymbol("/") {
            let op: ArithmeticOperator = isSymbol("*") ? .multiply : .divide
            advance()
            try deepen(&levels)
            lhs = .arithmetic(op, lhs, try parseUnary())
        }
        return lhs
    }

    mutating func parseUnary() throws(PredicateSyntaxError) -> ObjectExpression {
        try enter()
        defer { depth -= 1 }
        if isSymbol("-") {
            advance()
            if current.kind == .integerMinMagnitude, !Self.isPostfix(tokens[min(index + 1, tokens.count - 1)].kind) {
                advance()
                return .constant(.integer(.min))
            }
            let operand = try parseUnary()
            switch operand {
            case .constant(.integer(let i)) where i != .min: return .constant(.integer(-i))
            case .constant(.double(let d)): return .constant(.double(-d))
            case .constant(.decimal(let d)): return .constant(.decimal(-d))
            default: return .negation(operand)
            }
        }
        if isSymbol("+") {
            advance()
            return try parseUnary()
        }
        return try parsePower()
    }

    mutating func parsePower() throws(PredicateSyntaxError) -> ObjectExpression {
        let base = try parsePostfix()
        if isSymbol("**") {
            advance()
            return .arithmetic(.power, base, try parseUnary())
        }
        return base
    }

    mutating func parsePostfix() throws(PredicateSyntaxError) -> ObjectExpression {
        // A parenthesised key path is not extended by the keys after it: a collection operator takes the whole
        // rest of its path, so `(a.@max.b).c` differs from `a.@max.b.c`.
        var sealed = isSymbol("(")
        var expression = try parsePrimary()
        var levels = 0
        defer { depth -= levels }
        while true {
            if isSymbol(".") {
                if sealed, case .keyPath = expression {
                    try deepen(&levels)
                    expression = .keyPath(expression, [])
                }
                sealed = false
                advance()
                let component: String
                switch current.kind {
                case .identifier(let name): component = name
                case .collectionOperator(let name): component = "@" + name
                case .formatSpecifier("%K"):
                    let path = try keyPathArgument()
                    if case .keyPath = expression {} else { try deepen(&levels) }
                    expression = Self.appending(path, to: expression)
                    continue
                default: throw error("a key name after '.'")
                }
                advance()
                if case .keyPath = expression {} else { try deepen(&levels) }
                expression = Self.appending([component], to: expression)
            } else if isSymbol("[") {
                advance()
                try deepen(&levels)
                let kind: IndexKind
                switch current.kind {
                case .keyword("FIRST"):
                    advance()
                    kind = .first
                case .keyword("LAST"):
                    advance()
                    kind = .last
                case .keyword("SIZE"):
                    advance()
                    kind = .size
                default: kind = .at(try parseExpression())
                }
                try expectSymbol("]")
                expression = .index(expression, kind)
            } else {
                return expression
            }
        }
    }

    static func appending(_ components: [String], to expression: ObjectExpression) -> ObjectExpression {
        if case .keyPath(let base, let path) = expression { return .keyPath(base, path + components) }
        return .keyPath(expression, components)
    }

    mutating func parseArguments() throws(PredicateSyntaxError) -> [ObjectExpression] {
        try expectSymbol("(")
        var arguments: [ObjectExpression] = []
        if isSymbol(")") {
            advance()
            return arguments
        }
        while true {
            arguments.append(try parseExpression())
            if isSymbol(")") {
                advance()
                return arguments
            }
            try expectSymbol(",", "',' or ')'")
        }
    }

    /// Whether a token extends the expression before it (so a leading minus applies to the whole).
    static func isPostfix(_ kind: PredicateToken.Kind) -> Bool {
        kind == .symbol(".") || kind == .symbol("[") || kind == .symbol("**")
    }

    mutating func parsePrimary() throws(PredicateSyntaxError) -> ObjectExpression {
        let token = current
        switch token.kind {
        case .integer(let i):
            advance()
            return .constant(.integer(i))
        case .integerMinMagnitude:
            advance()
            return .constant(.double(9_223_372_036_854_775_808))
        case .double(let d):
            advance()
            return .constant(.double(d))
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .keyword("TRUE"), .keyword("YES"):
            advance()
            return .constant(.boolean(true))
        case .keyword("FALSE"), .keyword("NO"):
            advance()
            return .constant(.boolean(false))
        case .keyword("NULL"), .keyword("NIL"):
            advance()
            return .constant(.null)
        case .keyword("SELF"):
            advance()
            return .evaluatedObject
        case .keyword("ANYKEY"):
            advance()
            return .anyKey
        case .variable(let name):
            advance()
            return .variable(name)
        case .collectionOperator(let name):
            advance()
            return .keyPath(.evaluatedObject, ["@" + name])
        case .formatSpecifier(let specifier):
            return try formatArgument(specifier)
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expectSymbol(")")
            return inner
        case .symbol("{"):
            advance()
            var items: [ObjectExpression] = []
            if !isSymbol("}") {
                while true {
                    items.append(try parseExpression())
                    if isSymbol("}") { break }
                    try expectSymbol(",", "',' or '}'")
                }
            }
            advance()
            let constants = items.compactMap { item -> PredicateConstant? in
                if case .constant(let c) = item { return c }
                return nil
            }
            return constants.count == items.count ? .constant(.array(constants)) : .aggregate(items)
        case .keyword("SUBQUERY"):
            advance()
            try expectSymbol("(")
            let collection = try parseExpression()
            try expectSymbol(",", "',' after the SUBQUERY collection")
            guard case .variable(let variable) = current.kind else { throw error("a $variable in SUBQUERY") }
            advance()
            try expectSymbol(",", "',' after the SUBQUERY variable")
            let predicate = try parseOr()
            try expectSymbol(")")
            return .subquery(collection, variable: variable, predicate)
        case .keyword("CAST"):
            advance()
            try expectSymbol("(")
            let value = try parseExpression()
            try expectSymbol(",", "',' and a type name in CAST")
            guard case .string(let type) = current.kind else { throw error("a quoted type name such as \"NSDate\"") }
            advance()
            try expectSymbol(")")
            if case .constant(let constant) = value,
                let folded = try? ExpressionEvaluator.cast(constant.value, to: type).constant
            {
                return .constant(folded)
            }
            return .cast(value, type)
        case .keyword("FUNCTION"):
            advance()
            try expectSymbol("(")
            let receiver = try parseExpression()
            try expectSymbol(",", "',' and a selector in FUNCTION")
            guard case .string(let selector) = current.kind else { throw error("a quoted selector name") }
            advance()
            var arguments: [ObjectExpression] = []
            while isSymbol(",") {
                advance()
                arguments.append(try parseExpression())
            }
            try expectSymbol(")")
            return .methodCall(receiver, selector, arguments)
        case .identifier(let name):
            advance()
            if name.uppercased() == "TERNARY", isSymbol("(") {
                advance()
                let condition = try parseOr()
                try expectSymbol(",", "',' after the TERNARY condition")
                let whenTrue = try parseExpression()
                try expectSymbol(",", "',' between the TERNARY values")
                let whenFalse = try parseExpression()
                try expectSymbol(")")
                return .conditional(condition, whenTrue, whenFalse)
            }
            if isSymbol(":") {
                // A selector-style function name: modulus:by:(a, b)
                var selector = name + ":"
                advance()
                while case .identifier(let part) = current.kind, tokens[index + 1].kind == .symbol(":") {
                    selector += part + ":"
                    advance()
                    advance()
                }
                guard isSymbol("(") else { throw error("'(' after the function name \(selector)") }
                return .function(selector, try parseArguments())
            }
            if isSymbol("(") {
                return .function(name, try parseArguments())
            }
            return .keyPath(.evaluatedObject, [name])
        case .end:
            throw error("an expression")
        default:
            throw error("an expression")
        }
    }

    // MARK: - Format arguments

    mutating func nextArgument(_ specifier: String) throws(PredicateSyntaxError) -> FormatArgument {
        guard argumentIndex < arguments.count else {
            throw error("an argument for \(specifier) (only \(arguments.count) given)")
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    mutating func keyPathArgument() throws(PredicateSyntaxError) -> [String] {
        let argument = try nextArgument("%K")
        guard case .string(let path) = argument.constant, !path.isEmpty else {
            throw error("a key path string for %K")
        }
        advance()
        return path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    mutating func formatArgument(_ specifier: String) throws(PredicateSyntaxError) -> ObjectExpression {
        switch specifier {
        case "%%":
            advance()
            return .constant(.string("%"))
        case "%K":
            return .keyPath(.evaluatedObject, try keyPathArgument())
        case "%@":
            let argument = try nextArgument(specifier)
            advance()
            return .constant(argument.constant)
        default:
            let argument = try nextArgument(specifier)
            let conversion = specifier.last!
            let constant: PredicateConstant
            switch conversion {
            case "d", "i", "u", "x", "X", "o",
                "c" where argument.constant.isNumber:
                guard let value = argument.constant.integerValue else {
                    throw error("an integer argument for \(specifier)")
                }
                constant = .integer(value)
            case "f", "F", "e", "E", "g", "G":
                guard let value = argument.constant.doubleValue else {
                    throw error("a number argument for \(specifier)")
                }
                constant = .double(value)
            case "s", "S", "c":
                guard case .string = argument.constant else { throw error("a string argument for \(specifier)") }
                constant = argument.constant
            default:
                constant = argument.constant
            }
            advance()
            return .constant(constant)
        }
    }
}

extension PredicateConstant {
    var isNumber: Bool {
        switch self {
        case .integer, .double, .decimal, .boolean: true
        default: false
        }
    }

    var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .boolean(let b): b ? 1 : 0
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }

    var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .decimal(let d): NSDecimalNumber(decimal: d).doubleValue
        case .boolean(let b): b ? 1 : 0
        default: nil
        }
    }
}
