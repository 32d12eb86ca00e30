import Foundation
import ModelFiles
import ObjectGraph

/// The readable summary printed by `docutil schema` (the default text format).
enum SchemaText {
    static func render(_ loaded: LoadedModel) -> String {
        let model = loaded.model
        var out = ""
        let identifiers = model.versionIdentifiers.filter { !$0.isEmpty }
        out += "Model: \(loaded.path) (\(loaded.format.rawValue)"
        if let version = loaded.versionName { out += ", version \(version)" }
        out += ")\n"
        out += "\(model.entities.count) entities"
        if !identifiers.isEmpty { out += ", version identifiers: \(identifiers.joined(separator: ", "))" }
        out += "\n"
        let hashes = model.entityVersionHashes
        for entity in model.entities.sorted(by: { ManagedObjectModel.codePointOrder($0.name, $1.name) }) {
            out += "\nentity \(entity.name)"
            if let parent = entity.parentName { out += " : \(parent)" }
            if entity.isAbstract { out += " (abstract)" }
            if let className = entity.className, className != entity.name { out += "  class \(className)" }
            out += "\n"
            if let hash = hashes[entity.name] { out += "  version hash \(hash.base64EncodedString())\n" }
            let width = (entity.attributes.map(\.name.count) + entity.relationships.map(\.name.count)).max() ?? 0
            for a in entity.attributes.sorted(by: { $0.name < $1.name }) {
                var flags: [String] = [a.isOptional ? "optional" : "required"]
                if a.isTransient { flags.append("transient") }
                if a.isIndexed { flags.append("indexed") }
                if !a.defaultValue.isNull { flags.append("default \(a.defaultValue.literalText)") }
                if let t = a.valueTransformerName { flags.append("transformer \(t)") }
                if let d = a.derivationExpression { flags.append("derived \(d)") }
                out += "  \(a.name.padding(toLength: width, withPad: " ", startingAt: 0))  "
                out +=
                    "\(a.type.xcodeName.padding(toLength: 13, withPad: " ", startingAt: 0)) \(flags.joined(separator: ", "))\n"
            }
            for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
                let kind = r.isToMany ? (r.isOrdered ? "to-many ordered" : "to-many") : "to-one"
                var text =
                    "  \(r.name.padding(toLength: width, withPad: " ", startingAt: 0))  -> \(r.destinationEntityName)"
                text += " (\(kind), \(r.deleteRule.xcodeName), \(r.isOptional ? "optional" : "required")"
                if r.minCount != 0 || (r.isToMany && r.maxCount != 0) {
                    text += ", count \(r.minCount)...\(r.maxCount == 0 ? "*" : String(r.maxCount))"
                }
                text += r.inverseName.map { ", inverse \($0))" } ?? ", no inverse)"
                out += text + "\n"
            }
            for f in entity.fetchedProperties {
                out += "  \(f.name)  fetched \(f.entityName) where \(f.predicate ?? "TRUEPREDICATE")\n"
            }
            for c in entity.uniquenessConstraints { out += "  unique (\(c.joined(separator: ", ")))\n" }
        }
        if !model.fetchRequestTemplates.isEmpty {
            out += "\nfetch requests\n"
            for t in model.fetchRequestTemplates {
                out += "  \(t.name): \(t.entityName) where \(t.predicate ?? "TRUEPREDICATE")\n"
            }
        }
        if !model.configurations.isEmpty {
            out += "\nconfigurations\n"
            for c in model.configurations { out += "  \(c.name): \(c.entityNames.joined(separator: ", "))\n" }
        }
        for warning in model.warnings { out += "\nwarning: \(warning)" }
        if !model.warnings.isEmpty { out += "\n" }
        return out
    }
}
