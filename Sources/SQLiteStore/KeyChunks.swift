/// Row keys split into the chunks a batched read asks for: up to `limit` keys each, as a key range when the keys are
/// dense (a range scan reads neighbouring rows once, where an `IN` list looks each key up in the B-tree and the
/// statement binds every key), else as the list of keys.
struct KeyChunks: Sequence {
    enum Chunk: Equatable {
        /// Every key from `lower` to `upper`; rows in between that were not asked for are skipped by the reader.
        case range(lower: Int64, upper: Int64)
        /// Exactly these keys.
        case list([Int64])
    }

    /// The keys, sorted and without repeats.
    let keys: [Int64]
    let limit: Int

    /// - Parameters:
    ///   - keys: The keys, in any order, repeats allowed.
    ///   - limit: The most keys in one chunk (and so the most values one `IN` list binds).
    init(_ keys: [Int64], limit: Int = 500) {
        var sorted = keys.sorted()
        var unique = 0
        for key in sorted where unique == 0 || sorted[unique - 1] != key {
            sorted[unique] = key
            unique += 1
        }
        sorted.removeLast(sorted.count - unique)
        self.keys = sorted
        self.limit = Swift.max(1, limit)
    }

    func makeIterator() -> AnyIterator<Chunk> {
        var start = 0
        return AnyIterator {
            guard start < keys.count else { return nil }
            let end = Swift.min(start + limit, keys.count)
            defer { start = end }
            let lower = keys[start]
            let upper = keys[end - 1]
            // Dense: the range holds at most a quarter more rows than were asked for (plus a few, for small chunks).
            let asked = Int64(end - start)
            let (span, overflow) = upper.subtractingReportingOverflow(lower)
            if !overflow, span < asked + asked / 4 + 8 {
                return .range(lower: lower, upper: upper)
            }
            return .list(Array(keys[start..<end]))
        }
    }
}
