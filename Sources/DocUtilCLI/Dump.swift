import ArgumentParser
import Documents
import Foundation
import ObjectGraph

/// `docutil dump DOC`: every object of a document.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every object of a document (or of one entity) as JSON, CSV or text.")

    @Argument(help: "The document (XML or binary store).")
    var document: String

    @Option(help: "Only objects of this entity (and its sub-entities).")
    var entity: String?

    @Option(help: "Output format: json, csv or text.")
    var format: ObjectFormat = .json

    @OptionGroup var options: DocumentOptions

    func run() throws {
        try reportingErrors {
            let opened = try options.open(document)
            let names =
                try entity.map { name -> [String] in
                    guard opened.model.entity(named: name) != nil else {
                        throw DocumentError(
                            .badData,
                            "the document has no entity '\(name)' (it has: \(opened.model.entityNames.joined(separator: ", ")))"
                        )
                    }
                    return [name]
                } ?? opened.model.entities.filter { $0.parentName == nil }.map(\.name)
            var objects: [ManagedObject] = []
            for name in names { objects += try opened.context.fetch(FetchRequest(entityName: name)) }
            FileHandle.standardOutput.write(Data(ObjectOutput.render(ObjectOutput.sorted(objects), as: format).utf8))
        }
    }
}
