import Foundation
import FuzzSupport
import ObjectGraph
import XMLStore

/// The XML store reader and decoder, with the model a file carries, one inferred from it, and a fixed one.
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
    }
    return 0
}
