import Foundation

/// A problem found in a stored document by checking it (`docutil check`): which object, what kind, and the detail.
public struct StoreProblem: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The kinds of problem a check reports.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Comparable {
        /// A to-one, a to-many or a join-table row names an object that does not exist.
        case danglingReference = "dangling-reference"
        /// A relationship whose model has an inverse, where the destination does not point back.
        case inverseMismatch = "inverse-mismatch"
        /// A row or element whose entity the model lacks (a `Z_ENT` value, an XML element type).
        case unknownEntity = "unknown-entity"
        /// A primary key above the store's recorded maximum, or one used twice.
        case primaryKey = "primary-key"
        /// A rule of the model not met (required, bounds, length, pattern, relationship counts).
        case validation
        /// Two objects with the same values for a uniqueness constraint.
        case uniqueness
        /// Store metadata that does not match the model, or is missing keys.
        case metadata
        /// The SQLite file itself is damaged (`PRAGMA integrity_check`).
        case sqlite
        /// An externally stored binary value whose file is missing.
        case externalData = "external-data"
        /// A stored value that does not fit its attribute, or a property the model lacks.
        case value

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// The object, as its URI (`x-coredata://UUID/Entity/pN`), or the store's file when the problem is not one
    /// object's.
    public var object: String
    /// What kind of problem.
    public var kind: Kind
    /// The property involved, when there is one.
    public var key: String?
    /// What was found.
    public var detail: String

    /// Creates a problem.
    public init(object: String, kind: Kind, key: String? = nil, detail: String) {
        self.object = object
        self.kind = kind
        self.key = key
        self.detail = detail
    }

    /// Creates a problem of one object.
    public init(_ id: ManagedObjectID, _ kind: Kind, key: String? = nil, _ detail: String) {
        self.init(object: id.uriString, kind: kind, key: key, detail: detail)
    }

    /// Problems sort by object, then kind, then key and detail: a stable order for output.
    public static func < (a: StoreProblem, b: StoreProblem) -> Bool {
        let (ao, bo) = (a.objectOrder, b.objectOrder)
        if ao != bo { return ao.prefix < bo.prefix || (ao.prefix == bo.prefix && ao.key < bo.key) }
        return (a.object, a.kind, a.key ?? "", a.detail) < (b.object, b.kind, b.key ?? "", b.detail)
    }

    /// An object URI split into what precedes its key and the key (`…/Person/p20` → `…/Person/`, 20), so that
    /// objects sort by number; anything else sorts as text, before keys.
    private var objectOrder: (prefix: String, key: Int64) {
        guard let range = object.range(of: "/p", options: .backwards),
            let key = Int64(object[range.upperBound...])
        else { return (object, -1) }
        return (String(object[..<range.lowerBound]) + "/", key)
    }

    /// `URI kind: detail`.
    public var description: String { "\(object) \(kind.rawValue): \(detail)" }
}

/// What a store's own check of its file found, and which kinds of problem it looked for (so the generic checks
/// need not look again).
public struct StoreCheckResult: Sendable {
    /// The problems found.
    public var problems: [StoreProblem]
    /// The kinds the store checked completely.
    public var coveredKinds: Set<StoreProblem.Kind>
    /// Problems found beyond the listing limit, by kind (counted, not listed).
    public var unlisted: [StoreProblem.Kind: Int] = [:]
    /// How many of each kind are listed.
    private var listed: [StoreProblem.Kind: Int] = [:]

    /// Creates a result.
    public init(problems: [StoreProblem] = [], coveredKinds: Set<StoreProblem.Kind> = []) {
        self.problems = problems
        self.coveredKinds = coveredKinds
    }

    /// Lists a problem, or only counts it when `limit` of its kind are listed already.
    public mutating func add(_ problem: StoreProblem, limit: Int) {
        let count = listed[problem.kind] ?? problems.lazy.filter { $0.kind == problem.kind }.count
        if count < limit {
            problems.append(problem)
            listed[problem.kind] = count + 1
        } else {
            listed[problem.kind] = count
            unlisted[problem.kind, default: 0] += 1
        }
    }
}

/// A store that can check its own file for what its reading does not notice or refuses to read (the SQLite store
/// runs SQL over its tables; the XML store reports what it skipped when opened with the option `collectProblems`).
public protocol CheckableStore: PersistentStore {
    /// Checks the file, reading in bounded memory.
    /// - Parameter limit: the most problems worth collecting of each kind (the rest are counted, not listed).
    /// - Throws: ``StoreError`` when the file cannot be read at all.
    func checkStructure(limit: Int) throws(StoreError) -> StoreCheckResult
}

/// Checks of a whole graph of snapshots (what an atomic store holds): references to objects that do not exist,
/// relationships whose inverse does not point back, and uniqueness constraints.
public enum SnapshotCheck {
    /// Every problem of those kinds in `snapshots`, in a stable order.
    public static func problems(in snapshots: [ObjectSnapshot], model: ManagedObjectModel) -> [StoreProblem] {
        var byID: [ManagedObjectID: Int] = [:]
        byID.reserveCapacity(snapshots.count)
        for (i, snapshot) in snapshots.enumerated() { byID[snapshot.objectID] = i }
        var problems: [StoreProblem] = []
        func destinations(_ snapshot: ObjectSnapshot, _ name: String) -> [ManagedObjectID] {
            if let many = snapshot.toMany[name] { return many }
            if let one = snapshot.toOne[name], let id = one { return [id] }
            return []
        }
        for snapshot in snapshots {
            let id = snapshot.objectID
            for relationship in model.allRelationships(of: id.entityName) where !relationship.isTransient {
                let inverse = model.inverse(of: relationship)
                for destination in destinations(snapshot, relationship.name) {
                    guard let index = byID[destination] else {
                        problems.append(
                            StoreProblem(
                                id, .danglingReference, key: relationship.name,
                                "\(relationship.name) names \(destination.uriString), which does not exist"))
                        continue
                    }
                    guard let inverse else { continue }
                    if !destinations(snapshots[index], inverse.name).contains(id) {
                        problems.append(
                            StoreProblem(
                                id, .inverseMismatch, key: relationship.name,
                                "\(relationship.name) names \(destination.uriString), whose \(inverse.name) does not name it back"
                            ))
                    }
                }
            }
        }
        problems += uniquenessProblems(in: snapshots, model: model)
        return problems.sorted()
    }

    /// Objects that share the values of a uniqueness constraint with an earlier one (a nil value never collides).
    static func uniquenessProblems(in snapshots: [ObjectSnapshot], model: ManagedObjectModel) -> [StoreProblem] {
        var problems: [StoreProblem] = []
        for entity in model.entities {
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                // The constraint covers the entity and its sub-entities, as Core Data checks it.
                let names = Set(model.entityAndDescendants(of: entity.name))
                var first: [[String]: ManagedObjectID] = [:]
                let members = snapshots.filter { names.contains($0.objectID.entityName) }.sorted {
                    ($0.objectID.entityName, $0.objectID.primaryKey) < ($1.objectID.entityName, $1.objectID.primaryKey)
                }
                for snapshot in members {
                    var key: [String] = []
                    for name in constraint {
                        if let value = snapshot.attributes[name], !value.isNull {
                            key.append(value.literalText)
                        } else if let one = snapshot.toOne[name], let destination = one {
                            key.append(destination.uriString)
                        } else {
                            key = []
                            break
                        }
                    }
                    guard !key.isEmpty else { continue }
                    if let earlier = first[key] {
                        problems.append(
                            StoreProblem(
                                snapshot.objectID, .uniqueness, key: constraint.joined(separator: ","),
                                "\(constraint.joined(separator: ", ")) = \(key.joined(separator: ", ")) is also the value of \(earlier.uriString)"
                            ))
                    } else {
                        first[key] = snapshot.objectID
                    }
                }
            }
        }
        return problems
    }
}

extension PersistentStoreCoordinator {
    /// Every object an atomic store holds, as the coordinator loaded it (for checking a whole graph).
    /// - Throws: ``StoreError`` `unsupported` for a store not added here or not atomic.
    public func storedSnapshots(of store: any PersistentStore) throws(StoreError) -> [ObjectSnapshot] {
        try state.withLock { (state) throws(StoreError) -> [ObjectSnapshot] in
            guard let entry = state.entries.first(where: { $0.store === store }), !(store is any IncrementalStore)
            else {
                throw StoreError(.unsupported, "only an atomic store added to this coordinator can be listed whole")
            }
            return try entry.allSnapshots(model: model)
        }
    }
}
