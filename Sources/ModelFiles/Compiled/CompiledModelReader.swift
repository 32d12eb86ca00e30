import Foundation
import ObjectGraph

/// Decodes a compiled model (`.mom`, or a store's `Z_MODELCACHE` after inflating) — a keyed archive whose root is
/// an `NSManagedObjectModel` — into a ``ManagedObjectModel``.
///
/// A compiled model lists inherited properties again under every sub-entity; they are dropped here so that each
/// entity keeps only what it declares, as in the Xcode source. Keys that no fixture shows (abstract, transient and
/// ordered flags, fetched properties, templates) are read under their documented names and marked unverified.
struct CompiledModelReader {
    let archive: KeyedArchive
    /// Things that were read only partly (an archived predicate of a kind not decoded, say), each once (a compiled
    /// model repeats inherited properties under every sub-entity).
    var warnings: [String] {
        var seen = Set<String>()
        return notes.filter { seen.insert($0).inserted }
    }
    private var notes: [String] = []

    init(archive: KeyedArchive) {
        self.archive = archive
    }

    mutating func read() throws(ModelFileError) -> ManagedObjectModel {
        guard let root = try archive.instance(.uid(archive.rootUID)) else {
            throw ModelFileError(.malformed, "keyed archive: the root object is null")
        }
        if root.className == "XDPMModel" {
            throw ModelFileError(
                .unsupported,
                "this is an Xcode 3 model ('elements' archive); open it in Xcode 4 or later and save it to convert it")
        }
        guard root.className == "NSManagedObjectModel" else {
            throw ModelFileError(
                .unrecognizedFormat, "the archive's root object is a \(root.className), not an NSManagedObjectModel")
        }
        var entityUIDs: [(String, PropertyList)] = try archive.dictionary(root["NSEntities"])
        entityUIDs.sort { ManagedObjectModel.codePointOrder($0.0, $1.0) }

        var raw: [(entity: EntityDescription, uid: Int, superUID: Int?, propertyNames: Set<String>)] = []
        var nameByUID: [Int: String] = [:]
        for (_, value) in entityUIDs {
            guard let instance = try archive.instance(value) else { continue }
            guard let name = try archive.string(instance["NSEntityName"]) else {
                throw archive.fail(instance.uid, "entity without NSEntityName")
            }
            nameByUID[instance.uid] = name
        }
        for (_, value) in entityUIDs {
            guard let instance = try archive.instance(value) else { continue }
            let (entity, names) = try readEntity(instance, nameByUID: nameByUID)
            raw.append((entity, instance.uid, try archive.resolve(instance["NSSuperentity"])?.uid, names))
        }
        // Keep only the properties each entity declares itself.
        let propertiesByUID = Dictionary(uniqueKeysWithValues: raw.map { ($0.uid, $0.propertyNames) })
        var entities: [EntityDescription] = []
        for item in raw {
            var entity = item.entity
            if let superUID = item.superUID {
                entity.parentName = nameByUID[superUID]
                let inherited = propertiesByUID[superUID] ?? []
                entity.attributes.removeAll { inherited.contains($0.name) }
                entity.relationships.removeAll { inherited.contains($0.name) }
                entity.fetchedProperties.removeAll { inherited.contains($0.name) }
            }
            entities.append(entity)
        }
        let templates = try readTemplates(root["NSFetchRequestTemplates"], nameByUID: nameByUID)
        var identifiers: [String] = []
        for value in try archive.array(root["NSVersionIdentifiers"]) {
            if let s = try archive.string(value) { identifiers.append(s) }
        }
        var configurations: [Configuration] = []
        for (name, members) in try archive.dictionary(root["NSConfigurations"]) {
            var names: [String] = []
            for member in try archive.array(members) {
                if let uid = try archive.resolve(member)?.uid, let n = nameByUID[uid] {
                    names.append(n)
                } else if let n = try? archive.string(member) {
                    names.append(n)
                }
            }
            configurations.append(Configuration(name: name, entities: names.sorted()))
        }
        do {
            return try ManagedObjectModel(
                entities: entities, fetchRequestTemplates: templates,
                configurations: configurations.sorted { $0.name < $1.name }, versionIdentifiers: identifiers)
        } catch {
            throw ModelFileError(.invalidModel, error.description)
        }
    }

    private mutating func readEntity(
        _ instance: ArchivedInstance, nameByUID: [Int: String]
    ) throws(ModelFileError) -> (EntityDescription, Set<String>) {
        let name = nameByUID[instance.uid] ?? ""
        var entity = EntityDescription(name: name)
        let className = try archive.string(instance["NSClassNameForEntity"])
        entity.className = className == "NSManagedObject" ? nil : className
        entity.isAbstract = try archive.scalar(instance["NSIsAbstract"])?.boolean ?? false
        entity.versionHashModifier = try archive.string(instance["NSVersionHashModifier"])
        entity.renamingIdentifier = Self.renaming(try archive.string(instance["NSRenamingIdentifier"]), name: name)
        entity.userInfo = try userInfo(instance["NSUserInfo"])
        var names: Set<String> = []
        for (key, value) in try archive.dictionary(instance["NSProperties"]) {
            guard let property = try archive.instance(value) else { continue }
            names.insert(key)
            switch property.className {
            case "NSAttributeDescription":
                entity.attributes.append(try readAttribute(property, name: key))
            case "NSDerivedAttributeDescription":
                // An attribute the store computes from an expression (`pages.@count`); read like any attribute.
                var attribute = try readAttribute(property, name: key)
                if try archive.resolve(property["NSDerivationExpression"]) != nil {
                    do {
                        var decoder = ArchivedPredicate.Decoder(archive: archive)
                        attribute.derivationExpression =
                            try decoder.expression(property["NSDerivationExpression"], depth: 0).format
                    } catch {
                        notes.append(
                            "derived attribute '\(name).\(key)': its expression could not be read (\(error.message))")
                        attribute.derivationExpression = ""
                    }
                } else {
                    attribute.derivationExpression = ""
                }
                entity.attributes.append(attribute)
            case "NSRelationshipDescription":
                entity.relationships.append(try readRelationship(property, name: key, nameByUID: nameByUID))
            case "NSFetchedPropertyDescription":
                entity.fetchedProperties.append(try readFetchedProperty(property, name: key, nameByUID: nameByUID))
            default:
                // A property class of a later Core Data: read as an attribute when it is one (it has a type), else
                // left out — said either way, never a reason to refuse the whole model.
                if property["NSAttributeType"] != nil {
                    entity.attributes.append(try readAttribute(property, name: key))
                    notes.append(
                        "'\(name).\(key)' is a \(property.className), a property class docutil does not know: read as a plain attribute"
                    )
                } else {
                    names.remove(key)
                    notes.append(
                        "'\(name).\(key)' is a \(property.className), a property class docutil does not know: left out of the model (its values are not read)"
                    )
                }
            }
        }
        entity.attributes.sort { ManagedObjectModel.codePointOrder($0.name, $1.name) }
        entity.relationships.sort { ManagedObjectModel.codePointOrder($0.name, $1.name) }
        entity.fetchedProperties.sort { ManagedObjectModel.codePointOrder($0.name, $1.name) }
        entity.uniquenessConstraints = try propertyNameLists(instance["NSUniqueTuples"])
        entity.compoundIndexes = try propertyNameLists(instance["NSCompoundIndexes"])
        for value in try archive.array(instance["NSFetchIndexDescriptions"]) {
            guard let index = try archive.instance(value) else { continue }
            var elements: [FetchIndexDescription.Element] = []
            for elementValue in try archive.array(index["NSIndexElements"]) {
                guard let element = try archive.instance(elementValue) else { continue }
                let property = try archive.string(element["NSPropertyName"]) ?? ""
                let kind =
                    (try archive.scalar(element["NSFetchIndexElementType"])?.integer ?? 0) == 1 ? "RTree" : "Binary"
                let ascending = try archive.scalar(element["NSAscending"])?.boolean ?? true
                elements.append(.init(property: property, kind: kind, ascending: ascending))
            }
            let indexName = try archive.string(index["NSIndexName"]) ?? ""
            var partial: String?
            if try archive.resolve(index["NSPartialIndexPredicate"]) != nil {
                switch archivedPredicate(index["NSPartialIndexPredicate"]) {
                case .success(let predicate): partial = predicate.format
                case .failure(let error):
                    notes.append(
                        "\(name): the partial-index predicate of fetch index '\(indexName)' could not be read (\(error.message))"
                    )
                }
            }
            entity.fetchIndexes.append(
                FetchIndexDescription(name: indexName, elements: elements, partialIndexPredicate: partial))
        }
        return (entity, names)
    }

    private mutating func readAttribute(_ p: ArchivedInstance, name: String) throws(ModelFileError)
        -> AttributeDescription
    {
        let code = try archive.scalar(p["NSAttributeType"])?.integer ?? 0
        guard code >= 0, code <= UInt32.max, let type = AttributeType(rawValue: UInt32(code)) else {
            throw archive.fail(p.uid, "attribute '\(name)' has unknown type code \(code)")
        }
        var attribute = AttributeDescription(name: name, type: type)
        attribute.isOptional = try archive.scalar(p["NSIsOptional"])?.boolean ?? false
        attribute.isTransient = try archive.scalar(p["NSIsTransient"])?.boolean ?? false
        attribute.isIndexed = try archive.scalar(p["NSIsIndexed"])?.boolean ?? false
        attribute.valueTransformerName = try archive.string(p["NSValueTransformerName"])
        if type == .transformable, let valueClass = try archive.string(p["NSAttributeValueClassName"]) {
            attribute.customClassName = valueClass
        }
        attribute.allowsExternalBinaryDataStorage =
            try archive.scalar(p["NSAllowsExternalBinaryDataStorage"])?.boolean ?? false
        // Bit 0x10 of the flags is Xcode's "preserve after deletion" (the only flag any fixture sets).
        if let flags = try archive.scalar(p["NSFlagsKey"])?.integer {
            attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        }
        if case .string? = try archive.resolve(p["NSDerivationExpression"])?.value {
            attribute.derivationExpression = try archive.string(p["NSDerivationExpression"])
        }
        attribute.versionHashModifier = try archive.string(p["NSVersionHashModifier"])
        attribute.renamingIdentifier = Self.renaming(try archive.string(p["NSRenamingIdentifier"]), name: name)
        attribute.userInfo = try userInfo(p["NSUserInfo"])
        if type == .transformable, let (uid, object) = try archive.resolve(p["NSDefaultValue"]),
            case .dictionary = object,
            !["NSString", "NSMutableString", "NSData", "NSMutableData", "NSNumber", "NSDate"]
                .contains(archive.className(of: object) ?? "")
        {
            // An archived object of the app's own class: Linux cannot make one. Reading is unaffected; objects
            // inserted with this model start without the default.
            notes.append(
                "attribute '\(name)': its default value is an archived \(archive.className(of: object) ?? "object") ($objects[\(uid ?? -1)]), which is not decoded; new objects get no default"
            )
        } else if let value = try archive.scalar(p["NSDefaultValue"]) {
            attribute.defaultValue = Self.attributeValue(value, type: type)
        }
        return attribute
    }

    private func readRelationship(
        _ p: ArchivedInstance, name: String, nameByUID: [Int: String]
    ) throws(ModelFileError) -> RelationshipDescription {
        var destination = try archive.string(p["_NSDestinationEntityName"])
        if destination == nil, let uid = try archive.resolve(p["NSDestinationEntity"])?.uid {
            destination = nameByUID[uid]
        }
        guard let destination else { throw archive.fail(p.uid, "relationship '\(name)' has no destination") }
        var inverse = try archive.string(p["_NSInverseRelationshipName"])
        if inverse == nil, let inverseObject = try archive.instance(p["NSInverseRelationship"]) {
            inverse = try archive.string(inverseObject["NSPropertyName"])
        }
        // NSUIntegerMax (archived as -1) means unbounded, as 0 does.
        let storedMax = try archive.scalar(p["NSMaxCount"])?.integer ?? 1
        let maxCount = storedMax < 0 ? -1 : Int(clamping: storedMax)
        let minCount = Int(try archive.scalar(p["NSMinCount"])?.integer ?? 0)
        let ruleCode = Int(try archive.scalar(p["NSDeleteRule"])?.integer ?? 1)
        guard let rule = DeleteRule(rawValue: ruleCode) else {
            throw archive.fail(p.uid, "relationship '\(name)' has unknown delete rule \(ruleCode)")
        }
        var relationship = RelationshipDescription(
            name: name, destination: destination, inverse: inverse, toMany: maxCount != 1,
            ordered: try archive.scalar(p["NSIsOrdered"])?.boolean ?? false, minCount: minCount, maxCount: maxCount,
            deleteRule: rule, isOptional: try archive.scalar(p["NSIsOptional"])?.boolean ?? false,
            isTransient: try archive.scalar(p["NSIsTransient"])?.boolean ?? false)
        relationship.isIndexed = try archive.scalar(p["NSIsIndexed"])?.boolean ?? false
        relationship.versionHashModifier = try archive.string(p["NSVersionHashModifier"])
        relationship.renamingIdentifier = Self.renaming(try archive.string(p["NSRenamingIdentifier"]), name: name)
        relationship.userInfo = try userInfo(p["NSUserInfo"])
        return relationship
    }

    private mutating func readFetchedProperty(
        _ p: ArchivedInstance, name: String, nameByUID: [Int: String]
    ) throws(ModelFileError) -> FetchedPropertyDescription {
        var entityName = ""
        var predicate: String?
        var undecodable: String?
        if let request = try archive.instance(p["NSFetchRequest"]) {
            entityName = try fetchedEntityName(request, nameByUID: nameByUID)
            if try archive.resolve(request["NSPredicate"]) != nil {
                switch archivedPredicate(request["NSPredicate"]) {
                case .success(let decoded): predicate = decoded.format
                case .failure(let error):
                    undecodable = error.message
                    notes.append("fetched property '\(name)': its predicate could not be read (\(error.message))")
                }
            }
        }
        var property = FetchedPropertyDescription(
            name: name, entity: entityName, predicate: predicate,
            isOptional: try archive.scalar(p["NSIsOptional"])?.boolean ?? false, userInfo: try userInfo(p["NSUserInfo"])
        )
        property.undecodablePredicate = undecodable
        return property
    }

    private mutating func readTemplates(
        _ value: PropertyList?, nameByUID: [Int: String]
    ) throws(ModelFileError) -> [FetchRequestTemplate] {
        var templates: [FetchRequestTemplate] = []
        for (name, requestValue) in try archive.dictionary(value) {
            guard let request = try archive.instance(requestValue) else { continue }
            var template = FetchRequestTemplate(
                name: name, entity: try fetchedEntityName(request, nameByUID: nameByUID))
            if let limit = try archive.scalar(request["NSFetchLimit"])?.integer, limit != 0 {
                template.fetchLimit = Int(limit)
            }
            if let batch = try archive.scalar(request["NSBatchSize"])?.integer, batch != 0 {
                template.fetchBatchSize = Int(batch)
            }
            if let type = try archive.scalar(request["NSResultType"])?.integer {
                template.resultType = FetchRequestTemplate.ResultType(rawValue: Int(type))
            }
            if try archive.resolve(request["NSPredicate"]) != nil {
                switch archivedPredicate(request["NSPredicate"]) {
                case .success(let predicate): template.predicate = predicate.format
                case .failure(let error):
                    template.undecodablePredicate = error.message
                    notes.append(
                        "fetch request template '\(name)': its predicate could not be read (\(error.message)); using the template is an error"
                    )
                }
            }
            templates.append(template)
        }
        return templates.sorted { $0.name < $1.name }
    }

    private func fetchedEntityName(_ request: ArchivedInstance, nameByUID: [Int: String]) throws(ModelFileError)
        -> String
    {
        if let uid = try archive.resolve(request["NSEntity"])?.uid, let name = nameByUID[uid] { return name }
        return try archive.string(request["NSEntityName"]) ?? ""
    }

    /// An archived predicate, decoded; the error says why not.
    private func archivedPredicate(_ value: PropertyList?) -> Result<ObjectPredicate, ModelFileError> {
        do {
            return .success(try ArchivedPredicate.predicate(value, in: archive))
        } catch {
            return .failure(error)
        }
    }

    /// Lists of property names, whose elements are strings or archived property descriptions.
    private func propertyNameLists(_ value: PropertyList?) throws(ModelFileError) -> [[String]] {
        var lists: [[String]] = []
        for listValue in try archive.array(value) {
            var names: [String] = []
            let elements: [PropertyList]
            if let resolved = try archive.resolve(listValue), resolved.value["NS.objects"] != nil {
                elements = try archive.array(listValue)
            } else {
                elements = [listValue]
            }
            for element in elements {
                guard let (_, object) = try archive.resolve(element) else { continue }
                if case .dictionary(let fields) = object, let propertyName = fields["NSPropertyName"] {
                    if let n = try archive.string(propertyName) { names.append(n) }
                } else if let n = try archive.string(element) {
                    names.append(n)
                }
            }
            lists.append(names)
        }
        return lists
    }

    private func userInfo(_ value: PropertyList?) throws(ModelFileError) -> [String: String] {
        var result: [String: String] = [:]
        for (key, entry) in try archive.dictionary(value) {
            switch try archive.scalar(entry) {
            case .string(let s)?: result[key] = s
            case .integer(let i)?: result[key] = String(i)
            case .real(let r)?: result[key] = String(r)
            case .boolean(let b)?: result[key] = b ? "YES" : "NO"
            default: break
            }
        }
        return result
    }

    /// momc records a renaming identifier equal to the name when the source sets none.
    private static func renaming(_ identifier: String?, name: String) -> String? {
        identifier == name ? nil : identifier
    }

    private static func attributeValue(_ value: PropertyList, type: AttributeType) -> AttributeValue {
        let raw: AttributeValue
        switch value {
        case .string(let s): raw = .string(s)
        case .integer(let i): raw = .integer64(i)
        case .real(let r): raw = .double(r)
        case .boolean(let b): raw = .boolean(b)
        case .date(let d): raw = .date(d)
        case .data(let d): raw = type == .uuid ? UUID(bytes: d).map { .uuid($0) } ?? .binary(d) : .binary(d)
        default: return .null
        }
        if type == .transformable || type == .undefined { return raw }
        // A default that does not convert stays as it is: the model then reports it as an invalid default value.
        return (try? raw.converted(to: type)) ?? raw
    }
}
