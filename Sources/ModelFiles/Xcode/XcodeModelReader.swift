import Foundation
import ObjectGraph

/// Reads the `contents` XML that Xcode writes inside an `.xcdatamodel` directory.
///
/// Unknown elements and attributes are ignored (new Xcode versions keep adding them); omitted booleans mean NO.
/// References between entities are resolved after every entity is read, and the model is then checked.
enum XcodeModelReader {
    static func read(_ data: Data) throws(ModelFileError) -> ManagedObjectModel {
        let root = try XMLElement.parse(data)
        guard root.name == "model" else {
            throw ModelFileError(
                .unrecognizedFormat, location: "\(root.line)",
                "not a Core Data model: the root element is <\(root.name)>, expected <model>")
        }
        if let type = root[attribute: "type"], type != "com.apple.IDECoreDataModeler.DataModel" {
            throw ModelFileError(.unrecognizedFormat, location: "\(root.line)", "unknown model type '\(type)'")
        }
        var entities: [EntityDescription] = []
        var templates: [FetchRequestTemplate] = []
        var configurations: [Configuration] = []
        var composites: [CompositeDescription] = []
        for child in root.children {
            switch child.name {
            case "entity": entities.append(try entity(child))
            case "fetchRequest": templates.append(try template(child))
            case "configuration":
                configurations.append(
                    Configuration(
                        name: try required(child, "name"),
                        entities: child.children(named: "memberEntity").compactMap { $0[attribute: "name"] }))
            case "composite":
                composites.append(
                    CompositeDescription(
                        name: try required(child, "name"),
                        attributes: try child.children(named: "attribute").map { e throws(ModelFileError) in
                            try attribute(e)
                        }))
            default: break
            }
        }
        let identifier = root[attribute: "userDefinedModelVersionIdentifier"] ?? ""
        do {
            return try ManagedObjectModel(
                entities: entities, fetchRequestTemplates: templates, configurations: configurations,
                composites: composites, versionIdentifiers: [identifier])
        } catch {
            throw ModelFileError(.invalidModel, error.description)
        }
    }

    private static func fail(_ element: XMLElement, _ message: String) -> ModelFileError {
        ModelFileError(.malformed, location: "\(element.line)", message)
    }

    private static func required(_ element: XMLElement, _ name: String) throws(ModelFileError) -> String {
        guard let value = element[attribute: name], !value.isEmpty else {
            throw fail(element, "<\(element.name)> has no '\(name)' attribute")
        }
        return value
    }

    private static func flag(_ element: XMLElement, _ name: String) -> Bool {
        element[attribute: name] == "YES"
    }

    private static func optionalFlag(_ element: XMLElement, _ name: String) -> Bool? {
        element[attribute: name].map { $0 == "YES" }
    }

    private static func integer(_ element: XMLElement, _ name: String) throws(ModelFileError) -> Int? {
        guard let text = element[attribute: name] else { return nil }
        guard let value = Int(text) else { throw fail(element, "'\(name)' is not an integer: '\(text)'") }
        return value
    }

    private static func userInfo(_ element: XMLElement) -> [String: String] {
        var result: [String: String] = [:]
        for info in element.children(named: "userInfo") {
            for entry in info.children(named: "entry") {
                if let key = entry[attribute: "key"] { result[key] = entry[attribute: "value"] ?? "" }
            }
        }
        return result
    }

    private static func entity(_ e: XMLElement) throws(ModelFileError) -> EntityDescription {
        var entity = EntityDescription(name: try required(e, "name"))
        let className = e[attribute: "representedClassName"]
        entity.className = (className == nil || className == "" || className == "NSManagedObject") ? nil : className
        entity.parentName = e[attribute: "parentEntity"]
        entity.isAbstract = flag(e, "isAbstract")
        entity.versionHashModifier = e[attribute: "versionHashModifier"]
        entity.renamingIdentifier = e[attribute: "elementID"]
        entity.userInfo = userInfo(e)
        for child in e.children {
            switch child.name {
            case "attribute": entity.attributes.append(try attribute(child))
            case "relationship": entity.relationships.append(try relationship(child))
            case "fetchedProperty":
                let request = child.child(named: "fetchRequest")
                var property = FetchedPropertyDescription(
                    name: try required(child, "name"),
                    entity: try request.map { r throws(ModelFileError) in try required(r, "entity") } ?? "",
                    predicate: request?[attribute: "predicateString"], isOptional: flag(child, "optional"),
                    userInfo: userInfo(child))
                property.undecodablePredicate = request?[attribute: XcodeModelWriter.undecodablePredicateAttribute]
                entity.fetchedProperties.append(property)
            case "uniquenessConstraints":
                entity.uniquenessConstraints += child.children(named: "uniquenessConstraint").map {
                    $0.children(named: "constraint").compactMap { $0[attribute: "value"] }
                }
            case "compoundIndexes":
                entity.compoundIndexes += child.children(named: "compoundIndex").map {
                    $0.children(named: "index").compactMap { $0[attribute: "value"] }
                }
            case "fetchIndex":
                entity.fetchIndexes.append(
                    FetchIndexDescription(
                        name: child[attribute: "name"] ?? "",
                        elements: child.children(named: "fetchIndexElement").map {
                            .init(
                                property: $0[attribute: "property"] ?? "", kind: $0[attribute: "type"] ?? "Binary",
                                ascending: $0[attribute: "order"] != "descending")
                        }, partialIndexPredicate: child[attribute: "partialIndexExpression"]))
            default: break
            }
        }
        return entity
    }

    static func attribute(_ e: XMLElement) throws(ModelFileError) -> AttributeDescription {
        let name = try required(e, "name")
        let typeName = e[attribute: "attributeType"] ?? "Undefined"
        guard let type = AttributeType(xcodeName: typeName) else {
            throw fail(e, "attribute '\(name)' has unknown attributeType '\(typeName)'")
        }
        var a = AttributeDescription(name: name, type: type, isOptional: flag(e, "optional"))
        a.isTransient = flag(e, "transient")
        a.isIndexed = flag(e, "indexed")
        a.allowsExternalBinaryDataStorage = flag(e, "allowsExternalBinaryDataStorage")
        a.preservesValueInHistoryOnDeletion = flag(e, "preserveAfterDeletion")
        a.valueTransformerName = e[attribute: "valueTransformerName"]
        a.customClassName = e[attribute: "customClassName"]
        a.compositeName = e[attribute: "composite"]
        a.versionHashModifier = e[attribute: "versionHashModifier"]
        a.renamingIdentifier = e[attribute: "elementID"]
        if flag(e, "derived") { a.derivationExpression = e[attribute: "derivationExpression"] ?? "" }
        a.userInfo = userInfo(e)
        func value(_ text: String?, _ interval: String?, what: String) throws(ModelFileError) -> AttributeValue? {
            if type == .date, let interval {
                guard let seconds = Double(interval) else {
                    throw fail(e, "attribute '\(name)': bad \(what) date '\(interval)'")
                }
                return .date(ReferenceDate.date(secondsSinceReferenceDate: seconds))
            }
            guard let text else { return nil }
            do {
                return try AttributeValue(parsing: text, as: type)
            } catch {
                throw fail(e, "attribute '\(name)': bad \(what): \(error.reason)")
            }
        }
        if type != .transformable, type != .composite, type != .undefined, type != .binary {
            a.defaultValue =
                try value(
                    e[attribute: "defaultValueString"], e[attribute: "defaultDateTimeInterval"], what: "default value")
                ?? .null
        }
        if type == .string {
            a.validation.minimumLength = try integer(e, "minValueString")
            a.validation.maximumLength = try integer(e, "maxValueString")
            a.validation.regularExpression = e[attribute: "regularExpressionString"]
        } else if type.isNumeric || type == .date {
            a.validation.minimumValue = try value(
                e[attribute: "minValueString"], e[attribute: "minDateTimeInterval"], what: "minimum")
            a.validation.maximumValue = try value(
                e[attribute: "maxValueString"], e[attribute: "maxDateTimeInterval"], what: "maximum")
        }
        return a
    }

    private static func relationship(_ e: XMLElement) throws(ModelFileError) -> RelationshipDescription {
        let name = try required(e, "name")
        let ruleName = e[attribute: "deletionRule"] ?? "Nullify"
        guard let rule = DeleteRule(xcodeName: ruleName) else {
            throw fail(e, "relationship '\(name)' has unknown deletionRule '\(ruleName)'")
        }
        var r = RelationshipDescription(
            name: name, destination: try required(e, "destinationEntity"), inverse: e[attribute: "inverseName"],
            toMany: flag(e, "toMany"), ordered: flag(e, "ordered"), minCount: try integer(e, "minCount") ?? 0,
            maxCount: try integer(e, "maxCount"), deleteRule: rule, isOptional: flag(e, "optional"),
            isTransient: flag(e, "transient"))
        r.isIndexed = flag(e, "indexed")
        r.versionHashModifier = e[attribute: "versionHashModifier"]
        r.renamingIdentifier = e[attribute: "elementID"]
        r.userInfo = userInfo(e)
        return r
    }

    private static func template(_ e: XMLElement) throws(ModelFileError) -> FetchRequestTemplate {
        var t = FetchRequestTemplate(
            name: try required(e, "name"), entity: try required(e, "entity"), predicate: e[attribute: "predicateString"]
        )
        t.fetchLimit = try integer(e, "fetchLimit")
        t.fetchBatchSize = try integer(e, "fetchBatchSize")
        if let type = try integer(e, "resultType") {
            guard let resultType = FetchRequestTemplate.ResultType(rawValue: type) else {
                throw fail(e, "fetch request '\(t.name)' has unknown resultType \(type)")
            }
            t.resultType = resultType
        }
        t.includesSubentities = optionalFlag(e, "includeSubentities")
        t.includesPropertyValues = optionalFlag(e, "includePropertyValues")
        t.includesPendingChanges = optionalFlag(e, "includesPendingChanges")
        t.returnsObjectsAsFaults = optionalFlag(e, "returnObjectsAsFaults")
        t.returnsDistinctResults = optionalFlag(e, "returnDistinctResults")
        t.undecodablePredicate = e[attribute: XcodeModelWriter.undecodablePredicateAttribute]
        return t
    }
}
