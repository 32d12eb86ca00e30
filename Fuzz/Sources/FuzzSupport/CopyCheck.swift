import BinaryStore
public import Foundation
public import ObjectGraph
import SQLiteStore
import XMLStore

extension FuzzSupport {
    /// Writes a copy of `store` as each store type and opens it again: a copy may be refused (a value the type
    /// cannot hold), but one that was written must open and hold as many objects of each entity as the original —
    /// a document docutil wrote that does not open again is a finding.
    public static func checkCopies(of store: any PersistentStore, in coordinator: PersistentStoreCoordinator) {
        XMLStore.register()
        BinaryStore.register()
        SQLiteStore.register()
        let model = coordinator.model
        guard let counts = try? objectCounts(ManagedObjectContext(coordinator: coordinator)) else { return }
        for (type, name) in [("XML", "copy.xml"), ("Binary", "copy.binary"), ("SQLite", "copy.sqlite")] {
            let url = scratchFile(name)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            guard (try? coordinator.writeCopy(of: store, to: url, type: type)) != nil else { continue }
            let reader = PersistentStoreCoordinator(model: model)
            do {
                try reader.addPersistentStore(type: type, url: url)
                let copied = try objectCounts(ManagedObjectContext(coordinator: reader))
                guard copied == counts else {
                    fatalError("a \(type) copy holds \(copied) objects, the original \(counts)")
                }
            } catch {
                fatalError("a \(type) copy docutil wrote does not open: \(error)")
            }
        }
    }

    /// The number of objects of each root entity, every one of them read whole.
    static func objectCounts(_ context: ManagedObjectContext) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for entity in context.model.entities where entity.parentName == nil {
            let objects = try context.fetch(FetchRequest(entityName: entity.name))
            for object in objects {
                for attribute in object.entity.attributes { _ = try object.attributeValue(forKey: attribute.name) }
            }
            counts[entity.name] = objects.count
        }
        return counts
    }
}
