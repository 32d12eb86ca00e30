/// Per-object property observers: the stand-in for key-value observing and bindings.
final class ObjectObservers {
    struct Entry {
        let token: Int
        let key: String?
        let handler: (PropertyChange) -> Void
    }

    var entries: [Entry] = []
    var nextToken = 1

    func notify(_ key: String, old: PredicateValue, new: PredicateValue) {
        guard !entries.isEmpty else { return }
        let change = PropertyChange(key: key, oldValue: old, newValue: new)
        for entry in entries where entry.key == nil || entry.key == key { entry.handler(change) }
    }
}

extension ManagedObject {
    /// Calls `handler` after each change of the property `key` (every property when `key` is nil), including
    /// changes made by undo and by inverse maintenance. The observation lasts while the token is kept.
    /// - Parameters:
    ///   - key: the property to watch; `nil` for every property.
    ///   - handler: called with each change, after it is made.
    /// - Returns: the token; the observation ends when it is released.
    public func observe(_ key: String? = nil, _ handler: @escaping (PropertyChange) -> Void) -> ObservationToken {
        let table = observers ?? ObjectObservers()
        observers = table
        let token = table.nextToken
        table.nextToken += 1
        table.entries.append(.init(token: token, key: key, handler: handler))
        return ObservationToken { [weak table] in table?.entries.removeAll { $0.token == token } }
    }
}
