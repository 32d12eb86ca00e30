import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// `docutil check` finds nothing wrong with a sound document: random graphs of every kind of relationship, edited,
/// undone, redone and saved round after round (objects deleted, lists reordered, links moved) in each store type,
/// check clean — no reference, inverse, order or key the check reads differently from how the store wrote it.
struct RandomCheckTests {
    @Test(arguments: Kind.all)
    func aRandomDocumentChecksClean(kind: Kind) throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...3 {
            var random = RandomGraph.Generator(state: seed &* 8_191)
            var counter = 0
            let (document, url) = try RandomDocumentTests.randomDocument(
                "checked.\(kind.ext)", kind.type, model: model, rounds: 2, &random, counter: &counter)
            let context = document.managedObjectContext
            for round in 0..<6 {
                try RandomGraph.edit(context, &random, counter: &counter)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: context.undo()
                case 1:
                    context.undo()
                    context.redo()
                default: break
                }
                try document.save()
                let report = try DocumentCheck.check(url)
                #expect(
                    report.isSound,
                    "\(kind), seed \(seed), round \(round): \(report.problems.prefix(5).map { "\($0)" })")
                if !report.isSound { break }
            }
            try document.close()
        }
    }
}
