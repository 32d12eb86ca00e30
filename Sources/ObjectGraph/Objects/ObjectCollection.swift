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

    /// Removes an object and returns where it was.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Int? {
        guard let position = position(of: object) else { return nil }
        objects.remove(at: position)
        if index != nil {
            if position == objects.count {
                index![ObjectIdentifier(object)] = nil
            } else {
                rebuildIndex()
            }
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
