import Foundation
import ObjectGraph

/// A flat, comparable description of everything that defines a model's storage: entities, properties, types,
/// relationships, inverses, delete rules, counts, defaults and constraints. Differences show up line by line.
func structure(of model: ManagedObjectModel, defaults: Bool = true) -> [String] {
    var lines: [String] = []
    for entity in model.entities.sorted(by: { $0.name < $1.name }) {
        lines.append("entity \(entity.name) parent=\(entity.parentName ?? "-") abstract=\(entity.isAbstract)")
        for a in entity.attributes.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "  attribute \(entity.name).\(a.name) \(a.type.xcodeName) optional=\(a.isOptional) "
                    + "transient=\(a.isTransient)" + (defaults ? " default=\(a.defaultValue.debugText)" : ""))
        }
        for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "  relationship \(entity.name).\(r.name) -> \(r.destinationEntityName) inverse=\(r.inverseName ?? "-") "
                    + "toMany=\(r.isToMany) ordered=\(r.isOrdered) count=\(r.minCount)...\(r.maxCount) "
                    + "rule=\(r.deleteRule.xcodeName) optional=\(r.isOptional)")
        }
        for c in entity.uniquenessConstraints { lines.append("  unique \(entity.name) \(c)") }
    }
    return lines
}

/// Entity hashes as base64, for readable failures.
func base64(_ hashes: [String: Data]) -> [String: String] {
    hashes.mapValues { $0.base64EncodedString() }
}
