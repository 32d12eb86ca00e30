import Foundation
import FuzzSupport
import ObjectGraph

/// The predicate parser, printer and evaluator: any text parses or fails with a syntax error; what parses prints
/// to text that parses to the same tree, and evaluates (or fails with an error) against a row and a managed object.
func row() -> PredicateValue {
    .dictionary([
        "name": .string("Ann"), "age": .integer(42), "ratio": .double(0.5),
        "when": .date(Date(timeIntervalSinceReferenceDate: 1)),
        "tags": .collection([.string("a"), .string("b")], ordered: false),
        "items": .collection([.dictionary(["n": .integer(1)]), .dictionary(["n": .integer(2)])], ordered: true),
    ])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let predicate = try? ObjectPredicate(format: text) else { return 0 }
    let printed = predicate.format
    do {
        let again = try ObjectPredicate(format: printed)
        if again != predicate { fatalError("round trip changed the predicate: \(text) → \(printed)") }
    } catch {
        // Printing may add parentheses; a tree at the nesting limit may then print past it. Anything else is a bug.
        if !error.expected.contains("less nesting") {
            fatalError("the printed predicate does not parse: \(text) → \(printed): \(error)")
        }
    }
    _ = try? predicate.evaluate(with: row(), variables: ["x": .integer(1), "s": .string("q")])
    _ = try? FuzzSupport.model.validateKeyPaths(of: predicate, entity: "Item")
    return 0
}
