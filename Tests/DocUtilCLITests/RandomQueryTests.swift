import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// `docutil query` with random predicates over every kind of relationship, sorts, limits and offsets, against a
/// fetch of the same request through the library on the same document: the same objects (in the same order when
/// sorted; `query` lists unsorted matches by entity, then key).
struct RandomQueryTests {
    static let predicates = [
        "name == 'same'", "ANY friends.name == 'same'", "friends.@count > 1", "group == nil", "next.next == nil",
        "SUBQUERY(friends, $f, $f.name == 'same').@count > 0", "ALL friends.name == 'same'", "NONE links.name == 'x'",
        "queue.@count > 0 AND queuedIn != nil", "previous.group == group", "name LIKE '*e?'",
        "name MATCHES '.*[0-9]+'", "name CONTAINS[c] 'NODE'", "ANY friends.name == name", "ANY friends IN queue",
        "name IN friends.name", "ANY group.members.name == 'same'", "TRUEPREDICATE",
    ]

    @Test func queryAnswersAsAFetchDoes() throws {
        let model = try RandomGraph.model()
        var random = RandomGraph.Generator(state: 977)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("graph.sqlite")
        let document = try PersistentDocument(creatingAt: url, ofType: .sqlite, model: model)
        var counter = 0
        for _ in 0..<6 { try RandomGraph.edit(document.managedObjectContext, &random, counter: &counter) }
        for object in try document.managedObjectContext.fetch(FetchRequest(entityName: "Node"))
        where Bool.random(using: &random) {
            try object.setValue(.string("same"), forKey: "name")
        }
        try document.save()
        try document.close()
        let reader = try PersistentDocument(contentsOf: url, readOnly: true)
        defer { try? reader.close() }
        for round in 0..<16 {
            let entity = ["Node", "Leaf"].randomElement(using: &random)!
            let format = Self.predicates.randomElement(using: &random)!
            var request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
            var arguments = ["query", url.path, "--entity", entity, "--where", format, "--format", "json"]
            let sorted = Bool.random(using: &random)
            if sorted {
                let ascending = Bool.random(using: &random)
                request.sortDescriptors = [
                    ObjectSortDescriptor(keyPath: "name", ascending: ascending),
                    ObjectSortDescriptor(keyPath: "friends.@count"),
                ]
                arguments += ["--sort", "\(ascending ? "" : "-")name,friends.@count"]
            }
            if Bool.random(using: &random) {
                request.fetchLimit = Int.random(in: 1...6, using: &random)
                request.fetchOffset = Int.random(in: 0...3, using: &random)
                arguments += ["--limit", "\(request.fetchLimit)", "--offset", "\(request.fetchOffset)"]
            }
            let place = "round \(round): \(arguments.dropFirst(2).joined(separator: " "))"
            let fetched = try reader.managedObjectContext.fetch(request)
            let result = try Docutil.run(arguments)
            #expect(result.status == 0, "\(place): \(result.stderr)")
            guard let root = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                let objects = root["objects"] as? [[String: Any]]
            else {
                Issue.record("\(place): not a JSON dump: \(result.stdout.prefix(200))")
                continue
            }
            let listed = objects.compactMap { $0["uri"] as? String }
            let expected = fetched.map { $0.objectID.uriRepresentation.absoluteString }
            if sorted {
                // Names (the first key) in the same order; ties may list their objects either way.
                #expect(
                    objects.compactMap { ($0["values"] as? [String: Any])?["name"] as? String }
                        == (try fetched.map { try $0.attributeValue(forKey: "name").literalText }), "\(place)")
                #expect(Set(listed) == Set(expected), "\(place)")
            } else {
                #expect(listed.sorted() == expected.sorted(), "\(place)")
            }
        }
    }
}
