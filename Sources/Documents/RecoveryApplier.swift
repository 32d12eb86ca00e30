import Foundation
import ObjectGraph

/// Lays recovered changes (an autosave) over a document's context as unsaved changes, without undo: new objects
/// are inserted, changed properties set, deleted objects deleted (their delete rules already ran in the session
/// that made the changes, and what they did is among the changes).
struct RecoveryApplier {
    let context: ManagedObjectContext
    let sidecar: String
    /// How to tell an object changed on disk since the autosave.
    let changedOnDisk: ChangedOnDisk

    enum ChangedOnDisk {
        /// By its version (a store that keeps versions).
        case byVersion
        /// Nothing did: the file is as the session last read or saved it.
        case unchanged
        /// The file changed, and its store keeps no versions: any object may have.
        case fileChanged
    }

    func apply(_ changes: UnsavedChanges) throws(DocumentError) -> PersistentDocument.Recovery {
        var recovery = PersistentDocument.Recovery()
        let undo = context.undoManager
        undo?.disableUndoRegistration()
        defer { undo?.enableUndoRegistration() }
        var created: [ManagedObjectID: ManagedObject] = [:]
        do throws(ObjectGraphError) {
            for snapshot in changes.inserted {
                created[snapshot.objectID] = try context.insertNewObject(forEntityName: snapshot.objectID.entityName)
            }
            recovery.inserted = created.count
            func resolve(_ id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject? {
                if let object = created[id] { return object }
                guard let object = try existing(id) else {
                    recovery.warnings.append("\(id) is no longer in the document; the link to it is left out")
                    return nil
                }
                return object
            }
            func set(_ key: String, of object: ManagedObject, from snapshot: ObjectSnapshot) throws(ObjectGraphError) {
                let layout = object.entity
                if let i = layout.attributeSlot(named: key) {
                    guard !layout.attributes[i].isTransient else { return }
                    try object.setAttributeValue(snapshot[attribute: key], forKey: key)
                } else if let i = layout.relationshipSlot(named: key) {
                    guard !layout.relationships[i].isTransient else { return }
                    if layout.relationships[i].isToMany {
                        var destinations: [ManagedObject] = []
                        for id in snapshot.toMany[key] ?? [] {
                            if let destination = try resolve(id) { destinations.append(destination) }
                        }
                        try object.setObjects(destinations, forKey: key)
                    } else {
                        let destination = try (snapshot.toOne[key] ?? nil).map { (id) throws(ObjectGraphError) in
                            try resolve(id)
                        }
                        try object.setObject(destination ?? nil, forKey: key)
                    }
                } else {
                    throw ObjectGraphError(
                        .unknownKey, "\(sidecar): \(layout.name) has no property '\(key)'", objectID: object.objectID)
                }
            }
            for snapshot in changes.inserted {
                guard let object = created[snapshot.objectID] else { continue }
                for attribute in object.entity.attributes where !attribute.isTransient {
                    try set(attribute.name, of: object, from: snapshot)
                }
            }
            for update in changes.updated {
                guard let object = try existing(update.snapshot.objectID) else {
                    recovery.warnings.append(
                        "\(update.snapshot.objectID) was changed in the autosave but is no longer in the document; its changes are left out"
                    )
                    continue
                }
                let keys = update.changedKeys.sorted().joined(separator: ", ")
                switch changedOnDisk {
                case .byVersion where object.storedVersion != update.expectedVersion:
                    recovery.warnings.append(
                        "\(object.objectID) changed on disk since the autosave; the autosaved values of \(keys) are laid over it"
                    )
                case .fileChanged:
                    recovery.warnings.append(
                        "\(object.objectID) may have changed on disk: the file changed since the autosave (its store keeps no versions to tell which objects did); the autosaved values of \(keys) are laid over it"
                    )
                case .byVersion, .unchanged: break
                }
                for key in update.changedKeys.sorted() { try set(key, of: object, from: update.snapshot) }
                recovery.updated += 1
            }
            for snapshot in changes.inserted {
                guard let object = created[snapshot.objectID] else { continue }
                for relationship in object.entity.relationships where !relationship.isTransient {
                    if snapshot.toOne[relationship.name] != nil || snapshot.toMany[relationship.name] != nil {
                        try set(relationship.name, of: object, from: snapshot)
                    }
                }
            }
            for deletion in changes.deleted {
                guard let object = try existing(deletion.objectID) else { continue }
                try context.delete(object, applyingDeleteRules: false)
                recovery.deleted += 1
            }
        } catch {
            throw DocumentError(.badData, "\(sidecar): cannot recover: \(error.description)")
        }
        context.processPendingChanges()
        return recovery
    }

    /// The object with this ID, or `nil` when the document no longer has it; any other failure (a store that cannot
    /// be read) is thrown, never taken for "gone".
    private func existing(_ id: ManagedObjectID) throws(ObjectGraphError) -> ManagedObject? {
        do {
            return try context.existingObject(with: id)
        } catch {
            switch error {
            case .object(let failure) where failure.code == .objectNotFound: return nil
            case .object(let failure): throw failure
            default: throw ObjectGraphError(.faultNotFulfilled, error.description, objectID: id)
            }
        }
    }
}
