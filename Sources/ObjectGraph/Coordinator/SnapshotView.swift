/// Key-value access to stored snapshots, so that predicates and sort descriptors can be evaluated inside a store
/// (relationships lead to the snapshots of the same store).
final class SnapshotView: KeyValueCoding {
    let snapshot: ObjectSnapshot
    let lookup: (ManagedObjectID) -> ObjectSnapshot?

    init(_ snapshot: ObjectSnapshot, lookup: @escaping (ManagedObjectID) -> ObjectSnapshot?) {
        self.snapshot = snapshot
        self.lookup = lookup
    }

    func predicateValue(forKey key: String) throws(ObjectPredicateError) -> PredicateValue {
        if case let value = snapshot[attribute: key], !value.isNull { return PredicateValue(value) }
        if let destination = snapshot[toOne: key] {
            return destination.flatMap(lookup).map { .object(SnapshotView($0, lookup: lookup)) } ?? .null
        }
        if let destinations = snapshot[toMany: key] {
            return .collection(
                destinations.compactMap(lookup).map { .object(SnapshotView($0, lookup: lookup)) }, ordered: true)
        }
        return .null
    }
}
