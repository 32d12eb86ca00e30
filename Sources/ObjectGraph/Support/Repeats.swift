extension Array where Element: Hashable {
    /// The elements without repeats, each first occurrence kept in its place. A to-many relationship names an object
    /// once, ordered or not: a file that names it twice holds one link (every store reader reads it so, and a copy
    /// into any store then keeps the same links). Short arrays are searched without hashing.
    @inlinable package func withoutRepeats() -> [Element] {
        guard count > 1 else { return self }
        if count <= 16 {
            var repeats = false
            search: for i in 1..<count {
                for j in 0..<i where self[j] == self[i] {
                    repeats = true
                    break search
                }
            }
            if !repeats { return self }
        }
        var seen = Set<Element>(minimumCapacity: count)
        return filter { seen.insert($0).inserted }
    }
}
