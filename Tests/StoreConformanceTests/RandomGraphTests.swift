import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Random edits of ``RandomGraph``, undone, redone and rolled back, saved round after round into each store type and
/// read back by a coordinator of its own: what the store holds after each save must be what the context held, and a
/// copy into every other store type must hold it too.
struct RandomGraphTests {
    static let stores = StoreUnderTest.all

    @Test(arguments: stores)
    func randomEditsAreSavedAsTheyWereMade(store: StoreUnderTest) throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed)
            var (coordinator, url) = try store.makeStore(model: model, named: "graph\(seed)")
            var context = ManagedObjectContext(coordinator: coordinator)
            var counter = 0
            for round in 0..<10 {
                if let url, Bool.random(using: &random) {
                    // The next edits start from the file: every object a fault of a new coordinator.
                    coordinator = PersistentStoreCoordinator(model: model)
                    try coordinator.addPersistentStore(type: store.type, url: url)
                    context = ManagedObjectContext(coordinator: coordinator)
                }
                let before = try RandomGraph.state(context)
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    // Edits undone as one group leave the graph as it was; redone, as it was after them.
                    context.processPendingChanges()
                    context.undoManager?.beginUndoGrouping()
                    try RandomGraph.edit(context, &random, counter: &counter)
                    context.processPendingChanges()
                    context.undoManager?.endUndoGrouping()
                    let after = try RandomGraph.state(context)
                    context.undo()
                    #expect(try RandomGraph.state(context) == before, "\(store), seed \(seed), round \(round): undo")
                    context.redo()
                    #expect(try RandomGraph.state(context) == after, "\(store), seed \(seed), round \(round): redo")
                case 1:
                    // Edits rolled back leave the graph as it was saved.
                    try RandomGraph.edit(context, &random, counter: &counter)
                    context.rollback()
                    #expect(
                        try RandomGraph.state(context) == before, "\(store), seed \(seed), round \(round): rollback")
                default:
                    try RandomGraph.edit(context, &random, counter: &counter)
                }
                try context.save()
                let expected = try RandomGraph.state(context)
                var reader = coordinator
                if let url {
                    reader = PersistentStoreCoordinator(model: model)
                    try reader.addPersistentStore(type: store.type, url: url)
                }
                let read = try RandomGraph.state(ManagedObjectContext(coordinator: reader))
                #expect(read == expected, "\(store), seed \(seed), round \(round)")
                if read != expected { return }
            }
            // A copy into every other store type holds the same graph.
            let expected = try RandomGraph.state(context)
            guard let url else { continue }
            for other in Self.stores where other.fileExtension != nil && other.type != store.type {
                let copied = try store.copy(of: url, into: other, model: model)
                #expect(try RandomGraph.state(copied) == expected, "\(store) copied into \(other), seed \(seed)")
            }
        }
    }
}
