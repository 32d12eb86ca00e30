import ObjectGraph

/// The objects `dump` writes, in its order (by entity name, then key), held as each entity's keys — 8 bytes an
/// object — instead of an ID per object made before the first is written: IDs are made a batch at a time.
struct DumpOrder: Sendable {
    /// A stretch of objects of one entity in one store, keys ascending.
    struct Run: Sendable {
        let entity: String
        let store: String
        let keys: ArraySlice<Int64>
    }

    private(set) var runs: [Run] = []
    /// Where each run starts in the whole order.
    private var starts: [Int] = []
    /// How many objects there are.
    private(set) var count = 0

    /// Reads the keys of `entities` (exact entities; each once) from the coordinator's stores.
    init(entities: [String], coordinator: PersistentStoreCoordinator) throws(StoreError) {
        for entity in Set(entities).sorted() {
            let parts = try coordinator.storedKeys(ofEntity: entity).filter { !$0.keys.isEmpty }
            if parts.count <= 1 {
                if let part = parts.first { append(Run(entity: entity, store: part.store, keys: part.keys[...])) }
                continue
            }
            // Stores holding the same entity: their keys interleaved by key (the first store first on a tie), in
            // stretches of one store.
            var merged: [(key: Int64, part: Int)] = []
            for (i, part) in parts.enumerated() { merged += part.keys.map { ($0, i) } }
            merged.sort { ($0.key, $0.part) < ($1.key, $1.part) }
            var start = 0
            while start < merged.count {
                var end = start
                while end < merged.count, merged[end].part == merged[start].part { end += 1 }
                append(
                    Run(
                        entity: entity, store: parts[merged[start].part].store,
                        keys: merged[start..<end].map(\.key)[...]))
                start = end
            }
        }
    }

    private mutating func append(_ run: Run) {
        starts.append(count)
        runs.append(run)
        count += run.keys.count
    }

    /// The entities that have objects.
    var entities: Set<String> { Set(runs.map(\.entity)) }

    /// The IDs of the objects at `positions` of the whole order.
    func ids(_ positions: Range<Int>) -> [ManagedObjectID] {
        var result: [ManagedObjectID] = []
        result.reserveCapacity(positions.count)
        // The run holding the first position: the last that starts at or before it.
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= positions.lowerBound { low = middle + 1 } else { high = middle }
        }
        var run = low - 1
        var position = positions.lowerBound
        while position < positions.upperBound, run >= 0, run < runs.count {
            let current = runs[run]
            let offset = position - starts[run]
            let take = min(current.keys.count - offset, positions.upperBound - position)
            let first = current.keys.startIndex + offset
            for key in current.keys[first..<first + take] {
                result.append(
                    ManagedObjectID(entityName: current.entity, storeIdentifier: current.store, primaryKey: key))
            }
            position += take
            run += 1
        }
        return result
    }
}
