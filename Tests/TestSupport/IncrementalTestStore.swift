import Foundation
public import ObjectGraph

/// A minimal incremental store for the tests: rows in a dictionary, fetches evaluated by the store itself, saves in
/// one step. It exercises the coordinator's incremental path (row cache, versions, key allocation) until the SQLite
/// store joins the conformance suite.
public final class IncrementalTestStore: IncrementalStore, @unchecked Sendable {
    public static let typeName = "TestIncremental"
    public let description: StoreDescription
    public let identifier = UUID().uuidString
    public var metadata: [String: PropertyList] = [:]
    private var rows: [ManagedObjectID: ObjectSnapshot] = [:]
    private var keys: [String: Int64] = [:]
    /// How many snapshots the coordinator asked for (to see the row cache at work).
    public private(set) var snapshotRequests = 0

    public static func register() {
        StoreType.register(
            StoreType(name: typeName) { description throws(StoreError) in IncrementalTestStore(description: description)
            })
    }

    public init(description: StoreDescription) {
        self.description = description
    }

    public func load(model: ManagedObjectModel) throws(StoreError) {
        metadata = ["NSStoreType": .string(Self.typeName), "NSStoreUUID": .string(identifier)]
    }

    public func objectIDs(for request: FetchRequest, entityNames: [String]) throws(StoreError) -> [ManagedObjectID] {
        let candidates = rows.values.filter { entityNames.contains($0.objectID.entityName) }
            .sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        let lookup: (ManagedObjectID) -> ObjectSnapshot? = { [rows] in rows[$0] }
        var unbounded = request
        unbounded.fetchLimit = 0
        unbounded.fetchOffset = 0
        let views = candidates.map { PredicateValue.object(RowView(snapshot: $0, lookup: lookup)) }
        guard case .objects(let matched) = try? InMemoryFetch.execute(unbounded, over: views) else {
            throw StoreError(.unsupported, "cannot evaluate the fetch")
        }
        return matched.compactMap {
            if case .object(let view as RowView) = $0 { return view.snapshot.objectID }; return nil
        }
    }

    public func snapshots(for ids: [ManagedObjectID]) throws(StoreError) -> [ObjectSnapshot] {
        snapshotRequests += ids.count
        return ids.compactMap { id in
            guard var row = rows[id] else { return nil }
            row.toManyFaults = Set(row.toMany.keys)
            row.toMany = [:]
            return row
        }
    }

    public func destinations(of id: ManagedObjectID, relationship: String) throws(StoreError) -> [ManagedObjectID] {
        rows[id]?.toMany[relationship] ?? []
    }

    public func version(of id: ManagedObjectID) throws(StoreError) -> Int64? { rows[id]?.version }

    public func allocatePrimaryKeys(forRoot entityName: String, count: Int) throws(StoreError) -> [Int64] {
        let start = (keys[entityName] ?? 0) + 1
        keys[entityName] = start + Int64(count) - 1
        return Array(start..<(start + Int64(count)))
    }

    public func prepareSave(_ request: IncrementalSaveRequest) throws(StoreError) -> any StoreTransaction {
        var conflicts: [SaveConflict] = []
        for update in request.updated where rows[update.snapshot.objectID]?.version != update.expectedVersion {
            conflicts.append(
                SaveConflict(
                    objectID: update.snapshot.objectID, expectedVersion: update.expectedVersion,
                    storedSnapshot: rows[update.snapshot.objectID]))
        }
        for deletion in request.deleted {
            if let row = rows[deletion.objectID], row.version != deletion.expectedVersion {
                conflicts.append(
                    SaveConflict(
                        objectID: deletion.objectID, expectedVersion: deletion.expectedVersion, storedSnapshot: row))
            }
        }
        if !conflicts.isEmpty { throw StoreError(.conflict, "changed since read", conflicts: conflicts) }
        return Commit { [self] in
            for snapshot in request.inserted { rows[snapshot.objectID] = snapshot }
            for update in request.updated { rows[update.snapshot.objectID]?.apply(update) }
            for deletion in request.deleted { rows[deletion.objectID] = nil }
        }
    }

    struct Commit: StoreTransaction {
        let apply: () -> Void
        func commit() throws(StoreError) { apply() }
        func rollback() {}
    }

    /// Key-value access to rows, through relationships.
    final class RowView: KeyValueCoding {
        let snapshot: ObjectSnapshot
        let lookup: (ManagedObjectID) -> ObjectSnapshot?
        init(snapshot: ObjectSnapshot, lookup: @escaping (ManagedObjectID) -> ObjectSnapshot?) {
            self.snapshot = snapshot
            self.lookup = lookup
        }
        func predicateValue(forKey key: String) throws(ObjectPredicateError) -> PredicateValue {
            if let value = snapshot.attributes[key] { return PredicateValue(value) }
            if let id = snapshot.toOne[key] {
                return id.flatMap(lookup).map { .object(RowView(snapshot: $0, lookup: lookup)) } ?? .null
            }
            if let ids = snapshot.toMany[key] {
                return .collection(
                    ids.compactMap(lookup).map { .object(RowView(snapshot: $0, lookup: lookup)) }, ordered: true)
            }
            return .null
        }
    }
}
