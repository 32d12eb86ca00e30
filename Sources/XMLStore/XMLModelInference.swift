import Foundation
import ModelFiles
import ObjectGraph

/// Works out a model from an XML store that carries none (Apple's never do): entities from the object types,
/// attributes and their types from the typed values, relationships and whether they are to-one or to-many, and
/// inverses where the links mirror each other. Entity names get their case back from the metadata's version-hash
/// keys; property names stay lower-case, as the file has them.
enum XMLModelInference {
    static func infer(_ raw: RawXMLStore) throws(StoreError) -> ManagedObjectModel {
        let hashedNames = raw.metadata["NSStoreModelVersionHashes"]?.dictionary.map { Array($0.keys) } ?? []
        let caseByUpper = Dictionary(hashedNames.map { ($0.uppercased(), $0) }, uniquingKeysWith: { a, _ in a })
        func entityName(_ type: String) -> String { caseByUpper[type.uppercased()] ?? type }

        var attributeTypes: [String: [String: Set<String>]] = [:]
        var relationships: [String: [String: (toMany: Bool, destination: String)]] = [:]
        var entityOrder: [String] = []
        var links: [String: [String: [Int64: [Int64]]]] = [:]  // entity → relationship → source id → refs
        for object in raw.objects {
            let entity = entityName(object.type)
            if attributeTypes[entity] == nil {
                attributeTypes[entity] = [:]
                relationships[entity] = [:]
                entityOrder.append(entity)
            }
            for attribute in object.attributes {
                attributeTypes[entity, default: [:]][attribute.name, default: []].insert(attribute.type)
            }
            for relationship in object.relationships {
                let destination = entityName(relationship.destination)
                let toMany = relationship.type != "1/1"
                relationships[entity, default: [:]][relationship.name] = (toMany, destination)
                links[entity, default: [:]][relationship.name, default: [:]][object.id] = relationship.refs
            }
        }
        // Destinations that never appear as objects still need an entity.
        for entity in entityOrder {
            for (_, info) in relationships[entity] ?? [:] where attributeTypes[info.destination] == nil {
                attributeTypes[info.destination] = [:]
                relationships[info.destination] = [:]
                entityOrder.append(info.destination)
            }
        }
        func mirrors(_ a: String, _ r: String, _ b: String, _ s: String) -> Bool {
            let forward = links[a]?[r] ?? [:]
            let backward = links[b]?[s] ?? [:]
            var pairs = Set<[Int64]>()
            for (source, refs) in forward { for ref in refs { pairs.insert([source, ref]) } }
            var back = Set<[Int64]>()
            for (source, refs) in backward { for ref in refs { back.insert([ref, source]) } }
            return pairs == back
        }
        // Each relationship's unique mirror candidate; a pair is kept only when both sides choose each other.
        var choice: [String: String] = [:]
        for entity in entityOrder {
            for (name, info) in relationships[entity] ?? [:] {
                let candidates = (relationships[info.destination] ?? [:]).filter { candidate in
                    candidate.value.destination == entity && !(info.destination == entity && candidate.key == name)
                        && mirrors(entity, name, info.destination, candidate.key)
                }
                if candidates.count == 1, let only = candidates.first {
                    choice["\(entity).\(name)"] = "\(info.destination).\(only.key)"
                }
            }
        }
        var entities: [EntityDescription] = []
        for entity in entityOrder {
            var description = EntityDescription(name: entity)
            for (name, types) in (attributeTypes[entity] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let type = types.count == 1 ? types.first.map(attributeType) ?? .string : .string
                description.attributes.append(AttributeDescription(name: name, type: type))
            }
            for (name, info) in (relationships[entity] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let key = "\(entity).\(name)"
                var inverse: String?
                if let other = choice[key], choice[other] == key {
                    inverse = other.split(separator: ".").last.map(String.init)
                }
                description.relationships.append(
                    RelationshipDescription(
                        name: name, destination: info.destination, inverse: inverse, toMany: info.toMany))
            }
            entities.append(description)
        }
        let identifiers = raw.metadata["NSStoreModelVersionIdentifiers"]?.array?.compactMap(\.string) ?? []
        do {
            return try ManagedObjectModel(entities: entities, versionIdentifiers: identifiers)
        } catch {
            throw StoreError(.corrupt, "cannot infer a model from the store: \(error.description)")
        }
    }

    static func attributeType(_ xmlType: String) -> AttributeType {
        switch xmlType {
        case "int16": .integer16
        case "int32": .integer32
        case "int64": .integer64
        case "decimal": .decimal
        case "double": .double
        case "float": .float
        case "bool": .boolean
        case "date": .date
        case "binary": .binary
        default: .string
        }
    }
}
