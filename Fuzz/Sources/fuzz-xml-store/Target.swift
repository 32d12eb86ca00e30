import Foundation
import FuzzSupport
import ObjectGraph
import XMLStore

/// The XML store reader and decoder, with the model a file carries, one inferred from it, and a fixed one; and the
/// same read collecting problems instead of refusing them, then checked as `docutil check` does.
let file = FuzzSupport.scratchFile("store.xml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzSupport.write(UnsafeRawBufferPointer(start: data, count: size), to: file)
    guard let read = try? XMLStoreFile(url: file) else { return 0 }
    var models = [FuzzSupport.model]
    if let embedded = try? read.embeddedModel() { models.append(embedded) }
    if let inferred = try? read.inferredModel() { models.append(inferred) }
    for model in models {
        let coordinator = PersistentStoreCoordinator(model: model)
        guard (try? coordinator.add(XMLStore(description: StoreDescription(type: "XML", url: file)))) != nil else {
            continue
        }
        FuzzSupport.readEverything(ManagedObjectContext(coordinator: coordinator))
        if let store = coordinator.persistentStores.first { FuzzSupport.checkCopies(of: store, in: coordinator) }
        let checking = PersistentStoreCoordinator(model: model)
        let description = StoreDescription(type: "XML", url: file, options: ["collectProblems": "YES"])
        guard let store = try? XMLStore(description: description), (try? checking.add(store)) != nil else {
            continue
        }
        _ = try? store.checkStructure(limit: 20)
        if let snapshots = try? checking.storedSnapshots(of: store) {
            _ = SnapshotCheck.problems(in: snapshots, model: model)
        }
        let context = ManagedObjectContext(coordinator: checking)
        for name in model.entityNames {
            for object in (try? context.fetch(FetchRequest(entityName: name))) ?? [] {
                _ = try? context.ruleViolations(of: object)
            }
        }
    }
    return 0
}
