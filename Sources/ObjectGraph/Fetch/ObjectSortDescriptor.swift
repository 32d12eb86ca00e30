public import Foundation

/// How a fetch orders its results: a key path, a direction and a string comparison.
public struct ObjectSortDescriptor: Sendable, Hashable {
    /// How strings are compared.
    public enum Comparison: String, Sendable, Hashable {
        /// By Unicode code point.
        case compare
        /// Ignoring case.
        case caseInsensitive
        /// As the Finder sorts names: ignoring case, with digit runs compared as numbers.
        case localizedStandard
    }

    /// The key path to sort by (`name`, `author.name`, `books.@count`).
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How strings are compared.
    public var comparison: Comparison

    /// Creates a sort descriptor.
    public init(keyPath: String, ascending: Bool = true, comparison: Comparison = .compare) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// Reads `KEY` or `-KEY` (descending), as `docutil query --sort` takes them.
    public init(parsing text: String) {
        if text.hasPrefix("-") {
            self.init(keyPath: String(text.dropFirst()), ascending: false)
        } else {
            self.init(keyPath: text.hasPrefix("+") ? String(text.dropFirst()) : text)
        }
    }

    /// Orders two objects by this descriptor. Nil sorts before every value, as in Core Data's SQLite store.
    public func compare(_ a: PredicateValue, _ b: PredicateValue) -> ComparisonResult {
        let path = keyPath.split(separator: ".").map(String.init)
        let x = (try? ExpressionEvaluator.follow(path[...], from: a)) ?? .null
        let y = (try? ExpressionEvaluator.follow(path[...], from: b)) ?? .null
        let result = Self.order(x, y, comparison)
        if ascending || result == .orderedSame { return result }
        return result == .orderedAscending ? .orderedDescending : .orderedAscending
    }

    static func order(_ x: PredicateValue, _ y: PredicateValue, _ comparison: Comparison) -> ComparisonResult {
        switch (x, y) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let s), .string(let t)):
            switch comparison {
            case .compare: return ValueComparison.compareStrings(s, t, [])
            case .caseInsensitive: return ValueComparison.compareStrings(s, t, [.caseInsensitive])
            case .localizedStandard: return s.compare(t, options: [.caseInsensitive, .numeric])
            }
        default:
            return ValueComparison.order(x, y) ?? .orderedSame
        }
    }
}

extension Array where Element == ObjectSortDescriptor {
    /// Whether `a` comes before `b` under these descriptors (later descriptors break ties).
    public func areInIncreasingOrder(_ a: PredicateValue, _ b: PredicateValue) -> Bool {
        for descriptor in self {
            switch descriptor.compare(a, b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }
}
