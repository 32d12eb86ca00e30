/// Objects in the order they were added, unique by identity, with O(1) membership and removal.
struct ObjectList {
    private var order: [ManagedObject?] = []
    private var positions: [ObjectIdentifier: Int] = [:]
    private var holes = 0

    var isEmpty: Bool { positions.isEmpty }
    var count: Int { positions.count }

    var objects: [ManagedObject] { order.compactMap { $0 } }

    func contains(_ object: ManagedObject) -> Bool { positions[ObjectIdentifier(object)] != nil }

    mutating func insert(_ object: ManagedObject) {
        let id = ObjectIdentifier(object)
        guard positions[id] == nil else { return }
        positions[id] = order.count
        order.append(object)
    }

    mutating func remove(_ object: ManagedObject) {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(object)) else { return }
        order[position] = nil
        holes += 1
        if holes > 64 && holes > order.count / 2 { compact() }
    }

    mutating func removeAll() {
        order = []
        positions = [:]
        holes = 0
    }

    private mutating func compact() {
        order = order.filter { $0 != nil }
        positions = [:]
        for (i, object) in order.enumerated() { positions[ObjectIdentifier(object!)] = i }
        holes = 0
    }
}

/// The values of a persistent object as they were before its first unsaved change.
/// An object's state before its first unsaved change. A to-many relationship that was still a fault then is `nil`
/// here until it is first changed (it is read and recorded just before), so that editing one property never reads
/// every large to-many relationship of the object.
struct OriginalState {
    var attributes: [AttributeValue]
    var relationships: [[ManagedObjectID]?]
    var version: Int64
}
