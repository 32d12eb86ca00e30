import Foundation

/// Checks of a whole graph of snapshots (what an atomic store holds): references to objects that do not exist,
/// relationships whose inverse does not point back, and uniqueness constraints.
public enum SnapshotCheck {
    /// Every problem of those kinds in `snapshots`, in a stable order.
    /// - Parameters:
    ///   - snapshots: every object of a store.
    ///   - model: the model they belong to.
    /// - Returns: dangling references, inverse mismatches and uniqueness violations.
    public static func problems(in snapshots: [ObjectSnapshot], model: ManagedObjectModel) -> [StoreProblem] {
        var byID: [ManagedObjectID: Int] = [:]
        byID.reserveCapacity(snapshots.count)
        for (i, snapshot) in snapshots.enumerated() { byID[snapshot.objectID] = i }
        var problems: [StoreProblem] = []
        func destinations(_ snapshot: ObjectSnapshot, _ name: String) -> [ManagedObjectID] {
            if let many = snapshot[toMany: name] { return many }
            if let one = snapshot[toOne: name], let id = one { return [id] }
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
                        if case let value = snapshot[attribute: name], !value.isNull {
                            key.append(value.literalText)
                        } else if let one = snapshot[toOne: name], let destination = one {
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
