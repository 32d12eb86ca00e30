import ArgumentParser
import Documents
import Foundation
import ObjectGraph

/// `docutil query DOC --entity E`: a fetch request from the command line.
struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch objects with a predicate in Apple's format, sorted and limited.",
        discussion: """
            Sub-entities are included. --sort takes KEY or -KEY (descending), several separated by commas \
            (--sort -salary,name). \
            --var NAME=VALUE substitutes $NAME with a literal (70, 'x', YES). Output is the same as 'dump'.
            """)

    @Argument(help: "The document (XML, binary or SQLite store; '-' reads it from standard input).")
    var document: String

    @Option(help: "The entity to fetch.")
    var entity: String

    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: "A predicate, e.g. \"pages > $min AND title BEGINSWITH[c] 'd'\".")
    var predicate: String?

    @Option(help: "The name of a fetch request template in the model.")
    var template: String?

    @Option(
        name: .customLong("var"), parsing: .unconditionalSingleValue,
        help: "A substitution variable, NAME=VALUE (repeatable).")
    var variables: [String] = []

    @Option(parsing: .unconditional, help: "Sort keys: KEY or -KEY (descending), separated by commas.")
    var sort: String?

    @Option(parsing: .unconditional, help: "The most objects to return.")
    var limit: Int?

    @Option(parsing: .unconditional, help: "How many objects to skip.")
    var offset: Int?

    @Option(help: "Output format: json, csv or text.")
    var format: ObjectFormat = .json

    @Flag(
        help:
            "Show stored values that do not fit their attributes as they are (with a warning each) instead of failing.")
    var lenient = false

    @OptionGroup var options: DocumentOptions

    func validate() throws {
        if predicate != nil && template != nil { throw ValidationError("give --where or --template, not both") }
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let offset, offset < 0 { throw ValidationError("--offset must not be negative") }
        if let sort,
            sort.split(separator: ",", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "-" })
        {
            throw ValidationError("--sort '\(sort)' has an empty key (give KEY[,-KEY…])")
        }
    }

    func run() throws {
        let values = try VariableArguments.parse(variables)
        var parsed: ObjectPredicate?
        if let predicate {
            do {
                parsed = try ObjectPredicate(format: predicate)
            } catch {
                printError("--where: predicate \(error.description)")
                throw ExitCode(ExitStatus.badData)
            }
        }
        if let parsed { try VariableArguments.checkUsed(values, by: parsed.variableNames) }
        if predicate == nil && template == nil && !values.isEmpty {
            throw ValidationError("--var needs --where or --template (a predicate with variables)")
        }
        try reportingErrors {
            let opened = try options.open(document, lenient: lenient)
            defer { DocumentOptions.reportValueWarnings(opened, path: document) }
            guard opened.model.entity(named: entity) != nil else {
                throw DocumentError(
                    .badData,
                    "the document has no entity '\(entity)' (it has: \(opened.model.entityNames.joined(separator: ", ")))"
                )
            }
            var request: FetchRequest
            if let template {
                // The template's own variables (a template that cannot be read is the same error the request gives).
                let stored = try opened.model.parsedTemplate(named: template).1
                try VariableArguments.checkUsed(values, by: stored?.variableNames ?? [])
                request = try opened.model.fetchRequest(fromTemplate: template, substitutionVariables: values)
                request.resultType = .managedObject
            } else {
                request = FetchRequest(entityName: entity)
                if let parsed { request.predicate = try parsed.substituting(values) }
            }
            request.sortDescriptors = (sort ?? "").split(separator: ",").map {
                ObjectSortDescriptor(parsing: String($0))
            }
            if let limit { request.fetchLimit = limit }
            if let offset { request.fetchOffset = offset }
            // The matches' rows, read as SQL finds them (the document is read-only: nothing unsaved to merge); then
            // a batch at a time, their to-many relationships read on another thread while the batch before is made
            // into objects and written (as `dump` does).
            let matches = try opened.context.storedSnapshots(for: request)
            let snapshots = request.sortDescriptors.isEmpty ? Self.byEntityAndKey(matches) : matches
            let coordinator = opened.context.persistentStoreCoordinator
            let output = OutputFile.standardOutput
            // (Only CSV has columns: the entities' names are not gathered for the other formats.)
            var stream = ObjectStream(
                format: format,
                csvColumns: format == .csv
                    ? ObjectOutput.csvColumns(entities: Set(snapshots.map(\.objectID.entityName)), model: opened.model)
                    : [])
            try output.write(stream.begin())
            try BatchedObjects.write(
                count: snapshots.count,
                reading: { range throws(StoreError) in
                    let batch = Array(snapshots[range])
                    return (batch.map(\.objectID), try coordinator.wholeSnapshots(completing: batch))
                }, of: opened, through: &stream, to: output)
            try output.write(stream.end())
        }
    }

    /// `matches` by entity name, then key: the order `query` lists objects in when no sort is given. The rows of a
    /// table come in key order, so the usual list (one entity, or entities in runs already in this order) is checked
    /// in one pass and kept as it is; any other is sorted by each entity's place among the names and the key, numbers
    /// compared rather than names (a name is looked up only where it differs from the row before's).
    static func byEntityAndKey(_ matches: [ObjectSnapshot]) -> [ObjectSnapshot] {
        var places: [String: Int] = [:]
        var names: [String] = []
        var entity: [Int] = []
        var key: [Int64] = []
        entity.reserveCapacity(matches.count)
        key.reserveCapacity(matches.count)
        var last: (name: String, place: Int)? = nil
        for match in matches {
            let id = match.objectID
            key.append(id.primaryKey)
            let name = id.entityName
            if let last, last.name == name {
                entity.append(last.place)
                continue
            }
            let place: Int
            if let known = places[name] {
                place = known
            } else {
                place = names.count
                places[name] = place
                names.append(name)
            }
            entity.append(place)
            last = (name, place)
        }
        // Each name's place in name order.
        var rank = [Int](repeating: 0, count: names.count)
        for (position, place) in names.indices.sorted(by: { names[$0] < names[$1] }).enumerated() {
            rank[place] = position
        }
        func precedes(_ a: Int, _ b: Int) -> Bool {
            (rank[entity[a]], key[a]) < (rank[entity[b]], key[b])
        }
        if matches.indices.dropFirst().allSatisfy({ !precedes($0, $0 - 1) }) { return matches }
        guard matches.indices.dropFirst().allSatisfy({ key[$0 - 1] <= key[$0] }) else {
            return matches.indices.sorted(by: precedes).map { matches[$0] }
        }
        // Keys in order, entities interleaved (a table's rows of several sub-entities, in key order): each entity's
        // rows are already in key order, so the rows go to their entity's run in the order they come (a stable
        // counting sort), in one pass rather than a sort.
        var start = [Int](repeating: 0, count: names.count + 1)
        for place in entity { start[rank[place] + 1] += 1 }
        for position in names.indices { start[position + 1] += start[position] }
        var order = [Int](repeating: 0, count: matches.count)
        for (i, place) in entity.enumerated() {
            order[start[rank[place]]] = i
            start[rank[place]] += 1
        }
        return order.map { matches[$0] }
    }
}
