import Foundation

/// A scratch pad of managed objects over a coordinator: it inserts, fetches, changes and deletes objects, tracks
/// every change, undoes and redoes them, validates and saves them, and tells observers what changed.
///
/// **Isolation.** A context and its objects belong to one isolation domain (a thread, a task, an actor): create the
/// context there and use it only there — the compiler enforces this, as contexts and objects are not `Sendable`.
/// Only ``ManagedObjectID``s, ``ObjectSnapshot``s and ``SavedChanges`` cross between domains; the coordinator is
/// shared. For background work, ``perform(with:_:)`` runs a closure with a fresh private context.
public final class ManagedObjectContext {
    /// The coordinator the context reads from and saves to.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The undo manager; `nil` turns undo off (and saves the cost of recording).
    @exclusivity(unchecked) public var undoManager: UndoManager? = UndoManager()
    /// What a save does about optimistic-locking conflicts.
    public var mergePolicy: MergePolicy = .error
    /// A name for messages and debugging.
    public var name: String?

    /// Every object the context knows, by ID. Read and changed once or twice for each object a fetch makes, so its
    /// accesses go unchecked for exclusivity (they never overlap: none of them calls out while it lasts).
    @exclusivity(unchecked) var registered = ObjectRegistry()
    /// What the context's objects reach it through; cut when the context goes away.
    private(set) lazy var link = ContextLink(self)
    /// The layout of the last fault made (see `fault(for:)`): read for every fault, so unchecked for exclusivity
    /// (a plain read or write, nothing called while it lasts).
    @exclusivity(unchecked) private var lastFaultLayout: EntityLayout?
    /// The change sets (and ``event``'s below): changed once or more for each object inserted, changed or deleted,
    /// so their accesses go unchecked for exclusivity (an object list's methods take no closures and call nothing
    /// back: no access can overlap another).
    @exclusivity(unchecked) var inserted = ObjectList()
    @exclusivity(unchecked) var updated = ObjectList()
    @exclusivity(unchecked) var deleted = ObjectList()
    /// How many objects are in both `inserted` and `deleted` (inserted, then deleted before a save): they are no
    /// change at all, so ``hasChanges`` leaves them out without building any list.
    var droppedCount = 0
    /// The original states of changed objects, and the stores inserted objects are assigned to: read or changed
    /// for every change and every object saved, so unchecked for exclusivity. Their closures (`originals.modify`)
    /// only compare and record values; none reaches the context.
    @exclusivity(unchecked) var originals = OriginalStates()
    /// Appended to once per object deleted; drained by ``processPendingChanges()``.
    @exclusivity(unchecked) var pendingDeletes: [ManagedObject] = []
    @exclusivity(unchecked) var assignedStores: [ObjectIdentifier: String] = [:]
    @exclusivity(unchecked) var event = EventChanges()
    var observers: [ObserverEntry] = []
    var nextObserverToken = 1
    var isMerging = false
    /// Faults from fetches with a `fetchBatchSize`: firing one fills every fault of its batch in one store request.
    var faultBatches: [ManagedObjectID: FaultBatch] = [:]
    /// Values a lenient read kept raw because they do not fit their attributes, by object and attribute slot.
    var rawValues: [ObjectIdentifier: [Int: AttributeValue]] = [:]
    /// Failures that happened where no error could be thrown (a subclass accessor, an undo action, a delete rule):
    /// the next save throws them instead of writing; ``rollback()`` and ``reset()`` clear them.
    public private(set) var pendingFailures: [ObjectGraphError] = []

    /// Changes since the last objects-did-change notification.
    struct EventChanges {
        var inserted = ObjectList()
        var updated = ObjectList()
        var deleted = ObjectList()
        var refreshed = ObjectList()
        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty }
    }

    /// Creates a context over a coordinator.
    /// - Parameter coordinator: the coordinator whose stores the context reads and saves.
    public init(coordinator: PersistentStoreCoordinator) {
        self.persistentStoreCoordinator = coordinator
    }

    deinit {
        link.isAlive = false
        for object in registered.values { object.tearDown() }
        for object in inserted.objects { object.tearDown() }
        tearDownGoneObjects()
    }

    /// An object that left the context, held weakly (see ``goneObjects``).
    struct GoneObject {
        weak var object: ManagedObject?
    }

    /// Objects that left the context (their deletion saved, their insert undone) while something else — the undo
    /// stack, the app — may still hold them: torn down with the context's own objects when it goes or is reset, as
    /// they may point at each other (a relationship and its inverse) and would otherwise keep each other alive. Held
    /// weakly, by identity; entries of objects gone since are dropped as the table grows.
    var goneObjects: [ObjectIdentifier: GoneObject] = [:]
    /// The size at which ``goneObjects`` next drops its empty entries.
    private var goneObjectsCompaction = 64

    /// Marks `object` as out of the context (its `gone` flag) and, when the context records undo, keeps it in
    /// ``goneObjects``. (Only undo sets a relationship of an object out of the context again: without it, the delete
    /// rules and rollback have cleared what two such objects could hold of each other, and a weak reference per
    /// deleted object is a tenth of a large delete.)
    func markGone(_ object: ManagedObject) {
        object.flags.insert(.gone)
        guard undoManager != nil else { return }
        if goneObjects.count >= goneObjectsCompaction {
            goneObjects = goneObjects.filter { $0.value.object != nil }
            goneObjectsCompaction = max(64, 2 * goneObjects.count)
        }
        goneObjects[ObjectIdentifier(object)] = GoneObject(object: object)
    }

    /// Tears down the objects of ``goneObjects`` that still exist, and forgets them.
    private func tearDownGoneObjects() {
        let gone = goneObjects.values.compactMap(\.object)
        goneObjects.removeAll()
        for object in gone { object.tearDown() }
    }

    /// The model.
    public var model: ManagedObjectModel { persistentStoreCoordinator.model }

    /// Runs `body` with a new context over `coordinator`, in the caller's isolation domain, and returns its
    /// (`Sendable`) result: the way to do background work — call it from a background task.
    /// - Parameters:
    ///   - coordinator: the coordinator.
    ///   - body: the work, given the new context.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public static func perform<T: Sendable>(
        with coordinator: PersistentStoreCoordinator, _ body: (ManagedObjectContext) throws -> T
    ) rethrows -> T {
        try body(ManagedObjectContext(coordinator: coordinator))
    }

    /// Runs `body` with this context (Core Data's `performAndWait`); contexts are confined, so this is a plain call.
    /// - Parameter body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func perform<T>(_ body: () throws -> T) rethrows -> T {
        try body()
    }

    // MARK: - Change sets

    /// Objects inserted and not yet saved.
    public var insertedObjects: [ManagedObject] {
        // An inserted object that is deleted is one of the `droppedCount` (none: nothing to leave out).
        droppedCount == 0 ? inserted.objects : inserted.objects.filter { !$0.isDeleted }
    }
    /// Saved objects with unsaved changes.
    public var updatedObjects: [ManagedObject] { updated.objects.filter { !$0.isDeleted } }
    /// Objects deleted and not yet saved (objects inserted and deleted before a save are left out).
    public var deletedObjects: [ManagedObject] {
        droppedCount == 0 ? deleted.objects : deleted.objects.filter { !$0.isInserted }
    }
    /// Every object the context knows, by ID.
    public var registeredObjects: [ManagedObject] { Array(registered.values) }

    /// Keeps a failure that could not be thrown where it happened, for the next save to report.
    func recordFailure(_ error: ObjectGraphError) {
        if pendingFailures.count < 100 { pendingFailures.append(error) }
    }

    /// Forgets the failures kept since the first `count` (after undoing the changes that caused them, so that they
    /// no longer stand in the way of a save).
    /// - Parameter count: how many of the earliest failures to keep.
    public func forgetPendingFailures(after count: Int) {
        if pendingFailures.count > count { pendingFailures.removeSubrange(max(0, count)...) }
    }

    /// Whether there are unsaved changes: exactly when saving would write something (an object inserted and then
    /// deleted is no change; a property changed and changed back is none either). Constant time.
    public var hasChanges: Bool {
        !updated.isEmpty || !pendingDeletes.isEmpty || inserted.count > droppedCount || deleted.count > droppedCount
    }

    /// How many objects are inserted, updated and deleted and not yet saved (as ``insertedObjects``,
    /// ``updatedObjects`` and ``deletedObjects`` count them), in constant time.
    public var changeCounts: (inserted: Int, updated: Int, deleted: Int) {
        (inserted.count - droppedCount, updated.count, deleted.count - droppedCount)
    }

    /// A number that changes whenever the context's objects change (each processed event, undo, redo, save,
    /// rollback, reset): compare two readings to tell whether anything happened in between — what a document's
    /// autosave uses to know whether it has something new to write.
    public private(set) var changeGeneration: UInt64 = 0

    func bumpGeneration() { changeGeneration &+= 1 }

    /// Moves whenever an object joins or leaves the inserted, updated or deleted set (each only counts up).
    var changeSetMutations: Int { inserted.mutations &+ updated.mutations &+ deleted.mutations }

    /// The ``changeGeneration`` at which ``validateForSave()`` last passed: a save right after it (nothing changed
    /// in between) does not check every rule again.
    var validatedGeneration: UInt64?

    /// Adds an object to the inserted set, keeping ``droppedCount``.
    /// (Only for an object that just became inserted — a new one, or one an undo brings back — which is not in the
    /// set: it is appended without a lookup.)
    func addInserted(_ object: ManagedObject) {
        inserted.appendNew(object)
        if !deleted.isEmpty && deleted.contains(object) { droppedCount += 1 }
    }

    /// Removes an object from the inserted set, keeping ``droppedCount``.
    func removeInserted(_ object: ManagedObject) {
        guard inserted.contains(object) else { return }
        inserted.remove(object)
        if deleted.contains(object) { droppedCount -= 1 }
    }

    /// Adds an object to the deleted set, keeping ``droppedCount``.
    func addDeleted(_ object: ManagedObject) {
        guard !deleted.contains(object) else { return }
        deleted.insert(object)
        if inserted.contains(object) { droppedCount += 1 }
    }

    /// Removes an object from the deleted set, keeping ``droppedCount``.
    func removeDeleted(_ object: ManagedObject) {
        guard deleted.contains(object) else { return }
        deleted.remove(object)
        if inserted.contains(object) { droppedCount -= 1 }
    }

    /// Empties the three change sets.
    func clearChangeSets() {
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        droppedCount = 0
    }

    // MARK: - Lookup

    /// The registered object for an ID, if the context has one.
    /// - Parameter id: the object's ID.
    /// - Returns: the object, or `nil` when the context has none.
    public func registeredObject(for id: ManagedObjectID) -> ManagedObject? {
        registered[id]
    }

    /// The object for an ID: the registered one, or a new fault. The fault is not read here: reading it fails with
    /// ``ObjectGraphError/Code/faultNotFulfilled`` if the object no longer exists.
    /// - Parameter id: the object's ID.
    /// - Returns: the object.
    /// - Throws: ``ObjectGraphError`` `unknownEntity` when the model has no entity of the ID's name.
    public func object(with id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        try fault(for: id)
    }

    /// The registered object for an ID, or a new fault for it.
    /// Room for `count` more registered objects, made before registering many at once (a table of keys may then
    /// grow at once to hold them, even when they come in descending key order).
    func reserveRegistrations(_ count: Int) {
        registered.reserve(count)
    }

    func fault(for id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject {
        // One lookup finds the object or the place the new one goes.
        let place = registered.find(id)
        if case .registered(let object) = place { return object }
        guard let layout = faultLayout(of: id.entityName) else { throw Self.unknownEntity(id) }
        let type = persistentStoreCoordinator.objectClass(forEntityName: id.entityName)
        let object = type.init(layout: layout, objectID: id)
        object.managedObjectContext = self
        registered.register(object, for: id, at: place)
        return object
    }

    /// The layout of a fault's entity, `nil` when the model has none (see ``unknownEntity(_:)``); faults come in
    /// runs of one entity, so it is looked up by name once per run.
    @inline(__always)
    private func faultLayout(of entityName: String) -> EntityLayout? {
        if let last = lastFaultLayout, last.name == entityName { return last }
        guard let found = model.layout(of: entityName) else { return nil }
        lastFaultLayout = found
        return found
    }

    /// The error for a fault of an entity the model does not have.
    private static func unknownEntity(_ id: ManagedObjectID) -> ObjectGraphError {
        ObjectGraphError(
            .unknownEntity, "\(id): the model has no entity '\(Diagnostics.quote(id.entityName))'", objectID: id)
    }

    /// The registered objects of a store's keys, in order (appended to `results`), faults made for those not
    /// registered: objects of ``ManagedObject`` itself make their IDs when first asked for.
    func faults(for keys: ObjectKeys, into results: inout [ManagedObject]) throws(ObjectGraphError) {
        let store = keys.storeIdentifier
        var run: KeyRun? = nil
        try keys.forEachRun { (entityName, keys) throws(ObjectGraphError) in
            guard let first = keys.first else { return }
            let current = try keyRun(ObjectIDPrefix(storeIdentifier: store, entityName: entityName), first, after: run)
            run = current
            for key in keys { results.append(fault(forKey: key, in: current)) }
        }
    }

    /// What making the faults of one store's entity from keys needs, found once for a run of its keys (a class: a
    /// fetch holds the current run, and tests it per row, without copying its fields).
    final class KeyRun {
        /// The store and entity.
        let prefix: ObjectIDPrefix
        /// The entity's layout.
        let layout: EntityLayout
        /// The class of its objects.
        let type: ManagedObject.Type
        /// The registry's table of the store's entity.
        let table: Int
        /// The way back to this context, given to each object.
        let link: ContextLink

        init(prefix: ObjectIDPrefix, layout: EntityLayout, type: ManagedObject.Type, table: Int, link: ContextLink) {
            self.prefix = prefix
            self.layout = layout
            self.type = type
            self.table = table
            self.link = link
        }
    }

    /// The run of `prefix`'s keys: `last` when it is of the same store and entity, else found anew.
    /// - Parameters:
    ///   - prefix: the store and entity.
    ///   - key: a key of the run (named in the error for an entity the model does not have).
    ///   - last: the run before.
    func keyRun(_ prefix: ObjectIDPrefix, _ key: Int64, after last: KeyRun?) throws(ObjectGraphError) -> KeyRun {
        if let last,
            last.prefix === prefix
                || (last.prefix.entityName == prefix.entityName
                    && last.prefix.storeIdentifier == prefix.storeIdentifier)
        {
            return last
        }
        guard let layout = faultLayout(of: prefix.entityName) else { throw Self.unknownEntity(prefix.objectID(key)) }
        return KeyRun(
            prefix: prefix, layout: layout,
            type: persistentStoreCoordinator.objectClass(forEntityName: prefix.entityName),
            table: registered.table(storeIdentifier: prefix.storeIdentifier, entityName: prefix.entityName), link: link)
    }

    /// The object of `key` in `run`: the registered one, or a fault made and registered (of ``ManagedObject`` itself,
    /// it makes its ID when first asked for).
    func fault(forKey key: Int64, in run: KeyRun) -> ManagedObject {
        if let object = registered.object(forKey: key, inTable: run.table, prefix: run.prefix) { return object }
        let object =
            run.type == ManagedObject.self
            ? ManagedObject(layout: run.layout, prefix: run.prefix, key: key)
            : run.type.init(layout: run.layout, objectID: run.prefix.objectID(key))
        object.contextLink = run.link
        registered.register(object, key: key, inTable: run.table)
        return object
    }

    /// The object for an ID, loaded, or an error when it does not exist.
    /// - Parameter id: the object's ID.
    /// - Returns: the object, its values read.
    /// - Throws: ``ContextError`` `object` when it does not exist or cannot be read.
    public func existingObject(with id: ManagedObjectID) throws(ContextError) -> ManagedObject {
        if let object = registered[id], !object.isFault { return object }
        let object: ManagedObject
        do {
            object = try fault(for: id)
        } catch {
            throw .object(error)
        }
        if object.flags.contains(.tornDown) {
            throw .object(ObjectGraphError(.objectNotFound, "no object \(id)", objectID: id))
        }
        let snapshot: ObjectSnapshot?
        do {
            snapshot = try persistentStoreCoordinator.snapshot(for: id)
        } catch {
            throw .store(error)
        }
        guard let snapshot else { throw .object(ObjectGraphError(.objectNotFound, "no object \(id)", objectID: id)) }
        if object.isFault {
            do {
                try object.fill(from: snapshot)
            } catch {
                throw .object(error)
            }
            object.awakeFromFetch()
        }
        return object
    }

    /// The destinations of a to-many relationship that arrived as a fault.
    func destinations(of object: ManagedObject, relationship: String) throws(ObjectGraphError) -> [ManagedObjectID] {
        do {
            return try persistentStoreCoordinator.destinations(of: object.objectID, relationship: relationship)
        } catch {
            throw ObjectGraphError(
                .faultNotFulfilled,
                "cannot read \(object.entity.name).\(relationship) of \(object.objectID): \(error.description)",
                objectID: object.objectID, underlying: error)
        }
    }

    /// Loads a fault's values from the coordinator (row cache or store).
    /// - Throws: ``ObjectGraphError`` `faultNotFulfilled` when the row is gone or the store fails; the object stays a
    ///   fault.
    func fulfillFault(_ object: ManagedObject) throws(ObjectGraphError) {
        if let batch = faultBatches[object.objectID] {
            for id in batch.ids { faultBatches[id] = nil }
            let snapshots: [ObjectSnapshot]
            do {
                snapshots = try persistentStoreCoordinator.snapshots(for: batch.ids)
            } catch {
                throw .fault(object.objectID, error)
            }
            var filled = false
            for snapshot in snapshots {
                // `object` is firing (no longer a fault); the rest of the batch fills only while still faults.
                guard let member = registered[snapshot.objectID], member === object || member.isFault else { continue }
                do {
                    try member.fill(from: snapshot)
                } catch {
                    // Another member of the batch that does not load fails when it is used, not now.
                    if member === object { throw error }
                    continue
                }
                member.awakeFromFetch()
                filled = filled || member === object
            }
            if filled { return }
        }
        let snapshot: ObjectSnapshot?
        do {
            snapshot = try persistentStoreCoordinator.snapshot(for: object.objectID)
        } catch {
            throw .fault(object.objectID, error)
        }
        guard let snapshot else { throw .fault(object.objectID, nil) }
        try object.fill(from: snapshot)
        object.awakeFromFetch()
    }

    // MARK: - Inserting and deleting

    /// Inserts a new object of an entity, with the model's default values, and calls its `awakeFromInsert()`.
    /// - Parameter name: the entity's name.
    /// - Returns: the new object (of the class registered for the entity).
    /// - Throws: ``ObjectGraphError`` for an unknown or abstract entity.
    @discardableResult
    public func insertNewObject(forEntityName name: String) throws(ObjectGraphError) -> ManagedObject {
        try insert(ManagedObject.self, entityName: name)
    }

    /// Inserts a new object of a subclass registered for (or compatible with) an entity.
    /// - Parameters:
    ///   - type: the subclass.
    ///   - name: the entity's name.
    /// - Returns: the new object.
    /// - Throws: ``ObjectGraphError`` for an unknown or abstract entity, or a class that does not match it.
    @discardableResult
    public func insert<T: ManagedObject>(_ type: T.Type, entityName name: String) throws(ObjectGraphError) -> T {
        guard let layout = model.layout(of: name) else {
            throw ObjectGraphError(.unknownEntity, "the model has no entity '\(name)'")
        }
        guard !layout.isAbstract else {
            throw ObjectGraphError(.abstractEntity, "'\(name)' is abstract: insert one of its sub-entities")
        }
        let registeredType = persistentStoreCoordinator.objectClass(forEntityName: name)
        let objectType: ManagedObject.Type = registeredType is T.Type ? registeredType : type
        // A plain object makes its temporary ID when asked for it; a subclass's initializer is given one.
        let made =
            objectType == ManagedObject.self
            ? ManagedObject(insertingWith: layout)
            : objectType.init(layout: layout, objectID: ManagedObjectID(temporaryFor: name))
        guard let object = made as? T else {
            throw ObjectGraphError(.wrongValueType, "the class registered for '\(name)' is not a \(T.self)")
        }
        // (Its context is set as it is registered, below.)
        let storage = object.allocateEmptyStorage()
        for (slot, value) in layout.defaultValues { storage.set(slot, value, layout: layout) }
        register(inserted: object)
        object.awakeFromInsert()
        return object
    }

    private func register(inserted object: ManagedObject) {
        // By number, not ID: an inserted object makes its temporary ID only when asked for it.
        if let number = object.temporaryNumber {
            registered.register(object, temporaryNumber: number)
        } else {
            registered[object.objectID] = object
        }
        // An object coming back (its saved deletion, or its unsaved insert, undone back past) is written whole, as a
        // new row: what was recorded of it as a changed object goes (its relationships, restored first by the same
        // undo, recorded its original state; saved as an update too, its row being gone, the save failed as a
        // conflict). A new object (the usual case) has nothing to clear.
        if object.flags.contains(.gone) {
            if object.flags.contains(.changed) {
                object.flags.remove(.changed)
                updated.remove(object)
                event.updated.remove(object)
            }
            originals[ObjectIdentifier(object)] = nil
            object.flags.remove(.gone)
            goneObjects[ObjectIdentifier(object)] = nil
        }
        object.flags.insert(.inserted)
        object.managedObjectContext = self
        addInserted(object)
        event.inserted.appendNew(object)
        if recordsUndo { registerUndo(self) { context in context.undoInsert(object) } }
    }

    /// Undoes an insert: an unsaved object leaves the context; a saved one is deleted.
    private func undoInsert(_ object: ManagedObject) {
        guard object.isInserted else {
            do throws(ObjectGraphError) {
                try delete(object, propagate: false)
            } catch {
                recordFailure(error)
            }
            return
        }
        registered[object.objectID] = nil
        removeInserted(object)
        event.inserted.remove(object)
        object.flags.remove(.inserted)
        markGone(object)
        if recordsUndo { registerUndo(self) { context in context.register(inserted: object) } }
    }

    /// Deletes an object. Delete rules run at the end of the event (``processPendingChanges()``); the store forgets
    /// the object at save. Undoable.
    ///
    /// If the object is a fault that cannot be read (its row is gone, its store fails), it is not deleted and the
    /// failure is kept: the next save throws it.
    /// - Parameter object: an object of this context.
    public func delete(_ object: ManagedObject) {
        do {
            try delete(object, propagate: true)
        } catch {
            recordFailure(error)
        }
    }

    func delete(_ object: ManagedObject, propagate: Bool) throws(ObjectGraphError) {
        guard !object.isDeleted else { return }
        guard object.linkedContext === self else {
            throw ObjectGraphError(.wrongContext, "\(object) belongs to another context", objectID: object.objectID)
        }
        try object.fireFault()
        // No originals are recorded: a deletion changes no value of the object (one changed later records them then),
        // and its expected version is its stored one.
        validatedGeneration = nil
        object.flags.insert(.deleted)
        if registered[object.objectID] == nil { registered[object.objectID] = object }
        addDeleted(object)
        updated.remove(object)
        event.deleted.insert(object)
        if propagate { pendingDeletes.append(object) }
        if recordsUndo { registerUndo(self) { context in context.undelete(object) } }
    }

    private func undelete(_ object: ManagedObject) {
        guard object.isDeleted else {
            // The deletion was saved: the object comes back as a new insert with its old key.
            register(inserted: object)
            return
        }
        object.flags.remove(.deleted)
        // The deletion took it off the list of changed objects: it goes back on when its values differ from the
        // stored ones (left flagged as changed, it was on no list, and the next save wrote none of its changes).
        object.flags.remove(.changed)
        removeDeleted(object)
        event.deleted.remove(object)
        pendingDeletes.removeAll { $0 === object }
        didChange(object)
        registerUndo(self) { context in
            do throws(ObjectGraphError) {
                try context.delete(object, propagate: false)
            } catch {
                context.recordFailure(error)
            }
        }
    }

    /// Chooses the store a new object is saved to (when several stores hold its entity).
    /// - Parameters:
    ///   - object: an inserted object.
    ///   - store: one of the coordinator's stores whose configuration holds the object's entity.
    public func assign(_ object: ManagedObject, to store: any PersistentStore) {
        assignedStores[ObjectIdentifier(object)] = store.identifier
    }

    // MARK: - Change tracking (called by objects)

    /// Starts recording an object's original state before its first unsaved change (each property is recorded
    /// before its own first change: ``willChange(_:attribute:storage:)``, ``willChange(_:relationship:)``).
    func willChange(_ object: ManagedObject) {
        // Whatever was validated is stale now.
        validatedGeneration = nil
        guard !object.isInserted, object.storage != nil, !originals.contains(ObjectIdentifier(object)) else {
            return
        }
        originals[ObjectIdentifier(object)] = originalState(of: object)
    }

    /// Records an object's state before a change to attribute `index`: its value now, unless the attribute changed
    /// before (its first value is the original one).
    @inline(__always)
    func willChange(_ object: ManagedObject, attribute index: Int, storage: AttributeStorage) {
        validatedGeneration = nil
        // (An inserted object has no original state: none is ever recorded for one, so none is looked up. Tested
        // here, inlined: setting a new object's values calls nothing more.)
        if object.isInserted { return }
        recordOriginal(object, attribute: index, storage: storage)
    }

    /// ``willChange(_:attribute:storage:)`` of an object that is not inserted.
    private func recordOriginal(_ object: ManagedObject, attribute index: Int, storage: AttributeStorage) {
        // As `willChange(_:)` and then `recordAttribute(_:of:storage:)`, with one lookup of the object's state: the
        // first change of a read object (its usual change) makes the state with the attribute recorded and adds it.
        if recordAttribute(index, of: object, storage: storage) { return }
        var state = originalState(of: object)
        state.record(object.rawValue(at: index) ?? storage.value(index, layout: object.entity), attribute: index)
        originals.add(ObjectIdentifier(object), state)
    }

    /// Records attribute `index` of an object whose original state is being recorded (changed since it was read)
    /// before a change, unless it is recorded already; an object with no recorded state is left so (nothing of it
    /// changed yet: what it holds now is its original state).
    /// - Returns: whether the object has a recorded state (and so the attribute is recorded).
    @discardableResult
    func recordAttribute(_ index: Int, of object: ManagedObject, storage: AttributeStorage) -> Bool {
        let layout = object.entity
        return originals.modify(ObjectIdentifier(object)) { original in
            original.record(object.rawValue(at: index) ?? storage.value(index, layout: layout), attribute: index)
        } != nil
    }

    /// Records an object's state before a change to relationship `index`, which must be loaded: the relationship's
    /// destinations are recorded if the first change of the object left them out.
    func willChange(_ object: ManagedObject, relationship index: Int) {
        willChange(object)
        if object.isInserted { return }
        let key = ObjectIdentifier(object)
        // An object without recorded originals (an inserted one) has nothing to record: its destinations are not
        // listed (that costs as much as the relationship is long, on every change).
        let unrecorded = originals.modify(key) { $0.relationship(index) == nil } ?? false
        guard unrecorded, let ids = object.loadedRelationshipIDs(index) else { return }
        let count = object.entity.relationships.count
        _ = originals.modify(key) { $0.record(ids, relationship: index, of: count) }
    }

    /// The original state of an object about to change: its version, and nothing else yet — each property is
    /// recorded before its own first change; one not recorded is unchanged.
    func originalState(of object: ManagedObject) -> OriginalState {
        OriginalState(version: object.storeVersion)
    }

    /// Updates the object's place in the change sets after a change.
    func didChange(_ object: ManagedObject) {
        if object.isInserted || object.isDeleted { return }
        guard let original = originals[ObjectIdentifier(object)] else { return }
        if differs(object, from: original) {
            markChanged(object)
        } else if object.flags.contains(.changed) {
            object.flags.remove(.changed)
            updated.remove(object)
            originals[ObjectIdentifier(object)] = nil
            event.updated.insert(object)
        }
    }

    /// Records a change of attribute `index` of `object`: when its value now differs from the original one in that
    /// slot, the object is changed without comparing its other properties; else (set back to the original, or a raw
    /// value stands for one) every property is compared.
    @inline(__always)
    func didChange(_ object: ManagedObject, attribute index: Int) {
        if object.isInserted || object.isDeleted { return }
        changed(object, attribute: index)
    }

    /// ``didChange(_:attribute:)`` of an object that is neither inserted nor deleted.
    private func changed(_ object: ManagedObject, attribute index: Int) {
        if !object.flags.contains(.hasRawValues), let storage = object.storage,
            originals.modify(
                ObjectIdentifier(object),
                { original in
                    guard let then = original.attribute(index) else { return false }
                    return !storage.holds(index, then, layout: object.entity)
                }) == true
        {
            markChanged(object)
            return
        }
        didChange(object)
    }

    /// Puts an object found to differ from its original state among the updated ones, and in this event's.
    private func markChanged(_ object: ManagedObject) {
        // (An object no longer in the context has no row to update.)
        if object.flags.contains(.gone) { return }
        if !object.flags.contains(.changed) {
            object.flags.insert(.changed)
            updated.insert(object)
        }
        event.updated.insert(object)
    }

    /// Whether any property of the object differs from `original` (it stops at the first).
    func differs(_ object: ManagedObject, from original: OriginalState) -> Bool {
        !Self.forEachChange(object, from: original) { _ in false }
    }

    /// The names of the properties whose values differ from `original`.
    func changedKeys(_ object: ManagedObject, from original: OriginalState) -> [String] {
        var keys: [String] = []
        Self.forEachChange(object, from: original) { property in
            switch property {
            case .attribute(let i): keys.append(object.entity.attributes[i].name)
            case .relationship(let i): keys.append(object.entity.relationships[i].name)
            }
            return true
        }
        return keys
    }

    /// A property of an object's entity, by its slot.
    enum PropertySlot {
        /// The attribute at this slot.
        case attribute(Int)
        /// The relationship at this slot.
        case relationship(Int)
    }

    /// Calls `body` with each property of the object whose value differs from `original`, attributes first, each in
    /// slot order, while `body` returns `true`: whether it went through them all. An object whose values are not
    /// loaded (a fault) holds no change.
    @discardableResult
    static func forEachChange(
        _ object: ManagedObject, from original: OriginalState, _ body: (PropertySlot) -> Bool
    ) -> Bool {
        let layout = object.entity
        guard let storage = object.storage else { return true }
        let hasRawValues = object.flags.contains(.hasRawValues)
        // Only recorded attributes can differ (in slot order). Compared in the slot (no value made) unless a raw value
        // stands for it.
        let wentThrough = original.forEachAttribute { (i, then) in
            let same =
                if hasRawValues, let raw = object.rawValue(at: i) {
                    raw == then
                } else {
                    storage.holds(i, then, layout: layout)
                }
            return same || body(.attribute(i))
        }
        if !wentThrough { return false }
        for i in layout.relationships.indices {
            // A relationship never loaded since the first change is unchanged.
            guard let then = original.relationship(i), let count = object.loadedRelationshipCount(i) else { continue }
            // Sizes first: a large to-many changed one element at a time must not be compared whole on every change.
            var changed = count != then.count
            if !changed, let now = object.loadedRelationshipIDs(i) {
                // In the same order (always so for a to-one) they are equal without hashing; an unordered to-many
                // in another order is compared as sets.
                changed = now != then && (layout.relationships[i].isOrdered || now.count < 2 || Set(now) != Set(then))
            }
            if changed, !body(.relationship(i)) { return false }
        }
        return true
    }

    /// Whether changes are recorded for undo now (there is an undo manager and the context is not merging). Callers
    /// ask before they make an undo action, so that a context without undo makes none (one allocation per change).
    var recordsUndo: Bool { undoManager != nil && !isMerging }

    /// Registers an undo action for a change to `target`.
    func registerUndo<Target: AnyObject>(_ target: Target, _ handler: @escaping (Target) -> Void) {
        guard recordsUndo, let undoManager else { return }
        undoManager.registerUndo(withTarget: target, handler: handler)
    }

    // MARK: - Events

    /// Ends the current event: runs delete rules for objects deleted since the last call, closes the undo group of
    /// the event, and posts one objects-did-change notification for everything that changed.
    ///
    /// A delete rule that cannot be applied (a destination that cannot be read from its store) is kept as a
    /// pending failure: the next save throws it.
    public func processPendingChanges() {
        var index = 0
        var detachments = Detachments()
        while index < pendingDeletes.count {
            let object = pendingDeletes[index]
            index += 1
            object.prepareForDeletion()
            do {
                try applyDeleteRules(object, gathering: &detachments)
            } catch {
                recordFailure(error)
            }
        }
        for group in detachments.groups {
            do {
                try group.destination.rawRemoveFromMany(group.relationship, all: group.objects)
            } catch {
                recordFailure(error)
            }
        }
        pendingDeletes.removeAll()
        undoManager?.endEvent()
        postObjectsDidChange()
    }

    /// The removals from unordered to-many relationships that the Nullify rules of one event's deletions make,
    /// gathered by destination and relationship so that each relationship changes once: deleting the many members of
    /// one group recorded a change of the group's members, compared the group with its original and made an undo
    /// action per member.
    struct Detachments {
        /// One destination's relationship and the objects it loses, in the order they were deleted.
        struct Group {
            let destination: ManagedObject
            let relationship: Int
            var objects: [ManagedObject]
        }
        private(set) var groups: [Group] = []
        /// Where each destination's relationship is in `groups`.
        private var places: [Place: Int] = [:]

        private struct Place: Hashable {
            let destination: ObjectIdentifier
            let relationship: Int
        }

        /// Notes that `object` leaves relationship `relationship` of `destination`.
        mutating func add(_ object: ManagedObject, leaving relationship: Int, of destination: ManagedObject) {
            // Deletions come in runs from one destination (the members of one group): the last group is tried first.
            if let last = groups.indices.last, groups[last].destination === destination,
                groups[last].relationship == relationship
            {
                groups[last].objects.append(object)
                return
            }
            let place = Place(destination: ObjectIdentifier(destination), relationship: relationship)
            if let i = places[place] {
                groups[i].objects.append(object)
            } else {
                places[place] = groups.count
                groups.append(Group(destination: destination, relationship: relationship, objects: [object]))
            }
        }
    }

    private func applyDeleteRules(_ object: ManagedObject, gathering detachments: inout Detachments)
        throws(ObjectGraphError)
    {
        // Only the relationships a rule acts on are read (Deny is checked when saving, No Action does nothing). A
        // to-one's destination is acted on as it is (no array made for it, per deleted object).
        for (i, rule, isToMany) in object.entity.deletePropagation {
            switch rule {
            case .nullify:
                if isToMany {
                    for destination in try object.toManyObjects(at: i) {
                        try nullify(object, relationship: i, in: destination, gathering: &detachments)
                    }
                } else if let destination = try object.toOneObject(at: i) {
                    try nullify(object, relationship: i, in: destination, gathering: &detachments)
                }
            case .cascade:
                if isToMany {
                    for destination in try object.toManyObjects(at: i) where !destination.isDeleted {
                        try delete(destination, propagate: true)
                    }
                } else if let destination = try object.toOneObject(at: i), !destination.isDeleted {
                    try delete(destination, propagate: true)
                }
            case .deny, .noAction:
                break
            }
        }
    }

    /// Takes the deleted `object` out of the inverse of its relationship `index` in `destination`.
    private func nullify(
        _ object: ManagedObject, relationship index: Int, in destination: ManagedObject,
        gathering detachments: inout Detachments
    ) throws(ObjectGraphError) {
        guard let inverse = object.inverseIndex(of: index, in: destination) else { return }
        try destination.fireFault()
        // An unordered to-many loses its deleted members together, once the event's rules have run (an ordered one
        // now: each undo puts its object back where it was).
        let layout = destination.entity
        if layout.relationshipShapes[inverse].isToMany, !layout.relationships[inverse].isOrdered {
            detachments.add(object, leaving: inverse, of: destination)
        } else {
            try destination.detach(object, from: inverse)
        }
    }

    // MARK: - Undo

    /// Undoes the last event's changes (ending the current event first).
    public func undo() {
        processPendingChanges()
        undoManager?.undo()
        processPendingChanges()
    }

    /// Redoes the last undone event.
    public func redo() {
        processPendingChanges()
        undoManager?.redo()
        processPendingChanges()
    }

    // MARK: - Rollback, reset, refresh

    /// Discards every unsaved change: inserted objects leave, deleted ones come back, changed ones return to their
    /// stored values. Clears undo.
    public func rollback() {
        undoManager?.removeAllActions()
        pendingDeletes.removeAll()
        pendingFailures.removeAll()
        for object in inserted.objects {
            registered[object.objectID] = nil
            object.tearDown()
        }
        for object in deleted.objects + updated.objects where !object.isInserted {
            object.flags.subtract([.deleted, .changed])
            object.turnIntoFault()
            event.refreshed.insert(object)
        }
        for object in registered.values where object.flags.contains(.tornDown) { registered[object.objectID] = nil }
        clearChangeSets()
        originals.removeAll()
        event.inserted.removeAll()
        event.updated.removeAll()
        event.deleted.removeAll()
        postObjectsDidChange()
    }

    /// Forgets every object (they become unusable) and clears undo.
    public func reset() {
        undoManager?.removeAllActions()
        pendingFailures.removeAll()
        rawValues.removeAll()
        for object in registered.values { object.tearDown() }
        for object in inserted.objects { object.tearDown() }
        tearDownGoneObjects()
        registered.removeAll()
        clearChangeSets()
        originals.removeAll()
        pendingDeletes.removeAll()
        assignedStores.removeAll()
        faultBatches.removeAll()
        event = EventChanges()
        bumpGeneration()
    }

    /// Re-reads an object from its store. Without `mergeChanges` its unsaved changes are discarded and it becomes a
    /// fault; with it, stored values replace the properties this context did not change.
    /// - Parameters:
    ///   - object: an object of this context.
    ///   - mergeChanges: keep this context's changes.
    /// - Throws: ``ContextError`` when the object belongs to another context, or when merging cannot read the stored
    ///   object (the object is then left as it was).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws(ContextError) {
        guard object.linkedContext === self else {
            throw .object(
                ObjectGraphError(.wrongContext, "\(object) belongs to another context", objectID: object.objectID))
        }
        guard !object.isInserted else { return }
        if !mergeChanges || !object.hasChanges {
            object.flags.subtract([.changed])
            updated.remove(object)
            originals[ObjectIdentifier(object)] = nil
            object.turnIntoFault()
            event.refreshed.insert(object)
            return
        }
        let stored: ObjectSnapshot?
        do {
            stored = try persistentStoreCoordinator.snapshot(for: object.objectID)
        } catch {
            throw .store(error)
        }
        guard let stored else {
            throw .object(
                ObjectGraphError(
                    .objectNotFound, "cannot refresh \(object.objectID): it is no longer in its store",
                    objectID: object.objectID))
        }
        do {
            try merge(object, with: stored, keepLocalChanges: true)
        } catch {
            throw .object(error)
        }
        event.refreshed.insert(object)
    }

    /// Brings stored values into a changed object: properties this context changed keep their values when
    /// `keepLocalChanges`, the others take the stored ones; the stored state becomes the object's new original.
    /// - Throws: ``ObjectGraphError`` when a stored value does not fit its attribute (the object is left as it was).
    func merge(_ object: ManagedObject, with stored: ObjectSnapshot, keepLocalChanges: Bool) throws(ObjectGraphError) {
        let layout = object.entity
        // The stored state, converted and checked before anything changes.
        let reference = ManagedObject(layout: layout, objectID: object.objectID)
        try reference.fill(from: stored)
        let referenceStorage = try reference.loadedStorage()
        let storage = try object.writableStorage()
        // No recorded state: nothing changed here.
        let original = originals[ObjectIdentifier(object)]
        let saved = (isMerging, undoManager)
        isMerging = true
        defer { isMerging = saved.0 }
        for (i, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            let changedHere =
                if let then = original?.attribute(i) {
                    (object.rawValue(at: i) ?? storage.value(i, layout: layout)) != then
                } else {
                    false
                }
            if !(keepLocalChanges && changedHere) {
                storage.set(i, referenceStorage.value(i, layout: layout), layout: layout)
            }
        }
        for (i, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            let changedHere: Bool
            if let then = original?.relationship(i), let now = object.loadedRelationshipIDs(i) {
                changedHere = now != then
            } else {
                changedHere = false
            }
            if !(keepLocalChanges && changedHere) {
                object.relationshipSlots[i] =
                    relationship.isToMany
                    ? .unresolvedToMany(stored[toMany: relationship.name] ?? [])
                    : .unresolvedToOne(stored[toOne: relationship.name] ?? nil)
            }
        }
        object.storeVersion = stored.version
        // The stored values are the original ones: recorded where the object now holds another.
        originals[ObjectIdentifier(object)] = OriginalState(
            attributes: layout.attributes.indices.map { i in
                let stored = referenceStorage.value(i, layout: layout)
                return (object.rawValue(at: i) ?? storage.value(i, layout: layout)) != stored ? stored : nil
            },
            relationships: layout.relationships.indices.map { reference.loadedRelationshipIDs($0) },
            version: stored.version)
        didChange(object)
    }
}

/// The IDs of one batch of a fetch with a `fetchBatchSize`.
final class FaultBatch {
    let ids: [ManagedObjectID]
    init(_ ids: [ManagedObjectID]) { self.ids = ids }
}
