import Foundation

/// Apple's comparison semantics for predicate values: nil, numeric coercion, strings by code point with case and
/// diacritic folding, dates, collections, objects by identity.
enum ValueComparison {
    /// Folds a string for `[c]` (Unicode case folding) and `[d]` (diacritics removed).
    static func fold(_ s: String, _ options: Comparison.Options) -> String {
        var foldingOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldingOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldingOptions.insert(.diacriticInsensitive) }
        if foldingOptions.isEmpty { return s }
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no diacritics; lowercasing is its case folding.
            return options.contains(.caseInsensitive) ? s.lowercased() : s
        }
        return s.folding(options: foldingOptions, locale: nil)
    }

    /// Whether the value is a number or a boolean.
    static func isNumeric(_ v: PredicateValue) -> Bool {
        switch v {
        case .integer, .double, .decimal, .boolean: true
        default: false
        }
    }

    /// Numeric ordering across integers, doubles, decimals and booleans.
    static func compareNumbers(_ a: PredicateValue, _ b: PredicateValue) -> ComparisonResult? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (.decimal, _), (_, .decimal):
            // An infinite double has no decimal form, and is beyond every decimal number (not a decimal NaN).
            if case .double(let d) = a, d.isInfinite {
                guard let y = decimal(b), !y.isNaN else { return nil }
                return d < 0 ? .orderedAscending : .orderedDescending
            }
            if case .double(let d) = b, d.isInfinite {
                guard let x = decimal(a), !x.isNaN else { return nil }
                return d < 0 ? .orderedDescending : .orderedAscending
            }
            guard let x = decimal(a), let y = decimal(b) else { return nil }
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        default:
            guard let x = double(a), let y = double(b) else { return nil }
            if x.isNaN || y.isNaN { return nil }
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
    }

    static func double(_ v: PredicateValue) -> Double? {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .decimal(let d): NSDecimalNumber(decimal: d).doubleValue
        case .boolean(let b): b ? 1 : 0
        default: nil
        }
    }

    static func decimal(_ v: PredicateValue) -> Decimal? {
        switch v {
        case .integer(let i): Decimal(i)
        case .double(let d): d.isFinite ? Decimal(string: "\(d)") : nil
        case .decimal(let d): d
        case .boolean(let b): b ? 1 : 0
        default: nil
        }
    }

    /// Code-point order of two strings (UTF-8 byte order is code-point order).
    static func compareStrings(_ a: String, _ b: String, _ options: Comparison.Options) -> ComparisonResult {
        let x = fold(a, options)
        let y = fold(b, options)
        var i = x.utf8.makeIterator()
        var j = y.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let p?, let q?):
                if p != q { return p < q ? .orderedAscending : .orderedDescending }
            }
        }
    }

    /// Ordering for `<`, `<=`, `>`, `>=`, `BETWEEN` and sorting; `nil` when the values are not comparable (nil
    /// included).
    static func order(_ a: PredicateValue, _ b: PredicateValue, _ options: Comparison.Options = []) -> ComparisonResult?
    {
        switch (a, b) {
        case (.null, _), (_, .null): return nil
        case (.string(let x), .string(let y)): return compareStrings(x, y, options)
        case (.date(let x), .date(let y)):
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (.date(let x), _) where isNumeric(b):
            return compareNumbers(.double(x.timeIntervalSinceReferenceDate), b)
        case (_, .date(let y)) where isNumeric(a):
            return compareNumbers(a, .double(y.timeIntervalSinceReferenceDate))
        case (.uuid(let x), .uuid(let y)): return compareStrings(x.uuidString, y.uuidString, [])
        case (.url(let x), .url(let y)): return compareStrings(x.absoluteString, y.absoluteString, [])
        case (.data(let x), .data(let y)):
            if x == y { return .orderedSame }
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
        default:
            return isNumeric(a) && isNumeric(b) ? compareNumbers(a, b) : nil
        }
    }

    /// Equality for `==`, `!=`, `IN` and `CONTAINS` on collections: `nil == nil` is true.
    static func equal(_ a: PredicateValue, _ b: PredicateValue, _ options: Comparison.Options = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)):
            if options.isEmpty || options == .normalized || options == .localeSensitive {
                return x.utf8.elementsEqual(y.utf8)
            }
            return compareStrings(x, y, options) == .orderedSame
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.url(let x), .url(let y)): return x == y
        case (.object(let x), .object(let y)): return x === y
        case (.collection(let x, _), .collection(let y, _)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count
                && x.allSatisfy { key, value in y[key].map { equal(value, $0, options) } ?? false }
        default:
            return isNumeric(a) && isNumeric(b) && compareNumbers(a, b) == .orderedSame
        }
    }

    /// `LIKE`: `*` matches any run of characters, `?` one character, `\` escapes the next one.
    ///
    /// - Complexity: O(n·m) at worst, with no recursion.
    static func like(_ text: String, _ pattern: String, _ options: Comparison.Options) -> Bool {
        enum Piece: Equatable {
            case literal(Unicode.Scalar)
            case one
            case run
        }
        var pieces: [Piece] = []
        var escaped = false
        for scalar in fold(pattern, options).unicodeScalars {
            if escaped {
                pieces.append(.literal(scalar))
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                pieces.append(scalar == "*" ? .run : scalar == "?" ? .one : .literal(scalar))
            }
        }
        if escaped { pieces.append(.literal("\\")) }
        let s = Array(fold(text, options).unicodeScalars)
        var i = 0
        var j = 0
        var star = -1
        var mark = 0
        while i < s.count {
            if j < pieces.count, pieces[j] == .one || pieces[j] == .literal(s[i]) {
                i += 1
                j += 1
            } else if j < pieces.count, pieces[j] == .run {
                star = j
                mark = i
                j += 1
            } else if star >= 0 {
                j = star + 1
                mark += 1
                i = mark
            } else {
                return false
            }
        }
        while j < pieces.count, pieces[j] == .run { j += 1 }
        return j == pieces.count
    }

    /// `MATCHES`: the whole string matches the ICU regular expression.
    /// - Throws: ``ObjectPredicateError`` `invalidPattern` when the pattern is not a valid regular expression.
    static func matches(_ text: String, _ pattern: String, _ options: Comparison.Options) throws(ObjectPredicateError)
        -> Bool
    {
        let diacritics: Comparison.Options = options.intersection(.diacriticInsensitive)
        let subject = fold(text, diacritics)
        let regex = try RegexCache.shared.regex(
            fold(pattern, diacritics), caseInsensitive: options.contains(.caseInsensitive))
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        guard let match = regex.firstMatch(in: subject, options: [.anchored], range: range) else { return false }
        return match.range == range
    }
}

/// Compiled regular expressions by pattern, so MATCHES over many rows compiles each pattern once.
///
/// `@unchecked Sendable`: the dictionary is only touched under `lock`, and NSRegularExpression is immutable and
/// documented as safe to use from several threads.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private let lock = NSLock()
    private var cache: [String: NSRegularExpression] = [:]
    private var failed: Set<String> = []

    /// The compiled pattern.
    /// - Throws: ``ObjectPredicateError`` `invalidPattern` for a pattern ICU does not accept.
    func regex(_ pattern: String, caseInsensitive: Bool) throws(ObjectPredicateError) -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let regex = cache[key] { return regex }
        if failed.contains(key) { throw Self.invalid(pattern) }
        if cache.count > 256 { cache.removeAll() }
        if failed.count > 256 { failed.removeAll() }
        do {
            let regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
            cache[key] = regex
            return regex
        } catch {
            failed.insert(key)
            throw Self.invalid(pattern)
        }
    }

    static func invalid(_ pattern: String) -> ObjectPredicateError {
        ObjectPredicateError(.invalidPattern, "'\(Diagnostics.quote(pattern))' is not a valid regular expression")
    }
}
