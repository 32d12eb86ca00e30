extension ManagedObjectContext {
    /// Fetches objects: the store's matches merged with this context's unsaved changes (inserted objects that match
    /// are included, deleted ones left out, changed ones judged by their current values), sorted, then offset and
    /// limited. Each object is registered once (uniquing): a fetch returns the instances the context already has.
    /// - Parameter request: the fetch request (its result type is ignored: objects are returned).
    /// - Returns: the matching objects.
    /// - Throws: ``ContextError`` `predicate` for a predicate that cannot be evaluated, `store` when a store fails.
    public func fetch(_ request: FetchRequest) throws(ContextError) -> [ManagedObject] {
        let (storeRequest, touched) = try prepare(request)
        var results: [ManagedObject] = []
        if (request.returnsObjectsAsFaults && !request.includesPropertyValues) || request.fetchBatchSize > 0 {
            // Faults only: the store says which objects match; no row is read until one fires.
            let matches: [StoreMatches]
            do {
                matches = try persistentStoreCoordinator.fetchMatches(storeRequest)
            } catch {
                if let predicateError = error.predicateError { throw .predicate(predicateError) }
                throw .store(error)
            }
            let count = matches.reduce(0) { $0 + $1.count }
            reserveRegistrations(count)
            results.reserveCapacity(count)
            do throws(ObjectGraphError) {
                for found in matches {
                    switch found {
                    case .keys(let keys): try faults(for: keys, into: &results)
                    case .ids(let ids): for id in ids { results.append(try fault(for: id)) }
                    }
                }
            } catch {
                throw .object(error)
            }
        } else {
            // Each object is made and filled as its row is read (the row still in the cache, its snapshot let go at
            // once), under the coordinator's lock: nothing here calls the coordinator, and `awakeFromFetch` (an
            // app's code, which may) runs after the read — also when the read fails part way: the objects filled by
            // then stay registered, and each is woken once, as it would have been.
            var failure: ObjectGraphError? = nil
            // Tested per row instead of `failure` (which would be copied out of its box and destroyed on every row).
            var failed = false
            var storeFailure: StoreError? = nil
            var awoken: [ManagedObject] = []
            // Rows a store hands over by key come in runs of one entity: what making their objects needs is found
            // once per run.
            var run: KeyRun? = nil
            do {
                try persistentStoreCoordinator.fetchSnapshots(
                    storeRequest,
                    expecting: { count in
                        results.reserveCapacity(results.count + count)
                        reserveRegistrations(count)
                    }
                ) { snapshot, dropped in
                    guard !failed else { return }
                    do throws(ObjectGraphError) {
                        let object: ManagedObject
                        if let (prefix, key) = snapshot.identity.keyed {
                            if let current = run, current.prefix === prefix {
                                // The usual case: a row of the same entity as the one before (the store's prefix).
                                object = fault(forKey: key, in: current)
                            } else {
                                let current = try keyRun(prefix, key, after: run)
                                run = current
                                object = fault(forKey: key, in: current)
                            }
                        } else {
                            object = try fault(for: snapshot.objectID)
                        }
                        if object.isFault {
                            try object.fill(from: snapshot, adopting: dropped)
                            // A plain object's `awakeFromFetch` does nothing: only a subclass's is remembered.
                            if type(of: object) != ManagedObject.self { awoken.append(object) }
                        }
                        results.append(object)
                    } catch {
                        failure = error
                        failed = true
                    }
                }
            } catch {
                storeFailure = error
            }
            for object in awoken { object.awakeFromFetch() }
            if let storeFailure {
                if let predicateError = storeFailure.predicateError { throw .predicate(predicateError) }
                throw .store(storeFailure)
            }
            if let failure { throw .object(failure) }
        }
        if request.includesPendingChanges, !touched.isEmpty {
            results = try merged(results, touched: touched, request: request)
        }
        let page = Self.page(results, of: request)
        if request.fetchBatchSize > 0 { registerBatches(page, size: request.fetchBatchSize) }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, from: page)
        }
        return page
    }

    /// What a fetch asks the stores, after checking the request: the request with the rows the stores need
    /// (``FetchRequest/storeLimit``), and this context's unsaved changes of its entities (to merge).
    private func prepare(_ request: FetchRequest) throws(ContextError) -> (FetchRequest, [ManagedObject]) {
        if request.includesPendingChanges { processPendingChanges() }
        guard model.entity(named: request.entityName) != nil else {
            throw .object(
                ObjectGraphError(.unknownEntity, "the model has no entity '\(Diagnostics.quote(request.entityName))'"))
        }
        do {
            try model.validateKeyPaths(of: request)
        } catch {
            throw .predicate(error)
        }
        let kinds =
            Set(request.includesSubentities ? model.entityAndDescendants(of: request.entityName) : [request.entityName])
        let touched = touchedObjects(of: kinds)
        // The stores need only the first offset + limit matches, and one more for each unsaved change (a changed or
        // deleted object leaves the stored matches when they are merged with this context's changes).
        var storeRequest = request
        if request.fetchLimit > 0 {
            // (Any sum past Int.max asks for every row.)
            let (withOffset, overflowed) = request.fetchLimit.addingReportingOverflow(max(0, request.fetchOffset))
            let (needed, overflow) = withOffset.addingReportingOverflow(
                request.includesPendingChanges ? touched.count : 0)
            storeRequest.storeLimit = overflowed || overflow ? 0 : needed
        }
        return (storeRequest, touched)
    }

    /// The request's page of `results`: its offset, then at most its limit.
    private static func page<Element>(_ results: [Element], of request: FetchRequest) -> [Element] {
        let start = min(results.count, max(0, request.fetchOffset))
        // (`start` is at most the count: adding a limit the rest is shorter than cannot pass it.)
        let end = request.fetchLimit > 0 ? start + min(results.count - start, request.fetchLimit) : results.count
        return start == 0 && end == results.count ? results : Array(results[start..<end])
    }

    /// The stored state of the objects a fetch returns when it leaves this context's unsaved changes out (as with
    /// ``FetchRequest/includesPendingChanges`` `false`), in its order, read without making an object. For writing
    /// many matches a batch at a time: ``PersistentStoreCoordinator/wholeSnapshots(completing:)`` reads their to-many
    /// relationships (perhaps on another thread) and ``objects(with:snapshots:)`` makes the objects.
    /// - Parameter request: the fetch request.
    /// - Throws: ``ContextError`` as ``fetch(_:)`` does.
    package func storedSnapshots(for request: FetchRequest) throws(ContextError) -> [ObjectSnapshot] {
        var stored = request
        stored.includesPendingChanges = false
        let (storeRequest, _) = try prepare(stored)
        do {
            return Self.page(try persistentStoreCoordinator.fetchSnapshots(storeRequest), of: stored)
        } catch {
            if let predicateError = error.predicateError { throw .predicate(predicateError) }
            throw .store(error)
        }
    }

    /// Groups the faults of a fetch into batches that fill together (Core Data's batch faulting).
    private func registerBatches(_ objects: [ManagedObject], size: Int) {
        var start = 0
        while start < objects.count {
            let chunk = objects[start..<min(start + size, objects.count)].filter(\.isFault)
            start += size
            guard !chunk.isEmpty else { continue }
            let batch = FaultBatch(chunk.map(\.objectID))
            for object in chunk { faultBatches[object.objectID] = batch }
        }
    }

    /// Fills the destinations of each relationship key path (`"author"`, `"author.books"`) in one store request
    /// per step, so that walking them fires no fault one by one. To-many relationships not yet loaded are read
    /// per object first.
    private func prefetch(_ keyPaths: [String], from objects: [ManagedObject]) throws(ContextError) {
        for keyPath in keyPaths {
            var current = objects
            for name in keyPath.split(separator: ".").map(String.init) {
                var ids: [ManagedObjectID] = []
                var seen = Set<ManagedObjectID>()
                do throws(ObjectGraphError) {
                    for object in current {
                        guard let slot = object.entity.relationshipSlot(named: name) else { continue }
                        try object.fireFault()
                        for id in try object.relationshipIDs(slot) where seen.insert(id).inserted { ids.append(id) }
                    }
                } catch {
                    throw .object(error)
                }
                guard !ids.isEmpty else { break }
                current = try self.objects(with: ids)
            }
        }
    }

    /// The objects with the given IDs, registered in this context, with the faults among them filled in one request
    /// to the stores (batch faulting).
    /// - Parameter ids: the IDs.
    /// - Returns: the objects, in the order of `ids`.
    /// - Throws: ``ContextError`` `object` with ``ObjectGraphError/Code/faultNotFulfilled`` (naming the object) when
    ///   an ID's object is not in its store, or `store` when a store fails.
    public func objects(with ids: [ManagedObjectID]) throws(ContextError) -> [ManagedObject] {
        let objects = try registered(ids)
        let faults = objects.filter { $0.isFault && !$0.hasTemporaryID }
        guard !faults.isEmpty else { return objects }
        let snapshots: [ObjectSnapshot]
        do {
            snapshots = try persistentStoreCoordinator.snapshots(for: faults.map(\.objectID))
        } catch {
            throw .store(error)
        }
        try fill(faults, from: snapshots)
        return objects
    }

    /// The objects of `ids` filled from snapshots read beforehand (``PersistentStoreCoordinator/wholeSnapshots(for:)``,
    /// perhaps on another thread): objects already registered and filled keep their state.
    /// - Parameters:
    ///   - ids: the objects.
    ///   - snapshots: their stored state (every one the context has to fill).
    /// - Returns: the objects, in the order of `ids`.
    /// - Throws: ``ContextError`` when an object to fill has no snapshot.
    package func objects(with ids: [ManagedObjectID], snapshots: [ObjectSnapshot]) throws(ContextError)
        -> [ManagedObject]
    {
        let objects = try registered(ids)
        try fill(objects.filter { $0.isFault && !$0.hasTemporaryID }, from: snapshots)
        return objects
    }

    /// The registered object of each ID (a fault for one not registered yet).
    private func registered(_ ids: [ManagedObjectID]) throws(ContextError) -> [ManagedObject] {
        do {
            reserveRegistrations(ids.count)
            return try ids.map { (id) throws(ObjectGraphError) in try fault(for: id) }
        } catch {
            throw .object(error)
        }
    }

    /// Fills faults from their snapshots.
    private func fill(_ faults: [ManagedObject], from snapshots: [ObjectSnapshot]) throws(ContextError) {
        // Positions by ID: the snapshots stay where they are (a dictionary of them copied each one in and out).
        var byID: [ManagedObjectID: Int] = [:]
        byID.reserveCapacity(snapshots.count)
        for i in snapshots.indices { byID[snapshots[i].objectID] = i }
        for object in faults {
            guard let i = byID[object.objectID] else { throw .object(.fault(object.objectID, nil)) }
            do {
                try object.fill(from: snapshots[i])
            } catch {
                throw .object(error)
            }
            object.awakeFromFetch()
        }
    }

    /// Reads the to-many relationships of `objects` that are still faults, one store request per relationship and
    /// entity (not one per object): for reading many objects whole, as `docutil dump` does.
    /// - Parameter objects: objects of this context.
    /// - Throws: ``ContextError`` when a store fails or an object cannot be read.
    public func prefetchToManyRelationships(of objects: [ManagedObject]) throws(ContextError) {
        var groups: [String: [ManagedObject]] = [:]
        for object in objects where !object.hasTemporaryID {
            groups[object.entity.name, default: []].append(object)
        }
        for (_, members) in groups {
            let layout = members[0].entity
            for (i, relationship) in layout.relationships.enumerated() where relationship.isToMany {
                var pending: [ManagedObject] = []
                do throws(ObjectGraphError) {
                    for object in members {
                        try object.fireFault()
                        if case .toManyFault = object.relationshipSlots[i] { pending.append(object) }
                    }
                } catch {
                    throw .object(error)
                }
                guard !pending.isEmpty else { continue }
                let found: [ManagedObjectID: [ManagedObjectID]]
                do {
                    found = try persistentStoreCoordinator.destinations(
                        of: pending.map(\.objectID), relationship: relationship.name)
                } catch {
                    throw .store(error)
                }
                for object in pending {
                    guard let ids = found[object.objectID] else {
                        throw .object(
                            ObjectGraphError(
                                .faultNotFulfilled,
                                "cannot read \(layout.name).\(relationship.name) of \(object.objectID)",
                                objectID: object.objectID))
                    }
                    object.relationshipSlots[i] = .unresolvedToMany(ids)
                }
            }
        }
    }

    /// The number of objects a fetch would return.
    /// - Parameter request: the fetch request.
    /// - Returns: the count, unsaved changes included.
    /// - Throws: ``ContextError`` as ``fetch(_:)`` does.
    public func count(for request: FetchRequest) throws(ContextError) -> Int {
        // When nothing needs matching or merging in memory, no object (nor, from a store listing keys, ID) is made.
        if Self.storesAnswerAlone(request, context: self) {
            do {
                return try persistentStoreCoordinator.fetchMatches(request).reduce(0) { $0 + $1.count }
            } catch {
                throw .store(error)
            }
        }
        return try fetch(Self.faultsOnly(request)).count
    }

    /// Whether the stores' own matches are a fetch's whole answer: nothing to match in memory and no changes to
    /// merge.
    private static func storesAnswerAlone(_ request: FetchRequest, context: ManagedObjectContext) -> Bool {
        request.predicate == nil && request.sortDescriptors.isEmpty && request.fetchOffset == 0
            && request.fetchLimit == 0 && !context.hasChanges && context.model.entity(named: request.entityName) != nil
    }

    /// The request returning faults without reading rows.
    static func faultsOnly(_ request: FetchRequest) -> FetchRequest {
        var faults = request
        faults.returnsObjectsAsFaults = true
        faults.includesPropertyValues = false
        return faults
    }

    /// The IDs of the objects a fetch would return.
    /// - Parameter request: the fetch request.
    /// - Returns: the IDs (temporary ones for unsaved inserted objects).
    /// - Throws: ``ContextError`` as ``fetch(_:)`` does.
    public func fetchObjectIDs(_ request: FetchRequest) throws(ContextError) -> [ManagedObjectID] {
        // The stores' own answer when it is the whole answer: no object made or registered.
        if Self.storesAnswerAlone(request, context: self) {
            do {
                return try persistentStoreCoordinator.fetchObjectIDs(request)
            } catch {
                throw .store(error)
            }
        }
        return try fetch(Self.faultsOnly(request)).map(\.objectID)
    }

    /// Runs a fetch request of any result type: objects, object IDs, dictionaries (with aggregate expressions and
    /// grouping) or a count.
    ///
    /// Objects, IDs and counts include this context's unsaved changes as ``fetch(_:)`` does (unless the request's
    /// ``FetchRequest/includesPendingChanges`` is `false`). Dictionaries, as Core Data's, are the stores' state
    /// whatever that property says: a value changed here, an unsaved insert or an unsaved deletion is not in them.
    /// - Parameter request: the fetch request.
    /// - Returns: the result, of the request's result type.
    /// - Throws: ``ContextError`` as ``fetch(_:)`` does.
    public func execute(_ request: FetchRequest) throws(ContextError) -> FetchResult {
        var unbounded = request
        if request.resultType == .dictionary || request.resultType == .count {
            unbounded.fetchLimit = 0
            unbounded.fetchOffset = 0
        }
        guard request.resultType == .dictionary, hasChanges else { return try execute(request, over: fetch(unbounded)) }
        // The stored objects, read in a context of their own (this one's objects hold its changes); it lives until the
        // dictionaries are made (their key paths may fire its faults).
        let stored = ManagedObjectContext(coordinator: persistentStoreCoordinator)
        unbounded.includesPendingChanges = false
        return try withExtendedLifetime(stored) { () throws(ContextError) in
            try execute(request, over: stored.fetch(unbounded))
        }
    }

    /// The result of `request` of the objects it matches.
    private func execute(_ request: FetchRequest, over objects: [ManagedObject]) throws(ContextError) -> FetchResult {
        switch request.resultType {
        case .managedObject: return .objects(objects.map { .object($0) })
        case .managedObjectID: return .objects(objects.map { .url($0.objectID.uriRepresentation) })
        case .count, .dictionary:
            var inMemory = request
            inMemory.predicate = nil
            do {
                let attributes =
                    model.layout(of: request.entityName)?.attributes.filter { !$0.isTransient }.map(\.name) ?? []
                return try InMemoryFetch.execute(inMemory, over: objects.map { .object($0) }, allProperties: attributes)
            } catch {
                throw .predicate(error)
            }
        }
    }

    /// Objects of the given entities with unsaved changes of any kind.
    private func touchedObjects(of kinds: Set<String>) -> [ManagedObject] {
        var result: [ManagedObject] = []
        for list in [inserted, updated, deleted] {
            for object in list.objects where kinds.contains(object.entity.name) { result.append(object) }
        }
        return result
    }

    private func merged(
        _ stored: [ManagedObject], touched: [ManagedObject], request: FetchRequest
    ) throws(ContextError) -> [ManagedObject] {
        let touchedIDs = Set(touched.map(ObjectIdentifier.init))
        var results = stored.filter { !touchedIDs.contains(ObjectIdentifier($0)) }
        for object in touched where !object.isDeleted {
            let matches: Bool
            do {
                matches = try request.predicate?.evaluate(with: .object(object)) ?? true
            } catch {
                throw .predicate(error)
            }
            if matches { results.append(object) }
        }
        guard !request.sortDescriptors.isEmpty else { return results }
        do {
            return try request.sortDescriptors.stablySorted(results.map { PredicateValue.object($0) }).map {
                results[$0]
            }
        } catch {
            throw .predicate(error)
        }
    }
}
