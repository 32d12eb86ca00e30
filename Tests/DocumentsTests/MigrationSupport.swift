import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport

/// Helpers for migration tests: models from `contents` text, stores written straight from snapshots (no
/// validation, so any model can be filled), and every object of a store read back.
enum MigrationSupport {
    static func model(_ entities: String) throws -> ManagedObjectModel {
        try ModelLoader.readContents(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                \(entities)
                </model>
                """.utf8))
    }

    /// Writes a store of `type` at `url` holding `objects` (entity, key, attributes, to-one links by entity/key).
    /// To-many sides of the links are filled from their to-one inverses.
    static func writeStore(
        _ model: ManagedObjectModel, type: String, at url: URL,
        objects: [(entity: String, key: Int64, values: [String: AttributeValue], links: [String: (String, Int64)])]
    ) throws {
        DocumentStack.registerStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: model)
        let memory = try coordinator.addPersistentStore(type: "InMemory")
        let uuid = memory.identifier
        func id(_ entity: String, _ key: Int64) -> ManagedObjectID {
            ManagedObjectID(entityName: entity, storeIdentifier: uuid, primaryKey: key)
        }
        var snapshots: [ManagedObjectID: ObjectSnapshot] = [:]
        for object in objects {
            var snapshot = ObjectSnapshot(objectID: id(object.entity, object.key), attributes: object.values)
            for relationship in model.allRelationships(of: object.entity) {
                if relationship.isToMany {
                    snapshot.toMany[relationship.name] = []
                } else {
                    snapshot.toOne[relationship.name] = .some(nil)
                }
            }
            snapshots[snapshot.objectID] = snapshot
        }
        for object in objects {
            let owner = id(object.entity, object.key)
            for (name, target) in object.links.sorted(by: { $0.key < $1.key }) {
                let destination = id(target.0, target.1)
                snapshots[owner]?.toOne[name] = .some(destination)
                guard let relationship = model.allRelationships(of: object.entity).first(where: { $0.name == name }),
                    let inverse = model.inverse(of: relationship)
                else { continue }
                if inverse.isToMany {
                    snapshots[destination]?.toMany[inverse.name, default: []].append(owner)
                } else {
                    snapshots[destination]?.toOne[inverse.name] = .some(owner)
                }
            }
        }
        try coordinator.writeCopy(
            of: memory, applying: UnsavedChanges(inserted: Array(snapshots.values)), to: url, type: type)
    }

    /// Every object of the document at `url` (opened with the model it carries), by `Entity/pN`: attribute values
    /// and relationship destinations as `Entity/pN` strings.
    static func contents(of url: URL) throws -> [String: [String: String]] {
        let opened = try DocumentStack.open(url)
        var result: [String: [String: String]] = [:]
        for entity in opened.model.entities where !entity.isAbstract {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try opened.context.fetch(request) {
                var values: [String: String] = [:]
                for attribute in opened.model.allAttributes(of: entity.name) where !attribute.isTransient {
                    values[attribute.name] = text(try object.value(forKey: attribute.name))
                }
                for relationship in opened.model.allRelationships(of: entity.name) where !relationship.isTransient {
                    values[relationship.name] = text(try object.value(forKey: relationship.name))
                }
                result[key(object.objectID)] = values
            }
        }
        opened.store.close()
        return result
    }

    static func key(_ id: ManagedObjectID) -> String { "\(id.entityName)/p\(id.primaryKey)" }

    static func text(_ value: PredicateValue) -> String {
        switch value {
        case .null: return "nil"
        case .object(let object as ManagedObject): return key(object.objectID)
        case .collection(let items, let ordered):
            let texts = items.map(text)
            return "[" + (ordered ? texts : texts.sorted()).joined(separator: ",") + "]"
        case .integer(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .decimal(let d): return "\(d)"
        case .boolean(let b): return "\(b)"
        case .string(let s): return "\"\(s)\""
        case .date(let d): return "\(d.timeIntervalSinceReferenceDate)"
        case .data(let d): return d.base64EncodedString()
        case .uuid(let u): return u.uuidString
        case .url(let u): return u.absoluteString
        case .dictionary(let entries):
            return entries.sorted { $0.key < $1.key }.map { "\($0.key)=\(text($0.value))" }.joined()
        case .object: return "object"
        }
    }
}
