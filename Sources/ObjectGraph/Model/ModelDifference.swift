import Foundation

extension ManagedObjectModel {
    /// Everything that differs from this model to `other`: entities, attributes, relationships, fetched properties,
    /// fetch requests and configurations added, removed, renamed (an element whose renaming identifier names one
    /// that is gone) or changed, field by field (type, optionality, default, validation, delete rule, inverse,
    /// counts, renaming identifier, version hash…). In a stable order: by element name, then kind.
    /// - Parameter other: the model to compare with.
    /// - Returns: the changes; empty when the models are the same.
    public func differences(to other: ManagedObjectModel) -> [ModelChange] {
        var changes: [ModelChange] = []
        if versionIdentifiers.sorted() != other.versionIdentifiers.sorted() {
            changes.append(
                ModelChange(
                    .model, "",
                    .changed(
                        field: "versionIdentifiers", old: versionIdentifiers.sorted().joined(separator: ", "),
                        new: other.versionIdentifiers.sorted().joined(separator: ", "))))
        }
        let (hashes, otherHashes) = (entityVersionHashes, other.entityVersionHashes)
        ModelComparison.compare(
            entities, other.entities, name: \.name, renamingIdentifier: \.renamingIdentifier, element: .entity,
            into: &changes
        ) { a, b, name in
            var fields = ModelComparison.fields(a, hash: hashes[a.name]).diff(
                ModelComparison.fields(b, hash: otherHashes[b.name]), element: .entity, name: name)
            ModelComparison.compare(
                a.attributes, b.attributes, name: \.name, renamingIdentifier: \.renamingIdentifier,
                element: .attribute, prefix: name + ".", into: &fields
            ) { p, q, qualified in
                ModelComparison.fields(p).diff(ModelComparison.fields(q), element: .attribute, name: qualified)
            }
            ModelComparison.compare(
                a.relationships, b.relationships, name: \.name, renamingIdentifier: \.renamingIdentifier,
                element: .relationship, prefix: name + ".", into: &fields
            ) { p, q, qualified in
                ModelComparison.fields(p).diff(ModelComparison.fields(q), element: .relationship, name: qualified)
            }
            ModelComparison.compare(
                a.fetchedProperties, b.fetchedProperties, name: \.name, element: .fetchedProperty, prefix: name + ".",
                into: &fields
            ) { p, q, qualified in
                [("entity", p.entityName, q.entityName), ("predicate", p.predicate, q.predicate)].diff(
                    element: .fetchedProperty, name: qualified)
            }
            return fields
        }
        ModelComparison.compare(
            fetchRequestTemplates, other.fetchRequestTemplates, name: \.name, element: .fetchRequest, into: &changes
        ) { p, q, name in
            [
                ("entity", p.entityName, q.entityName), ("predicate", p.predicate, q.predicate),
                ("fetchLimit", p.fetchLimit.map(String.init), q.fetchLimit.map(String.init)),
            ].diff(element: .fetchRequest, name: name)
        }
        ModelComparison.compare(
            configurations, other.configurations, name: \.name, element: .configuration, into: &changes
        ) { p, q, name in
            [
                (
                    "entities", p.entityNames.sorted().joined(separator: ", "),
                    q.entityNames.sorted().joined(separator: ", ")
                )
            ].diff(element: .configuration, name: name)
        }
        return changes.sorted { ($0.name, $0.element) < ($1.name, $1.element) }
    }
}

/// A field's name and its value in each model.
typealias ModelField = (name: String, old: String?, new: String?)

extension Array where Element == ModelField {
    /// The fields whose values differ, as changes.
    func diff(element: ModelChange.Element, name: String) -> [ModelChange] {
        filter { $0.old != $0.new }.map {
            ModelChange(element, name, .changed(field: $0.name, old: $0.old, new: $0.new))
        }
    }
}

extension Array where Element == (String, String?) {
    /// Two field lists (same names, same order) paired.
    func diff(_ other: [(String, String?)], element: ModelChange.Element, name: String) -> [ModelChange] {
        zip(self, other).map { ($0.0, $0.1, $1.1) }.diff(element: element, name: name)
    }
}

/// How elements of two models are paired and which of their fields are compared.
enum ModelComparison {
    /// Pairs elements by name, then an added element whose renaming identifier names a removed one with it; reports
    /// what is only on one side and what `fields` says of each pair (given with the pair's name in the second
    /// model, `prefix` included).
    static func compare<T>(
        _ old: [T], _ new: [T], name: (T) -> String, renamingIdentifier: (T) -> String? = { _ in nil },
        element: ModelChange.Element, prefix: String = "", into changes: inout [ModelChange],
        fields: (T, T, String) -> [ModelChange]
    ) {
        var oldByName: [String: T] = [:]
        for item in old { oldByName[name(item)] = item }
        let newNames = Set(new.map(name))
        var removed = Set(oldByName.keys).subtracting(newNames)
        for item in new.sorted(by: { name($0) < name($1) }) {
            let itemName = name(item)
            if let same = oldByName[itemName] {
                changes += fields(same, item, prefix + itemName)
            } else if let from = renamingIdentifier(item), removed.contains(from), let renamed = oldByName[from] {
                removed.remove(from)
                changes.append(ModelChange(element, prefix + itemName, .renamed(from: prefix + from)))
                changes += fields(renamed, item, prefix + itemName)
            } else {
                changes.append(ModelChange(element, prefix + itemName, .added))
            }
        }
        for removedName in removed.sorted() { changes.append(ModelChange(element, prefix + removedName, .removed)) }
    }

    static func text(_ value: AttributeValue?) -> String? {
        guard let value, !value.isNull else { return nil }
        return value.literalText
    }

    static func text(_ flag: Bool) -> String { flag ? "YES" : "NO" }

    static func fields(_ e: EntityDescription, hash: Data?) -> [(String, String?)] {
        [
            ("className", e.className), ("parent", e.parentName), ("abstract", text(e.isAbstract)),
            ("renamingIdentifier", e.renamingIdentifier), ("versionHashModifier", e.versionHashModifier),
            ("versionHash", hash?.base64EncodedString()),
            (
                "uniquenessConstraints",
                e.uniquenessConstraints.map { $0.joined(separator: "+") }.joined(separator: ", ")
            ),
            ("compoundIndexes", e.compoundIndexes.map { $0.joined(separator: "+") }.joined(separator: ", ")),
        ]
    }

    static func fields(_ a: AttributeDescription) -> [(String, String?)] {
        [
            ("type", a.type.xcodeName), ("optional", text(a.isOptional)), ("transient", text(a.isTransient)),
            ("defaultValue", text(a.defaultValue)), ("indexed", text(a.isIndexed)),
            ("minValue", text(a.validation.minimumValue)), ("maxValue", text(a.validation.maximumValue)),
            ("minLength", a.validation.minimumLength.map(String.init)),
            ("maxLength", a.validation.maximumLength.map(String.init)),
            ("regularExpression", a.validation.regularExpression), ("derivationExpression", a.derivationExpression),
            ("allowsExternalBinaryDataStorage", text(a.allowsExternalBinaryDataStorage)),
            ("valueTransformerName", a.valueTransformerName), ("composite", a.compositeName),
            ("renamingIdentifier", a.renamingIdentifier), ("versionHashModifier", a.versionHashModifier),
            ("versionHash", ManagedObjectModel.versionHash(of: a).base64EncodedString()),
        ]
    }

    static func fields(_ r: RelationshipDescription) -> [(String, String?)] {
        [
            ("destination", r.destinationEntityName), ("inverse", r.inverseName), ("toMany", text(r.isToMany)),
            ("ordered", text(r.isOrdered)), ("minCount", String(r.minCount)), ("maxCount", String(r.maxCount)),
            ("deleteRule", r.deleteRule.xcodeName), ("optional", text(r.isOptional)),
            ("transient", text(r.isTransient)), ("renamingIdentifier", r.renamingIdentifier),
            ("versionHashModifier", r.versionHashModifier),
            ("versionHash", ManagedObjectModel.versionHash(of: r).base64EncodedString()),
        ]
    }
}
