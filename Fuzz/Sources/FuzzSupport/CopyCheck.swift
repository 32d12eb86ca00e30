import BinaryStore
import Foundation
public import ObjectGraph
import SQLiteStore
import XMLStore

extension FuzzSupport {
    /// Writes a copy of `store` as each store type and opens it again: a copy may be refused (a value the type
    /// cannot hold), but one that was written must open and hold the same objects with the same values as the
    /// original — a document docutil wrote that does not open again, or reads back other values, is a finding.
    public static func checkCopies(of store: any PersistentStore, in coordinator: PersistentStoreCoordinator) {
        XMLStore.register()
        BinaryStore.register()
        SQLiteStore.register()
        let model = coordinator.model
        guard let rows = try? objectRows(ManagedObjectContext(coordinator: coordinator)) else { return }
        for (type, name) in [("XML", "copy.xml"), ("Binary", "copy.binary"), ("SQLite", "copy.sqlite")] {
            let url = scratchFile(name)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            guard (try? coordinator.writeCopy(of: store, to: url, type: type)) != nil else { continue }
            let reader = PersistentStoreCoordinator(model: model)
            do {
                try reader.addPersistentStore(type: type, url: url)
                let copied = try objectRows(ManagedObjectContext(coordinator: reader))
                guard copied == rows else {
                    let lost = rows.flatMap { entity, own in own.filter { copied[entity]?[$0.key] != $0.value } }
                    let found = copied.flatMap { entity, own in own.filter { rows[entity]?[$0.key] != $0.value } }
                    fatalError(
                        "a \(type) copy reads back other objects or values: \(lost.prefix(2)) became \(found.prefix(2))"
                    )
                }
            } catch {
                fatalError("a \(type) copy docutil wrote does not open: \(error)")
            }
        }
    }

    /// Each root entity's objects as the values they hold (a count of each distinct row of values, in attribute
    /// order) and the links they have (how many destinations of which entities each relationship names; keys may
    /// be renumbered in a copy), every one of them read whole.
    static func objectRows(_ context: ManagedObjectContext) throws -> [String: [[String]: Int]] {
        var rows: [String: [[String]: Int]] = [:]
        for entity in context.model.entities where entity.parentName == nil {
            var counts: [[String]: Int] = [:]
            for object in try context.fetch(FetchRequest(entityName: entity.name)) {
                var row = [object.entity.name]
                for attribute in object.entity.attributes where !attribute.isTransient {
                    row.append(text(try object.attributeValue(forKey: attribute.name)))
                }
                for relationship in object.entity.relationships where !relationship.isTransient {
                    let entities = try object.objectIDs(forKey: relationship.name).map(\.entityName).sorted()
                    row.append("\(relationship.name)->\(entities.joined(separator: ","))")
                }
                counts[row, default: 0] += 1
            }
            rows[entity.name] = counts
        }
        return rows
    }

    /// A value as text that tells values apart (its type and literal text); a zero's sign is left out (SQLite keeps
    /// -0.0 as 0.0, which is equal to it).
    static func text(_ value: AttributeValue) -> String {
        switch value {
        case .double(let v) where v == 0: return "zero"
        case .float(let v) where v == 0: return "zero"
        case .date(let d) where d.timeIntervalSinceReferenceDate == 0: return "zero"
        default: return "\(value.type.map { "\($0)" } ?? "null"):\(value.literalText)"
        }
    }
}
