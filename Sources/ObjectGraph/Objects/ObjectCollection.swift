/// The contents of a to-many relationship: objects in order, unique by identity, with a hash index once the
/// collection grows so that membership tests stay O(1).
struct ObjectCollection {
    private(set) var objects: [ManagedObject] = []
    private var index: [ObjectIdentifier: Int]? = nil

    init(_ objects: [ManagedObject] = []) {
        for object in objects { append(object) }
    }

    var count: Int { objects.count }

    func contains(_ object: ManagedObject) -> Bool {
        if let index { return index[ObjectIdentifier(object)] != nil }
        return objects.contains { $0 === object }
    }

    func position(of object: ManagedObject) -> Int? {
        if let index { return index[ObjectIdentifier(object)] }
        return objects.firstIndex { $0 === object }
    }

    mutating func append(_ object: ManagedObject) {
        guard !contains(object) else { return }
        objects.append(object)
        if index != nil {
            index![ObjectIdentifier(object)] = objects.count - 1
        } else if objects.count > 16 {
            rebuildIndex()
        }
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
        let last = objects.count - 1
        if !keepingOrder && position != last {
            objects.swapAt(position, last)
            index?[ObjectIdentifier(objects[position])] = position
        }
        if keepingOrder && position != last {
            objects.remove(at: position)
            if index != nil { rebuildIndex() }
        } else {
            objects.removeLast()
            index?[ObjectIdentifier(object)] = nil
        }
        return position
    }

    private mutating func rebuildIndex() {
        var built: [ObjectIdentifier: Int] = [:]
        built.reserveCapacity(objects.count)
        for (i, object) in objects.enumerated() { built[ObjectIdentifier(object)] = i }
        index = built
    }
}
