struct ObserverEntry {
    let token: Int
    let name: ContextNotificationName
    let handler: (ContextNotification) -> Void
}

extension ManagedObjectContext {
    /// Calls `handler` for each notification `name` this context posts, while the returned token is kept.
    /// - Parameters:
    ///   - name: the notification.
    ///   - handler: called with each one.
    /// - Returns: the token; observing ends when it is released.
    public func addObserver(
        for name: ContextNotificationName, _ handler: @escaping (ContextNotification) -> Void
    ) -> ObservationToken {
        let token = nextObserverToken
        nextObserverToken += 1
        observers.append(ObserverEntry(token: token, name: name, handler: handler))
        return ObservationToken { [weak self] in self?.observers.removeAll { $0.token == token } }
    }

    func post(_ notification: ContextNotification) {
        for observer in observers where observer.name == notification.name { observer.handler(notification) }
    }

    /// Whether anything observes notification `name`: a notification whose lists cost a pass over every changed
    /// object is made only then.
    func isObserved(_ name: ContextNotificationName) -> Bool {
        observers.contains { $0.name == name }
    }

    func postObjectsDidChange() {
        guard !event.isEmpty else { return }
        bumpGeneration()
        let changes = event
        event = EventChanges()
        // The objects' lists are made only for an observer: a context nobody watches (a script inserting many
        // objects) lets the event go as it is.
        guard isObserved(.objectsDidChange) else { return }
        post(
            ContextNotification(
                name: .objectsDidChange, inserted: changes.inserted.objects, updated: changes.updated.objects,
                deleted: changes.deleted.objects, refreshed: changes.refreshed.objects, savedChanges: nil))
    }

    /// Brings another context's save into this one: updated objects take the stored values (keeping this
    /// context's own changes), deleted ones leave, and the change is announced as objects-did-change.
    ///
    /// Every object is handled even when one fails; the first failure is thrown at the end (a changed object whose
    /// stored state cannot be read keeps its values and its original state, so its next save reports the conflict).
    /// - Parameter changes: what the other context's save changed (from its did-save notification).
    /// - Throws: ``ContextError`` `store` or `object` for the first object that could not be merged.
    public func mergeChanges(fromContextDidSave changes: SavedChanges) throws(ContextError) {
        var failure: ContextError?
        for id in changes.updated {
            guard let object = registered[id], !object.isFault || object.hasChanges else {
                if let registered = registered[id] { event.refreshed.insert(registered) }
                continue
            }
            if object.hasChanges {
                do {
                    guard let stored = try persistentStoreCoordinator.snapshot(for: id) else {
                        failure =
                            failure
                            ?? .object(
                                ObjectGraphError(.objectNotFound, "\(id) is no longer in its store", objectID: id))
                        continue
                    }
                    do {
                        try merge(object, with: stored, keepLocalChanges: true)
                    } catch {
                        failure = failure ?? .object(error)
                        continue
                    }
                } catch {
                    failure = failure ?? .store(error)
                    continue
                }
            } else {
                object.turnIntoFault()
            }
            event.refreshed.insert(object)
        }
        for id in changes.deleted {
            guard let object = registered.removeValue(forKey: id) else { continue }
            updated.remove(object)
            removeDeleted(object)
            originals[ObjectIdentifier(object)] = nil
            object.flags.subtract([.changed, .deleted])
            event.deleted.insert(object)
        }
        postObjectsDidChange()
        if let failure { throw failure }
    }
}
