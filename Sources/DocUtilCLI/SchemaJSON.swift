import Foundation
import ModelFiles
import ObjectGraph

/// The JSON form of a model printed by `docutil schema --format json` (format version 1, documented in the README).
enum SchemaJSON {
    static func render(_ model: ManagedObjectModel) -> JSONValue {
        let hashes = model.entityVersionHashes
        let entities = model.entities.sorted { ManagedObjectModel.codePointOrder($0.name, $1.name) }
        return .object([
            ("formatVersion", .int(1)),
            ("versionIdentifiers", .array(model.versionIdentifiers.map { .string($0) })),
            ("versionHashesDigest", .string(model.versionHashesDigest)),
            ("entities", .array(entities.map { entity($0, hash: hashes[$0.name]) })),
            ("fetchRequests", .array(model.fetchRequestTemplates.sorted { $0.name < $1.name }.map(template))),
            (
                "configurations",
                .object(
                    model.configurations.sorted { $0.name < $1.name }.map {
                        ($0.name, .array($0.entityNames.map { .string($0) }))
                    })
            ),
        ])
    }

    private static func sortedByName<T>(_ items: [T], _ name: (T) -> String) -> [T] {
        items.sorted { ManagedObjectModel.codePointOrder(name($0), name($1)) }
    }

    private static func entity(_ e: EntityDescription, hash: Data?) -> JSONValue {
        .object([
            ("name", .string(e.name)),
            ("className", .string(e.className ?? "NSManagedObject")),
            ("parent", .optional(e.parentName)),
            ("abstract", .bool(e.isAbstract)),
            ("versionHash", .optional(hash?.base64EncodedString())),
            ("attributes", .array(sortedByName(e.attributes, \.name).map(attribute))),
            ("relationships", .array(sortedByName(e.relationships, \.name).map(relationship))),
            (
                "fetchedProperties",
                .array(
                    sortedByName(e.fetchedProperties, \.name).map {
                        .object([
                            ("name", .string($0.name)), ("entity", .string($0.entityName)),
                            ("predicate", .optional($0.predicate)),
                            ("predicateError", .optional($0.undecodablePredicate)),
                        ])
                    })
            ),
            ("uniquenessConstraints", .array(e.uniquenessConstraints.map { .array($0.map { .string($0) }) })),
            ("compoundIndexes", .array(e.compoundIndexes.map { .array($0.map { .string($0) }) })),
            ("userInfo", userInfo(e.userInfo)),
        ])
    }

    private static func value(_ v: AttributeValue?) -> JSONValue {
        guard let v, !v.isNull else { return .null }
        if case .date(let d) = v { return .string(ISO8601.string(d)) }
        return .string(v.literalText)
    }

    private static func attribute(_ a: AttributeDescription) -> JSONValue {
        .object([
            ("name", .string(a.name)),
            ("type", .string(a.type.xcodeName)),
            ("optional", .bool(a.isOptional)),
            ("transient", .bool(a.isTransient)),
            ("defaultValue", value(a.defaultValue)),
            ("indexed", .bool(a.isIndexed)),
            ("minValue", value(a.validation.minimumValue)),
            ("maxValue", value(a.validation.maximumValue)),
            ("minLength", a.validation.minimumLength.map { .int(Int64($0)) } ?? .null),
            ("maxLength", a.validation.maximumLength.map { .int(Int64($0)) } ?? .null),
            ("regularExpression", .optional(a.validation.regularExpression)),
            ("derivationExpression", .optional(a.derivationExpression)),
            ("allowsExternalBinaryDataStorage", .bool(a.allowsExternalBinaryDataStorage)),
            ("valueTransformerName", .optional(a.valueTransformerName)),
            ("composite", .optional(a.compositeName)),
            ("versionHash", .string(ManagedObjectModel.versionHash(of: a).base64EncodedString())),
        ])
    }

    private static func relationship(_ r: RelationshipDescription) -> JSONValue {
        .object([
            ("name", .string(r.name)),
            ("destination", .string(r.destinationEntityName)),
            ("inverse", .optional(r.inverseName)),
            ("toMany", .bool(r.isToMany)),
            ("ordered", .bool(r.isOrdered)),
            ("minCount", .int(Int64(r.minCount))),
            ("maxCount", .int(Int64(r.maxCount))),
            ("deleteRule", .string(r.deleteRule.xcodeName)),
            ("optional", .bool(r.isOptional)),
            ("transient", .bool(r.isTransient)),
            ("versionHash", .string(ManagedObjectModel.versionHash(of: r).base64EncodedString())),
        ])
    }

    private static func template(_ t: FetchRequestTemplate) -> JSONValue {
        .object([
            ("name", .string(t.name)), ("entity", .string(t.entityName)), ("predicate", .optional(t.predicate)),
            ("predicateError", .optional(t.undecodablePredicate)),
            ("fetchLimit", t.fetchLimit.map { .int(Int64($0)) } ?? .null),
            ("resultType", t.resultType.map { .int(Int64($0.rawValue)) } ?? .null),
        ])
    }

    private static func userInfo(_ info: [String: String]) -> JSONValue {
        .object(info.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }
}

/// ISO 8601 with fractional seconds in UTC, the date form of every JSON output.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        DateText.iso8601(date)
    }
}
