import Documents
import Foundation
import ObjectGraph

/// How an editing session prints.
enum SessionFormat: String, CaseIterable {
    case text, json
}

/// The commands of `docutil open`, run one line at a time against one document. Each command that changes the
/// document is one undo step, named after the command; a command that fails changes nothing.
final class EditingSession {
    let document: PersistentDocument
    let format: SessionFormat
    /// Objects inserted in this session by their short references (`Entity/t3`), which keep naming them after a save
    /// gives them permanent IDs.
    private var temporaryRefs: [String: ManagedObject] = [:]
    /// Set by `quit`.
    private(set) var quitRequested = false
    private let write: (String) -> Void
    private let warn: (String) -> Void

    init(
        document: PersistentDocument, format: SessionFormat, write: @escaping (String) -> Void,
        warn: @escaping (String) -> Void
    ) {
        self.document = document
        self.format = format
        self.write = write
        self.warn = warn
    }

    var context: ManagedObjectContext { document.managedObjectContext }
    var model: ManagedObjectModel { document.coordinator.model }

    static let help: [(String, String)] = [
        ("entities", "entity names with object counts"),
        ("list ENTITY [where PREDICATE] [sort KEY[,-KEY...]] [limit N]", "matching objects (sub-entities included)"),
        ("show REF...", "every property of those objects"),
        ("insert ENTITY [KEY=VALUE...]", "a new object; prints its reference"),
        (
            "set REF KEY=VALUE...",
            "change attributes or relationships (a to-one takes REF or nil, a to-many {REF, ...})"
        ),
        ("add REF KEY REF...", "add objects to a to-many relationship"),
        ("remove REF KEY REF...", "remove objects from a to-many relationship"),
        ("update ENTITY [where PREDICATE] set KEY=VALUE...", "change many objects in one step; prints how many"),
        ("delete REF...", "delete objects (delete rules apply)"),
        ("undo [N], redo [N]", "undo or redo the last N commands"),
        ("status", "path, store type, edited, unsaved inserts/updates/deletes, undo and redo"),
        ("save [--force]", "save in place (--force: over changes made on disk)"),
        ("save-as PATH [--type T] [--force] [--package|--file]", "save as another file; the document moves there"),
        (
            "save-copy PATH [--type T] [--force] [--package|--file]",
            "write the current state elsewhere; the document stays"
        ),
        ("revert", "discard unsaved changes and read the file again"),
        ("autosave", "write the unsaved changes to the autosave sidecar now"),
        ("recover", "lay an autosaved version over the document"),
        ("discard-autosave", "remove the autosaved version"),
        ("help", "this list"),
        ("quit [--discard]", "end the session (--discard: with unsaved changes)"),
    ]

    // MARK: - Running one line

    /// Runs one line. Blank lines and `#` comments do nothing.
    func run(_ line: String) throws(SessionError) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return }
        var words = try SessionWords.split(trimmed)
        let verb = words.removeFirst()
        do {
            try dispatch(verb, words, line: trimmed)
        } catch let error as SessionError {
            throw error
        } catch let error as DocumentError {
            throw SessionError(error.code.rawValue, error.message)
        } catch {
            throw SessionError(ExitStatus.code(for: error), String(describing: error))
        }
    }

    private func dispatch(_ verb: String, _ words: [String], line: String) throws {
        switch verb {
        case "entities": try entities(words)
        case "list": try list(words)
        case "show": try show(words)
        case "insert": try changing(line) { try insert(words) }
        case "set": try changing(line) { try set(words) }
        case "add": try changing(line) { try relate(words, adding: true) }
        case "remove": try changing(line) { try relate(words, adding: false) }
        case "update": try update(words, line: line)
        case "delete": try changing(line) { try delete(words) }
        case "undo": try step(words, undo: true)
        case "redo": try step(words, undo: false)
        case "status": try noArguments(words, verb).status()
        case "save":
            let (flags, rest) = try options(words, flags: ["--force"], values: [])
            guard rest.isEmpty else { throw SessionError.usage("save takes no arguments but --force") }
            try document.save(force: flags.contains("--force"))
        case "save-as", "save-copy":
            let (flags, values, path) = try pathCommand(words, verb)
            let type = try documentType(values["--type"], path)
            if flags.contains("--package") && flags.contains("--file") {
                throw SessionError.usage("--package or --file, not both")
            }
            let package: Bool? = flags.contains("--package") ? true : flags.contains("--file") ? false : nil
            if verb == "save-as" {
                try document.saveAs(to: path, ofType: type, force: flags.contains("--force"), asPackage: package)
                temporaryRefs = temporaryRefs.filter { $0.value.managedObjectContext != nil }
            } else {
                try document.saveCopy(to: path, ofType: type, force: flags.contains("--force"), asPackage: package)
            }
        case "revert":
            try noArguments(words, verb)
            try document.revert()
            temporaryRefs = [:]
        case "autosave":
            try noArguments(words, verb)
            try document.autosave()
        case "recover":
            try noArguments(words, verb)
            let recovery = try document.recoverAutosave()
            for warning in recovery.warnings { warn("warning: \(warning)") }
            emit(
                "recovered: \(recovery.inserted) inserted, \(recovery.updated) updated, \(recovery.deleted) deleted",
                json: .object([
                    ("inserted", .int(Int64(recovery.inserted))), ("updated", .int(Int64(recovery.updated))),
                    ("deleted", .int(Int64(recovery.deleted))),
                    ("warnings", .array(recovery.warnings.map { .string($0) })),
                ]))
        case "discard-autosave":
            try noArguments(words, verb)
            try document.discardAutosave()
        case "help":
            // The usage column is as wide as its longest entry: padding(toLength:) would cut longer ones.
            let width = Self.help.map(\.0.count).max() ?? 0
            emit(
                Self.help.map { "  \($0.0 + String(repeating: " ", count: width - $0.0.count)) \($0.1)" }.joined(
                    separator: "\n"),
                json: .object([
                    (
                        "commands",
                        .array(Self.help.map { .object([("usage", .string($0.0)), ("does", .string($0.1))]) })
                    )
                ]))
        case "quit", "exit":
            let (flags, rest) = try options(words, flags: ["--discard"], values: [])
            guard rest.isEmpty else { throw SessionError.usage("quit takes no arguments but --discard") }
            if document.isEdited && !flags.contains("--discard") {
                throw SessionError.usage("the document has unsaved changes: save them, or quit --discard")
            }
            quitRequested = true
        default:
            throw SessionError.usage("unknown command '\(verb)' (try help)")
        }
    }

    // MARK: - Reading

    private func entities(_ words: [String]) throws {
        try noArguments(words, "entities")
        var rows: [(String, Int)] = []
        for name in model.entityNames.sorted() {
            var request = FetchRequest(entityName: name)
            request.includesSubentities = false
            rows.append((name, try context.count(for: request)))
        }
        emit(
            rows.map { "\($0.0) \($0.1)" }.joined(separator: "\n"),
            json: .object([
                ("entities", .array(rows.map { .object([("name", .string($0.0)), ("count", .int(Int64($0.1)))]) }))
            ]))
    }

    private func list(_ words: [String]) throws {
        guard let entity = words.first else { throw SessionError.usage("list ENTITY [where …] [sort …] [limit N]") }
        let request = try fetchRequest(entity, Array(words.dropFirst()), allowed: ["where", "sort", "limit"])
        let objects = try context.fetch(request)
        let ordered = request.sortDescriptors.isEmpty ? objects.sorted(by: Self.inKeyOrder) : objects
        emit(
            try ordered.map(summary).joined(separator: "\n"),
            json: .object([("objects", .array(try ordered.map { try ObjectOutput.json($0) }))]), skipEmptyText: true)
    }

    private func show(_ words: [String]) throws {
        guard !words.isEmpty else { throw SessionError.usage("show REF...") }
        let objects = try words.map(object)
        emit(
            try objects.map(detail).joined(separator: "\n"),
            json: .object([("objects", .array(try objects.map { try ObjectOutput.json($0) }))]))
    }

    private func status() throws {
        let (inserted, updated, deleted) = context.changeCounts
        let undo = context.undoManager
        let undoName = undo?.canUndo == true ? undo?.undoActionName : nil
        let redoName = undo?.canRedo == true ? undo?.redoActionName : nil
        let path = document.fileURL?.path
        emit(
            """
            path: \(path ?? "(untitled)")
            type: \(document.storeType)
            edited: \(document.isEdited ? "yes" : "no")
            inserted: \(inserted)
            updated: \(updated)
            deleted: \(deleted)
            undo: \(undoName ?? "-")
            redo: \(redoName ?? "-")
            """,
            json: .object([
                ("path", path.map { .string($0) } ?? .null), ("storeType", .string(document.storeType)),
                ("edited", .bool(document.isEdited)), ("inserted", .int(Int64(inserted))),
                ("updated", .int(Int64(updated))), ("deleted", .int(Int64(deleted))),
                ("undo", undoName.map { .string($0) } ?? .null), ("redo", redoName.map { .string($0) } ?? .null),
            ]))
    }

    // MARK: - Changing

    /// Runs a change as one undo step named after the command; a failure undoes whatever the command did.
    private func changing(_ name: String, _ body: () throws -> Void) throws {
        context.processPendingChanges()
        let undo = context.undoManager
        let failures = context.pendingFailures.count
        undo?.beginUndoGrouping()
        do {
            try body()
            // Delete rules run here, inside the step.
            context.processPendingChanges()
            if let failure = context.pendingFailures.dropFirst(failures).first {
                throw SessionError.badValue(failure.description)
            }
            undo?.setActionName(name.count > 80 ? String(name.prefix(77)) + "..." : name)
            undo?.endUndoGrouping()
            context.processPendingChanges()
        } catch {
            undo?.undoNestedGroup()
            context.processPendingChanges()
            context.forgetPendingFailures(after: failures)
            throw error
        }
    }

    private func insert(_ words: [String]) throws {
        guard let entity = words.first else { throw SessionError.usage("insert ENTITY [KEY=VALUE...]") }
        guard model.entity(named: entity) != nil else { throw unknownEntity(entity) }
        let object = try context.insertNewObject(forEntityName: entity)
        for word in words.dropFirst() {
            let (key, value) = try SessionWords.assignment(word)
            try assign(value, to: key, of: object)
        }
        let name = ref(object)
        temporaryRefs[name] = object
        emit(
            name,
            json: .object([("ref", .string(name)), ("uri", .string(object.objectID.uriString))]))
    }

    private func set(_ words: [String]) throws {
        guard words.count >= 2 else { throw SessionError.usage("set REF KEY=VALUE...") }
        let target = try object(words[0])
        for word in words.dropFirst() {
            let (key, value) = try SessionWords.assignment(word)
            try assign(value, to: key, of: target)
        }
    }

    private func relate(_ words: [String], adding: Bool) throws {
        guard words.count >= 3 else { throw SessionError.usage("\(adding ? "add" : "remove") REF KEY REF...") }
        let owner = try object(words[0])
        let key = words[1]
        guard let relationship = owner.entity.relationships.first(where: { $0.name == key }) else {
            throw SessionError.badValue("\(owner.entity.name) has no relationship '\(key)'")
        }
        guard relationship.isToMany else {
            throw SessionError.badValue("\(owner.entity.name).\(key) is a to-one relationship: use set")
        }
        let set = try owner.mutableObjects(forKey: key)
        for word in words.dropFirst(2) {
            let destination = try object(word)
            if adding { try set.add(destination) } else { try set.remove(destination) }
        }
    }

    private func update(_ words: [String], line: String) throws {
        guard let entity = words.first, let setIndex = words.firstIndex(of: "set"), setIndex > 0,
            setIndex < words.count - 1
        else { throw SessionError.usage("update ENTITY [where PREDICATE] set KEY=VALUE...") }
        let request = try fetchRequest(entity, Array(words[1..<setIndex]), allowed: ["where"])
        var count = 0
        try changing(line) {
            for object in try context.fetch(request) {
                for word in words[(setIndex + 1)...] {
                    let (key, value) = try SessionWords.assignment(word)
                    try assign(value, to: key, of: object)
                }
                count += 1
            }
        }
        emit("\(count) updated", json: .object([("updated", .int(Int64(count)))]))
    }

    private func delete(_ words: [String]) throws {
        guard !words.isEmpty else { throw SessionError.usage("delete REF...") }
        for object in try words.map(object) { try context.delete(object, applyingDeleteRules: true) }
    }

    private func step(_ words: [String], undo: Bool) throws {
        let verb = undo ? "undo" : "redo"
        guard words.count <= 1 else { throw SessionError.usage("\(verb) [N]") }
        let count =
            try words.first.map { word throws(SessionError) -> Int in
                guard let n = Int(word), n > 0 else { throw .usage("\(verb) N: N is a positive number") }
                return n
            } ?? 1
        context.processPendingChanges()
        guard let manager = context.undoManager else { throw SessionError.usage("undo is off") }
        for done in 0..<count {
            guard undo ? manager.canUndo : manager.canRedo else {
                throw SessionError.usage(
                    done == 0 ? "nothing to \(verb)" : "only \(done) step(s) to \(verb); \(done) \(verb)ne")
            }
            if undo { context.undo() } else { context.redo() }
        }
        if let failure = context.pendingFailures.first {
            throw SessionError.badValue("\(verb) could not be completed: \(failure.description)")
        }
    }

    // MARK: - Values and references

    /// Sets `key` of `object` from the text after `=`: a literal for an attribute (strings parse as the attribute's
    /// type), REF or nil for a to-one, `{REF, ...}` for a to-many.
    private func assign(_ text: String, to key: String, of object: ManagedObject) throws {
        let layout = object.entity
        if let index = layout.attributeSlot(named: key) {
            let attribute = layout.attributes[index]
            try object.setAttributeValue(try attributeValue(text, for: attribute, of: layout.name), forKey: key)
        } else if let relationship = layout.relationships.first(where: { $0.name == key }) {
            if relationship.isToMany {
                try object.setObjects(try objects(inSet: text), forKey: key)
            } else {
                try object.setObject(text == "nil" ? nil : try self.object(text), forKey: key)
            }
        } else {
            throw SessionError.badValue("\(layout.name) has no property '\(key)'")
        }
    }

    private func attributeValue(_ text: String, for attribute: AttributeDescription, of entity: String) throws
        -> AttributeValue
    {
        let constant: PredicateConstant
        do {
            guard case .constant(let value) = try ObjectExpression(format: text) else {
                throw SessionError.badValue(
                    "\(entity).\(attribute.name): '\(text)' is not a literal (use 42, 4.5, 'text', YES, NO, nil or CAST(…))"
                )
            }
            constant = value
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError.badValue(
                "\(entity).\(attribute.name): '\(text)' is not a literal (use 42, 4.5, 'text', YES, NO, nil or CAST(…))"
            )
        }
        switch constant {
        case .double(let d)
        where attribute.type == .float && d.isFinite
            && abs(d) <= Double(Float.greatestFiniteMagnitude):
            // A decimal literal typed for a Float attribute means the nearest Float.
            return .float(Float(d))
        case .array:
            throw SessionError.badValue("\(entity).\(attribute.name): a list is not an attribute value")
        default:
            break
        }
        let value = AttributeValue(constant: constant)
        do {
            return try value.converted(to: attribute.type)
        } catch {
            throw SessionError.badValue("\(entity).\(attribute.name): \(error)")
        }
    }

    private func objects(inSet text: String) throws -> [ManagedObject] {
        guard text.hasPrefix("{"), text.hasSuffix("}") else { return [try object(text)] }
        let inner = text.dropFirst().dropLast()
        // (`{}` is no object; an empty element, as in `{a,,b}`, is a reference that is not there.)
        guard !inner.allSatisfy(\.isWhitespace) else { return [] }
        return try inner.split(separator: ",", omittingEmptySubsequences: false).map {
            try object($0.trimmingCharacters(in: .whitespaces))
        }
    }

    /// The object a reference names: a URI, `Entity/p12` (saved) or `Entity/t3` (inserted in this session).
    private func object(_ text: String) throws -> ManagedObject {
        if text.hasPrefix("x-coredata:") {
            guard let url = URL(string: text), let id = ManagedObjectID(uriRepresentation: url) else {
                throw SessionError.badValue("'\(text)' is not an object URI")
            }
            if id.isTemporary, let object = temporary("\(id.entityName)/t\(id.temporaryIdentifier ?? 0)") {
                return object
            }
            return try existing(id, text)
        }
        guard let slash = text.lastIndex(of: "/"), slash != text.startIndex else {
            throw SessionError.badValue("'\(text)' is not an object reference (Entity/p12, Entity/t3 or a URI)")
        }
        let entity = String(text[..<slash])
        let key = text[text.index(after: slash)...]
        guard model.entity(named: entity) != nil else { throw unknownEntity(entity) }
        switch key.first {
        case "p":
            guard let number = Int64(key.dropFirst()), number > 0, let store = document.persistentStore else {
                throw SessionError.badValue("'\(text)' is not an object reference")
            }
            return try existing(
                ManagedObjectID(entityName: entity, storeIdentifier: store.identifier, primaryKey: number), text)
        case "t":
            guard let object = temporary(text) else { throw SessionError.badValue("no object \(text) in this session") }
            return object
        default:
            throw SessionError.badValue("'\(text)' is not an object reference (Entity/p12, Entity/t3 or a URI)")
        }
    }

    private func temporary(_ ref: String) -> ManagedObject? {
        if let object = temporaryRefs[ref], object.managedObjectContext != nil, !object.isDeleted { return object }
        return context.insertedObjects.first { self.ref($0) == ref }
    }

    private func existing(_ id: ManagedObjectID, _ text: String) throws -> ManagedObject {
        do {
            let object = try context.existingObject(with: id)
            if object.isDeleted { throw SessionError.badValue("\(text) is deleted") }
            return object
        } catch let error as SessionError {
            throw error
        } catch {
            if case .object(let failure)? = error as? ContextError, failure.code == .objectNotFound {
                throw SessionError.badValue("no object \(text)")
            }
            throw error
        }
    }

    /// The short reference of an object: `Entity/p12`, or `Entity/t3` while it is unsaved.
    func ref(_ object: ManagedObject) -> String {
        let id = object.objectID
        if let number = id.temporaryIdentifier { return "\(id.entityName)/t\(number)" }
        return "\(id.entityName)/p\(id.primaryKey)"
    }

    // MARK: - Helpers

    private func fetchRequest(_ entity: String, _ words: [String], allowed: Set<String>) throws -> FetchRequest {
        guard model.entity(named: entity) != nil else { throw unknownEntity(entity) }
        var request = FetchRequest(entityName: entity)
        var i = 0
        var seen: Set<String> = []
        while i < words.count {
            let clause = words[i]
            guard allowed.contains(clause), !seen.contains(clause) else {
                throw SessionError.usage(
                    "unexpected '\(clause)' (expected \(allowed.sorted().joined(separator: ", ")))")
            }
            seen.insert(clause)
            var j = i + 1
            while j < words.count && !allowed.contains(words[j]) { j += 1 }
            let text = words[(i + 1)..<j].joined(separator: " ")
            guard !text.isEmpty else { throw SessionError.usage("\(clause) needs a value") }
            switch clause {
            case "where":
                do {
                    request.predicate = try ObjectPredicate(format: text)
                } catch {
                    throw SessionError.badValue("predicate \(error.description)")
                }
            case "sort":
                let keys = text.split(separator: ",", omittingEmptySubsequences: false).map {
                    String($0).trimmingCharacters(in: .whitespaces)
                }
                guard !keys.contains(where: { $0.isEmpty || $0 == "-" }) else {
                    throw SessionError.usage("sort K[,-K…]: '\(text)' has an empty key")
                }
                request.sortDescriptors = keys.map { ObjectSortDescriptor(parsing: $0) }
            default:
                guard let limit = Int(text), limit >= 0 else { throw SessionError.usage("limit N: N is a number") }
                request.fetchLimit = limit
            }
            i = j
        }
        return request
    }

    private func pathCommand(_ words: [String], _ verb: String) throws(SessionError) -> (
        Set<String>, [String: String], URL
    ) {
        let (flags, values, rest) = try options(words, flags: ["--force", "--package", "--file"], valued: ["--type"])
        guard rest.count == 1 else { throw .usage("\(verb) PATH [--type T] [--force] [--package|--file]") }
        guard rest[0] != "-" else { throw .usage("\(verb) writes a file: '-' (standard output) is not one") }
        return (flags, values, URL(fileURLWithPath: rest[0]))
    }

    private func documentType(_ name: String?, _ url: URL) throws(SessionError) -> DocumentType? {
        guard let name else { return nil }
        guard let type = DocumentTypeRegistry.type(forName: name, url: url) else {
            throw .usage(
                "unknown type '\(name)' (one of \(DocumentTypeRegistry.types.map { $0.name.lowercased() }.joined(separator: ", ")))"
            )
        }
        return type
    }

    private func options(_ words: [String], flags known: Set<String>, values: Set<String>) throws(SessionError) -> (
        Set<String>, [String]
    ) {
        let (flags, _, rest) = try options(words, flags: known, valued: values)
        return (flags, rest)
    }

    private func options(_ words: [String], flags known: Set<String>, valued: Set<String>) throws(SessionError) -> (
        Set<String>, [String: String], [String]
    ) {
        var flags: Set<String> = []
        var values: [String: String] = [:]
        var rest: [String] = []
        var i = 0
        while i < words.count {
            let word = words[i]
            if known.contains(word) {
                flags.insert(word)
            } else if valued.contains(word) {
                guard i + 1 < words.count else { throw .usage("\(word) needs a value") }
                values[word] = words[i + 1]
                i += 1
            } else if word.hasPrefix("--") {
                throw .usage("unknown option \(word)")
            } else {
                rest.append(word)
            }
            i += 1
        }
        return (flags, values, rest)
    }

    @discardableResult
    private func noArguments(_ words: [String], _ verb: String) throws(SessionError) -> EditingSession {
        guard words.isEmpty else { throw .usage("\(verb) takes no arguments") }
        return self
    }

    private func unknownEntity(_ name: String) -> SessionError {
        .badValue(
            "the document has no entity '\(name)' (it has: \(model.entityNames.sorted().joined(separator: ", ")))")
    }

    private static func inKeyOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        let (x, y) = (a.objectID, b.objectID)
        if x.entityName != y.entityName { return x.entityName < y.entityName }
        if x.isTemporary != y.isTemporary { return !x.isTemporary }
        return (x.primaryKey, x.temporaryIdentifier ?? 0) < (y.primaryKey, y.temporaryIdentifier ?? 0)
    }

    /// One line: the reference and the attributes.
    private func summary(_ object: ManagedObject) throws -> String {
        var parts = [ref(object)]
        for attribute in object.entity.attributes where !attribute.isTransient {
            parts.append("\(attribute.name)=\(ObjectOutput.text(try object.attributeValue(forKey: attribute.name)))")
        }
        return parts.joined(separator: " ")
    }

    /// Every property, one per line.
    private func detail(_ object: ManagedObject) throws -> String {
        var lines = [ref(object)]
        for attribute in object.entity.attributes.sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
            lines.append(
                "  \(attribute.name) = \(ObjectOutput.text(try object.attributeValue(forKey: attribute.name)))")
        }
        for relationship in object.entity.relationships.sorted(by: { $0.name < $1.name })
        where !relationship.isTransient {
            if relationship.isToMany {
                let destinations = try ObjectOutput.destinations(object, relationship).map(ref)
                lines.append("  \(relationship.name) -> {\(destinations.joined(separator: ", "))}")
            } else {
                let destination = try object.object(forKey: relationship.name)
                lines.append("  \(relationship.name) -> \(destination.map(ref) ?? "nil")")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Prints a result: text as it is (nothing for empty text when `skipEmptyText`), or one line of JSON.
    private func emit(_ text: String, json: JSONValue, skipEmptyText: Bool = false) {
        switch format {
        case .text:
            if skipEmptyText && text.isEmpty { return }
            write(text)
        case .json:
            write(json.serialized(compact: true))
        }
    }
}
