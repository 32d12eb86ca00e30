extension Array where Element: Hashable {
    /// The elements without repeats, each first occurrence kept in its place. A to-many relationship names an object
    /// once, ordered or not: a file that names it twice holds one link (every store reader reads it so, and a copy
    /// into any store then keeps the same links). Elements whose `key` only grows (as files list an unordered
    /// to-many's keys) cannot repeat and are not hashed; nor is a short list, searched pair by pair.
    /// - Parameter key: a value that differs between any two different elements.
    @inlinable package func withoutRepeats(by key: (Element) -> some Comparable) -> [Element] {
        guard count > 1, zip(self, dropFirst()).contains(where: { key($0) >= key($1) }) else { return self }
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
