/// The contents of a to-many relationship: objects in order, unique by identity, with a hash index once the
/// collection grows so that membership tests stay O(1).
struct ObjectCollection {
    private(set) var objects: [ManagedObject] = []
    /// Each object's position, once there are more than a few (an open-addressed table by address, hashed with one
    /// multiplication: a `Dictionary` hashed each address with SipHash on every lookup). Boxed, so that a relationship
    /// slot stays two words and a tag; copied before a change when another collection shares it.
    private var index: PositionIndex? = nil

    /// The box of ``index``.
    private final class PositionIndex {
        /// The positions (changed only through a collection that owns the box alone: no overlapping access).
        @exclusivity(unchecked) var table: IdentityPositions
        init(_ table: IdentityPositions) { self.table = table }
    }

    /// Makes ``index`` this collection's own before it changes.
    private mutating func ownIndex() {
        if index != nil, !isKnownUniquelyReferenced(&index) { index = index.map { PositionIndex($0.table) } }
    }

    init(_ objects: [ManagedObject] = []) {
        guard objects.count > 16 else {
            for object in objects { append(object) }
            return
        }
        // Many at once (a to-many fault fired): the list and the index made at their size, not grown as they fill;
        // an object named twice is kept once, where it first comes, as appending keeps it.
        self.objects.reserveCapacity(objects.count)
        var built = IdentityPositions(capacity: objects.count)
        for object in objects where built.insert(object, at: self.objects.count) { self.objects.append(object) }
        index = PositionIndex(built)
    }

    var count: Int { objects.count }

    func contains(_ object: ManagedObject) -> Bool {
        if let index { return index.table.position(of: object) != nil }
        return objects.contains { $0 === object }
    }

    func position(of object: ManagedObject) -> Int? {
        if let index { return index.table.position(of: object) }
        return objects.firstIndex { $0 === object }
    }

    mutating func append(_ object: ManagedObject) {
        if index != nil {
            ownIndex()
            // Recorded and checked in one lookup.
            guard index?.table.insert(object, at: objects.count) == true else { return }
            objects.append(object)
            return
        }
        guard !contains(object) else { return }
        objects.append(object)
        if objects.count > 16 { rebuildIndex() }
    }

    mutating func insert(_ object: ManagedObject, at position: Int) {
        guard !contains(object) else { return }
        objects.insert(object, at: min(max(0, position), objects.count))
        if index != nil || objects.count > 16 { rebuildIndex() }
    }

    /// Removes an object and returns where it was. An unordered collection moves its last object into the gap, so
    /// that emptying a large relationship one object at a time stays linear; an ordered one keeps its order.
    @discardableResult
    mutating func remove(_ object: ManagedObject, keepingOrder: Bool = true) -> Int? {
        guard let position = position(of: object) else { return nil }
        ownIndex()
        let last = objects.count - 1
        if !keepingOrder && position != last {
            objects.swapAt(position, last)
            index?.table.move(ObjectIdentifier(objects[position]), to: position)
        }
        if keepingOrder && position != last {
            objects.remove(at: position)
            if index != nil { rebuildIndex() }
        } else {
            objects.removeLast()
            _ = index?.table.remove(object)
        }
        return position
    }

    private mutating func rebuildIndex() {
        var built = IdentityPositions()
        for (i, object) in objects.enumerated() { _ = built.insert(object, at: i) }
        index = PositionIndex(built)
    }
}
