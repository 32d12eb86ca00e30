import Foundation

/// Something whose properties a predicate can read by key: a managed object, or any type that offers key-value
/// access. Dictionaries need no conformance: use ``PredicateValue/dictionary(_:)``.
public protocol KeyValueCoding: AnyObject {
    /// The value for a key. To-many relationships return ``PredicateValue/collection(_:ordered:)``.
    /// - Throws: ``ObjectPredicateError`` when the key is unknown (`unknownKey`) or the value cannot be read
    ///   (`objectUnavailable`, e.g. a fault whose row is gone).
    func predicateValue(forKey key: String) throws(ObjectPredicateError) -> PredicateValue
}
