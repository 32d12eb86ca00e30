import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

struct FixturePredicateTests {
    /// Every predicate and derivation expression stored in a model file: fetched properties, templates, derived
    /// attributes.
    static func predicates(in model: ManagedObjectModel) -> (predicates: [String], expressions: [String]) {
        var predicates = model.fetchRequestTemplates.compactMap(\.predicate)
        var expressions: [String] = []
        for entity in model.entities {
            predicates += entity.fetchedProperties.compactMap(\.predicate)
            expressions += entity.attributes.compactMap(\.derivationExpression)
        }
        return (predicates, expressions)
    }

    @Test(.needsRealFixtures)
    func everyPredicateStringInTheRealModelsParses() throws {
        var count = 0
        for path in Fixtures.realFiles(in: "xcdatamodel", suffix: ".xml") {
            let model = try ModelLoader.load(from: Fixtures.real(path)).model
            let (predicates, expressions) = Self.predicates(in: model)
            for text in predicates {
                let predicate = try ObjectPredicate(format: text)
                #expect(try ObjectPredicate(format: predicate.format) == predicate, "\(path): \(text)")
                count += 1
            }
            for text in expressions {
                _ = try ObjectExpression(format: text)
                count += 1
            }
        }
        // Raw predicateString attributes, in case a model holds one the loader does not keep.
        var raw = 0
        for path in Fixtures.realFiles(in: "xcdatamodel", suffix: ".xml") {
            let text = try String(contentsOf: Fixtures.real(path), encoding: .utf8)
            raw += text.components(separatedBy: "predicateString=").count - 1
        }
        #expect(count >= raw)
        #expect(count > 0)
    }

    @Test func theBundledModelsPredicatesParse() throws {
        let model = try ModelLoader.load(from: Fixtures.project("Library.xcdatamodeld")).model
        let (predicates, _) = Self.predicates(in: model)
        #expect(predicates.count == 3)
        for text in predicates { _ = try ObjectPredicate(format: text) }
        let request = try model.fetchRequest(
            fromTemplate: "BooksByTitle", substitutionVariables: ["prefix": .string("du")])
        #expect(request.predicate?.format == "title BEGINSWITH[cd] \"du\"")
        #expect(request.fetchLimit == 50)
    }
}
