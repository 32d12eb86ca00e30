/// A predicate in Apple's language: a comparison, a compound of predicates, or a constant truth value. The
/// equivalent of `NSPredicate`.
///
/// Create one from a format string with ``init(format:_:)`` and print it back with ``format``:
///
/// ```swift
/// let p = try ObjectPredicate(format: "age > %d AND name BEGINSWITH[c] %@", 30, "a")
/// p.format                                   // age > 30 AND name BEGINSWITH[c] "a"
/// try p.evaluate(with: .dictionary(["age": .integer(40), "name": .string("Alice")]))   // true
/// ```
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`.
    case `true`
    /// `FALSEPREDICATE`.
    case `false`
    /// All of the predicates (`AND`, `&&`).
    case and([ObjectPredicate])
    /// Any of the predicates (`OR`, `||`).
    case or([ObjectPredicate])
    /// The opposite (`NOT`, `!`).
    case not(ObjectPredicate)
    /// A comparison of two expressions.
    case comparison(Comparison)
}
