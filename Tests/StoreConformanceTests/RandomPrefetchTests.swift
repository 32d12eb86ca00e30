import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Fetches with random prefetching key paths (one and two levels, ordered, many-to-many, without inverse), batch
/// sizes and faulting, made in a context holding random unsaved edits of the same objects: a fetch reads what is
/// stored but never overwrites what the context changed, so the graph is the same after it, and the save that
/// follows writes that graph.
struct RandomPrefetchTests {
    static let paths = [
        "members", "ranked", "tags", "peers", "linked", "notes", "best", "members.friends", "ranked.queue",
        "peers.next", "group", "rankedIn", "taggedBy", "friends", "friends.friends", "queue.queuedIn", "links.best",
    ]

    @Test(arguments: StoreUnderTest.all.filter { $0.fileExtension != nil && $0.type != "TestJSON" })
    func aFetchNeverOverwritesUnsavedEdits(store: StoreUnderTest) throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...4 {
            var random = RandomGraph.Generator(state: seed &* 1_000_003)
            let (coordinator, url) = try store.makeStore(model: model, named: "prefetch\(seed)")
            let fileURL = try #require(url)
            var counter = 0
            let writer = ManagedObjectContext(coordinator: coordinator)
            for _ in 0..<4 { try RandomGraph.edit(writer, &random, counter: &counter) }
            try writer.save()
            for round in 0..<6 {
                let place = "\(store), seed \(seed), round \(round)"
                // A new coordinator: every object starts as a fault of the file.
                let reader = PersistentStoreCoordinator(model: model)
                try reader.addPersistentStore(type: store.type, url: fileURL)
                let context = ManagedObjectContext(coordinator: reader)
                // Some objects and relationships loaded first, then edited without saving.
                if Bool.random(using: &random) { _ = try RandomGraph.state(context) }
                try RandomGraph.edit(context, &random, counter: &counter)
                let edited = try RandomGraph.state(context)
                for _ in 0..<3 {
                    var request = FetchRequest(entityName: Bool.random(using: &random) ? "Group" : "Node")
                    request.relationshipKeyPathsForPrefetching = Array(
                        Self.paths.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)))
                    request.returnsObjectsAsFaults = Bool.random(using: &random)
                    if Bool.random(using: &random) { request.fetchBatchSize = Int.random(in: 1...5, using: &random) }
                    if Bool.random(using: &random) {
                        request.predicate = try ObjectPredicate(format: "name BEGINSWITH 'n' OR name BEGINSWITH 'g'")
                    }
                    do {
                        let fetched = try context.fetch(request)
                        for object in fetched.prefix(3) { _ = try object.attributeValue(forKey: "name") }
                    } catch {
                        // A key path the entity lacks is an error; nothing else is.
                        #expect("\(error)".contains("key") || "\(error)".contains("relationship"), "\(place): \(error)")
                    }
                    #expect(
                        try RandomGraph.state(context) == edited,
                        "\(place): prefetching \(request.relationshipKeyPathsForPrefetching) changed the graph")
                }
                try context.save()
                let check = PersistentStoreCoordinator(model: model)
                try check.addPersistentStore(type: store.type, url: fileURL)
                #expect(try RandomGraph.state(ManagedObjectContext(coordinator: check)) == edited, "\(place): saved")
            }
        }
    }
}
