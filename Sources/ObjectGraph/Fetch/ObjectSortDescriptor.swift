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
    /// - Parameters:
    ///   - keyPath: the key path to sort by.
    ///   - ascending: ascending or descending.
    ///   - comparison: how strings compare (`compare`, `caseInsensitiveCompare`, `localizedStandardCompare`…).
    public init(keyPath: String, ascending: Bool = true, comparison: Comparison = .compare) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// Reads `KEY` or `-KEY` (descending), as `docutil query --sort` takes them.
    /// - Parameter text: a key path, with `-` in front for descending (`+` is allowed for ascending).
    public init(parsing text: String) {
        if text.hasPrefix("-") {
            self.init(keyPath: String(text.dropFirst()), ascending: false)
        } else {
            self.init(keyPath: text.hasPrefix("+") ? String(text.dropFirst()) : text)
        }
    }

    /// Orders two objects by this descriptor. Nil sorts before every value, as in Core Data's SQLite store.
    /// - Parameters:
    ///   - a: one object.
    ///   - b: the other.
    /// - Returns: their order.
    /// - Throws: ``ObjectPredicateError`` when an object cannot give the key path's value.
    public func compare(_ a: PredicateValue, _ b: PredicateValue) throws(ObjectPredicateError) -> ComparisonResult {
        let path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let x = try ExpressionEvaluator.follow(path[...], from: a)
        let y = try ExpressionEvaluator.follow(path[...], from: b)
        return ordered(x, y)
    }

    /// Orders two values already read at this descriptor's key path.
    func ordered(_ x: PredicateValue, _ y: PredicateValue) -> ComparisonResult {
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
    /// - Parameters:
    ///   - a: one object.
    ///   - b: the other.
    /// - Returns: `true` when `a` sorts first.
    /// - Throws: ``ObjectPredicateError`` when an object cannot give a key path's value.
    public func areInIncreasingOrder(_ a: PredicateValue, _ b: PredicateValue) throws(ObjectPredicateError) -> Bool {
        for descriptor in self {
            switch try descriptor.compare(a, b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }

    /// The positions of `values` in sorted order, stable (equal values keep their order). Each value's sort keys
    /// are read once.
    /// - Parameter values: the objects to sort.
    /// - Returns: indexes into `values`, in sorted order.
    /// - Throws: ``ObjectPredicateError`` when a value cannot give a key path's value.
    public func stablySorted(_ values: [PredicateValue]) throws(ObjectPredicateError) -> [Int] {
        let paths = map { $0.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        var keys: [[PredicateValue]] = []
        keys.reserveCapacity(values.count)
        for value in values {
            var row: [PredicateValue] = []
            row.reserveCapacity(paths.count)
            for path in paths { row.append(try ExpressionEvaluator.follow(path[...], from: value)) }
            keys.append(row)
        }
        return values.indices.sorted { a, b in
            for (i, descriptor) in enumerated() {
                switch descriptor.ordered(keys[a][i], keys[b][i]) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return a < b
        }
    }
}
