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

        /// Kinds sort in the order they are listed, so reports are stable.
        /// - Parameters:
        ///   - a: one kind.
        ///   - b: the other.
        /// - Returns: whether `a` is listed first.
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
    /// - Parameters:
    ///   - object: the object's URI, or the file.
    ///   - kind: what kind of problem it is.
    ///   - key: the property, if one.
    ///   - detail: what is wrong.
    public init(object: String, kind: Kind, key: String? = nil, detail: String) {
        self.object = object
        self.kind = kind
        self.key = key
        self.detail = detail
    }

    /// Creates a problem of one object.
    /// - Parameters:
    ///   - id: the object.
    ///   - kind: what kind of problem it is.
    ///   - key: the property, if one.
    ///   - detail: what is wrong.
    public init(_ id: ManagedObjectID, _ kind: Kind, key: String? = nil, _ detail: String) {
        self.init(object: id.uriString, kind: kind, key: key, detail: detail)
    }

    /// Problems sort by object, then kind, then key and detail: a stable order for output.
    /// - Parameters:
    ///   - a: one problem.
    ///   - b: the other.
    /// - Returns: whether `a` is listed first.
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

extension PersistentStoreCoordinator {
    /// Every object an atomic store holds, as the coordinator loaded it (for checking a whole graph).
    /// - Parameter store: an atomic store of this coordinator.
    /// - Returns: its objects' snapshots.
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
