import Foundation

/// A token of the predicate language.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case keyword(String)
        case variable(String)
        case collectionOperator(String)
        case integer(Int64)
        /// 9223372036854775808 (2^63): too large for Int64 alone, but `-9223372036854775808` is Int64's minimum.
        case integerMinMagnitude
        case double(Double)
        case string(String)
        case formatSpecifier(String)
        case symbol(String)
        case end
    }

    var kind: Kind
    /// Byte offset in the UTF-8 of the format string.
    var offset: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .identifier(let s): "'\(s)'"
        case .keyword(let s): s
        case .variable(let s): "$\(s)"
        case .collectionOperator(let s): "@\(s)"
        case .integer(let i): String(i)
        case .integerMinMagnitude: "9223372036854775808"
        case .double(let d): String(d)
        case .string(let s): "\"\(s)\""
        case .formatSpecifier(let s): s
        case .symbol(let s): "'\(s)'"
        case .end: "end of input"
        }
    }
}

/// Splits a format string into tokens. Works on UTF-8 bytes; every error names the byte offset, which the parser
/// turns into a character offset.
struct PredicateLexer {
    static let keywords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES",
        "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
        "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
        "FUNCTION", "UNION", "INTERSECT", "MINUS", "UTI-CONFORMS-TO", "UTI-EQUALS",
    ]

    struct Failure: Error {
        var offset: Int
        var message: String
    }

    let bytes: [UInt8]
    var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    static func tokenize(_ text: String) throws(Failure) -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    private static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b >= 0x80
    }

    private static func isIdentifierPart(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || (b >= 0x30 && b <= 0x39)
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private mutating func word() -> String {
        let start = position
        while let b = peek(), Self.isIdentifierPart(b) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func next() throws(Failure) -> PredicateToken {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1 }
        let start = position
        guard let b = peek() else { return PredicateToken(kind: .end, offset: start) }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: kind, offset: start) }

        if Self.isIdentifierStart(b) {
            let name = word()
            let upper = name.uppercased()
            if upper == "UTI", peek() == UInt8(ascii: "-") {
                // UTI-CONFORMS-TO and UTI-EQUALS are the only keywords with hyphens.
                let rest = String(decoding: bytes[position...].prefix(12), as: UTF8.self).uppercased()
                if rest.hasPrefix("-CONFORMS-TO") {
                    position += 12
                    return token(.keyword("UTI-CONFORMS-TO"))
                }
                if rest.hasPrefix("-EQUALS") {
                    position += 7
                    return token(.keyword("UTI-EQUALS"))
                }
            }
            return token(Self.keywords.contains(upper) ? .keyword(upper) : .identifier(name))
        }
        if Self.isDigit(b) || (b == UInt8(ascii: ".") && peek(1).map(Self.isDigit) == true) {
            return token(try number())
        }
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return token(.string(try quoted(b)))
        case UInt8(ascii: "#"):
            position += 1
            guard let c = peek(), Self.isIdentifierStart(c) else {
                throw Failure(offset: start, message: "'#' must be followed by a word")
            }
            return token(.identifier(word()))
        case UInt8(ascii: "$"):
            position += 1
            guard let c = peek(), Self.isIdentifierStart(c) else {
                throw Failure(offset: start, message: "'$' must be followed by a variable name")
            }
            return token(.variable(word()))
        case UInt8(ascii: "@"):
            position += 1
            guard let c = peek(), Self.isIdentifierStart(c) else {
                throw Failure(offset: start, message: "'@' must be followed by an operator name such as count")
            }
            return token(.collectionOperator(word()))
        case UInt8(ascii: "%"):
            return token(.formatSpecifier(try specifier()))
        default:
            break
        }
        let twoByte: [String] = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**", ":="]
        if let c = peek(1) {
            let pair = String(decoding: [b, c], as: UTF8.self)
            if twoByte.contains(pair) {
                position += 2
                return token(.symbol(pair))
            }
        }
        let single = "=<>!()[]{},.+-*/:"
        if single.utf8.contains(b) {
            position += 1
            return token(.symbol(String(decoding: [b], as: UTF8.self)))
        }
        let scalar = String(decoding: bytes[start...].prefix(4), as: UTF8.self).first.map(String.init) ?? "?"
        throw Failure(offset: start, message: "unexpected character '\(scalar)'")
    }

    private mutating func number() throws(Failure) -> PredicateToken.Kind {
        let start = position
        if peek() == UInt8(ascii: "0"), let p = peek(1) {
            let radix: Int? =
                switch p {
                case UInt8(ascii: "x"), UInt8(ascii: "X"): 16
                case UInt8(ascii: "o"), UInt8(ascii: "O"): 8
                case UInt8(ascii: "b"), UInt8(ascii: "B"): 2
                default: nil
                }
            if let radix {
                position += 2
                let digitsStart = position
                while let c = peek(), Self.isIdentifierPart(c) { position += 1 }
                let digits = String(decoding: bytes[digitsStart..<position], as: UTF8.self)
                guard !digits.isEmpty, let value = UInt64(digits, radix: radix) else {
                    throw Failure(offset: start, message: "bad base-\(radix) number")
                }
                return .integer(Int64(bitPattern: value))
            }
        }
        var isFloat = false
        while let c = peek(), Self.isDigit(c) { position += 1 }
        if peek() == UInt8(ascii: "."), peek(1).map(Self.isDigit) == true {
            isFloat = true
            position += 1
            while let c = peek(), Self.isDigit(c) { position += 1 }
        } else if peek() == UInt8(ascii: "."), peek(1).map(Self.isIdentifierStart) != true,
            peek(1) != UInt8(ascii: "@"), peek(1) != UInt8(ascii: "#")
        {
            // "5." is a number; "a.5" never reaches here; "5.#key" (an escaped key, as a key path on a number is
            // printed when the key is a reserved word) is a key path, as "5.key" is.
            isFloat = true
            position += 1
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var look = 1
            if let s = peek(1), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { look = 2 }
            if peek(look).map(Self.isDigit) == true {
                isFloat = true
                position += look
                while let c = peek(), Self.isDigit(c) { position += 1 }
            }
        }
        if let c = peek(), Self.isIdentifierStart(c) {
            throw Failure(offset: position, message: "a number runs into a word")
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if !isFloat, let value = Int64(text) { return .integer(value) }
        if !isFloat, UInt64(text) == UInt64(1) << 63 { return .integerMinMagnitude }
        guard let value = Double(text) else { throw Failure(offset: start, message: "bad number '\(text)'") }
        return .double(value)
    }

    private mutating func quoted(_ quote: UInt8) throws(Failure) -> String {
        let start = position
        position += 1
        var scalars = String.UnicodeScalarView()
        var run = [UInt8]()
        func flush() {
            if !run.isEmpty {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll()
            }
        }
        while true {
            guard let b = peek() else { throw Failure(offset: start, message: "unterminated string") }
            position += 1
            if b == quote { break }
            guard b == UInt8(ascii: "\\") else {
                run.append(b)
                continue
            }
            flush()
            guard let e = peek() else { throw Failure(offset: start, message: "unterminated string") }
            position += 1
            switch e {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                position -= 1
                try scalars.append(escapedScalar(digits: 3, radix: 8))
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                try scalars.append(escapedScalar(digits: 2, radix: 16))
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                try scalars.append(escapedScalar(digits: 4, radix: 16))
            default:
                run.append(e)
            }
        }
        flush()
        return String(scalars)
    }

    private mutating func escapedScalar(digits: Int, radix: Int) throws(Failure) -> Unicode.Scalar {
        let start = position
        guard position + digits <= bytes.count,
            let value = UInt32(String(decoding: bytes[position..<position + digits], as: UTF8.self), radix: radix),
            let scalar = Unicode.Scalar(value)
        else {
            throw Failure(offset: start, message: "bad escape: \(digits) base-\(radix) digits expected")
        }
        position += digits
        return scalar
    }

    private mutating func specifier() throws(Failure) -> String {
        let start = position
        position += 1
        guard let c = peek() else { throw Failure(offset: start, message: "'%' at the end") }
        if c == UInt8(ascii: "@") || c == UInt8(ascii: "K") || c == UInt8(ascii: "%") {
            position += 1
            return "%" + String(decoding: [c], as: UTF8.self)
        }
        while let m = peek(), "lhqLjzt".utf8.contains(m) { position += 1 }
        guard let conversion = peek(), "diuxXofFeEgGsScp".utf8.contains(conversion) else {
            throw Failure(offset: start, message: "unknown format specifier")
        }
        position += 1
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }
}
