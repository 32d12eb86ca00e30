public import Foundation
public import ObjectGraph

/// Where importers put what they read: it finds the entity of each source, turns records into objects (values
/// parsed by attribute type, to-ones matched by key, nested objects created), collects every problem with its
/// place, links objects to ones read later or already in the document, and — for a large import into a new SQLite
/// document — saves and lets go of objects batch by batch so that memory stays bounded.
///
/// Importers throw at once for input they cannot read on (malformed CSV or JSON) and report value problems with
/// ``problem(_:at:in:)`` so that every one is listed; ``finish()`` throws if there were any.
public final class ImportTarget {
    /// The context objects are inserted into.
    public let context: ManagedObjectContext
    /// The options of the import.
    public let options: ImportOptions
    /// The model.
    public var model: ManagedObjectModel { context.model }
    /// Objects inserted so far.
    public private(set) var insertedCount = 0
    /// Records read so far (top-level objects).
    public private(set) var recordCount = 0

    /// Save and let go every this many inserted objects (`nil`: keep everything in the context).
    let batchSize: Int?
    private(set) var problems: [String] = []
    private(set) var problemCount = 0
    static let problemsListed = 100

    /// Where each object of the current batch was read (for validation messages).
    private var origins: [ManagedObjectID: Origin] = [:]
    /// The paths of the sources read so far (an ``Origin`` names one by its index).
    private var files: [String] = []
    private var lastFile: URL?
    /// Handles of objects still in the context (made permanent and let go at a checkpoint).
    private var liveHandles: [Handle] = []
    private var sinceCheckpoint = 0
    private var indexes: [IndexKey: [AttributeValue: IndexEntry]] = [:]
    private var indexedAttributes: [String: [IndexKey]] = [:]
    private var pendingKeyLinks: [KeyLink] = []
    private var uriHandles: [String: Handle] = [:]
    private var pendingURILinks: [URILink] = []
    private var columnCache: [String: [String: Column]] = [:]
    private var reportedUnknown = Set<String>()
    /// Objects whose values are still being set (kept out of an index built meanwhile; they join when finished).
    private var building = Set<ObjectIdentifier>()
    private let started = Date()
    private var lastProgress = Date.distantPast

    /// Creates a target filling `context`.
    /// - Parameters:
    ///   - context: the context objects are inserted into.
    ///   - options: the entity, mapping and format of the sources, and a progress handler.
    ///   - batchSize: save the context and let go of its objects every this many objects (only for a context whose
    ///     store is a new file that is thrown away if the import fails).
    public init(context: ManagedObjectContext, options: ImportOptions, batchSize: Int? = nil) {
        self.context = context
        self.options = options
        self.batchSize = batchSize
    }

    // MARK: - Problems

    /// Records a problem with the input; the import goes on reading (to list every problem) and then fails.
    /// - Parameters:
    ///   - message: what is wrong.
    ///   - place: where it is in the source.
    ///   - file: the source.
    public func problem(_ message: String, at place: ImportPlace, in file: URL) {
        problem("\(place.described(in: file.path)): \(message)")
    }

    func problem(_ line: String) {
        problemCount += 1
        if problems.count < Self.problemsListed { problems.append(line) }
    }

    /// The error listing every problem, if there were any.
    var failure: DocumentError? {
        guard problemCount > 0 else { return nil }
        var message = problems.joined(separator: "\n")
        if problemCount > problems.count { message += "\n… and \(problemCount - problems.count) more problems" }
        message += "\nnothing was imported (\(problemCount) problem\(problemCount == 1 ? "" : "s"))"
        return DocumentError(.badData, message)
    }

    // MARK: - Entities of sources

    /// The entity a whole file holds (CSV, TSV, a top-level array): the mapping's rule naming the file, else
    /// `--entity`, else the entity named like the file's base name (ignoring case).
    /// - Parameter url: the source.
    /// - Returns: the entity its records are objects of.
    /// - Throws: ``DocumentError`` `badData` when none is found, naming the entities there are.
    public func entity(forFile url: URL) throws(DocumentError) -> EntityLayout {
        if let rule = options.mapping?.rule(forSource: url.lastPathComponent)
            ?? options.mapping?.rule(
                forSource: url.path)
        {
            return try layout(named: rule.entity, for: url)
        }
        if let entity = options.entity { return try layout(named: entity, for: url) }
        let base = url.deletingPathExtension().lastPathComponent
        guard let name = entityName(matching: base) else {
            throw DocumentError(
                .badData,
                "\(url.path): no entity is named '\(base)' (name one with --entity or a mapping; the model has: \(model.entityNames.joined(separator: ", ")))"
            )
        }
        return try layout(named: name, for: url)
    }

    /// The entity a keyed part of a source holds (a top-level key of a JSON object or property list, `source`
    /// `key:K` in a mapping; a SQLite table, `table:T`): the mapping's rule, else the entity named so (ignoring case).
    /// Returns `nil` when no entity matches.
    /// - Parameters:
    ///   - key: the key or table name.
    ///   - prefix: `key:` or `table:`, as a mapping's `source` names such parts.
    ///   - url: the source, for messages.
    /// - Returns: the entity, or `nil`.
    /// - Throws: ``DocumentError`` `badData` when a mapping rule names an entity the model lacks.
    public func entity(forKey key: String, prefix: String, in url: URL) throws(DocumentError) -> EntityLayout? {
        if let rule = options.mapping?.rule(forSource: prefix + key) { return try layout(named: rule.entity, for: url) }
        guard let name = entityName(matching: key) else { return nil }
        return try layout(named: name, for: url)
    }

    func entityName(matching name: String) -> String? {
        let lowered = name.lowercased()
        return model.entityNames.first { $0.lowercased() == lowered }
    }

    func layout(named name: String, for url: URL) throws(DocumentError) -> EntityLayout {
        guard let layout = model.layout(of: name) else {
            throw DocumentError(
                .badData,
                "\(url.path): the model has no entity '\(name)' (it has: \(model.entityNames.joined(separator: ", ")))")
        }
        guard !layout.isAbstract else {
            throw DocumentError(.badData, "\(url.path): the entity \(name) is abstract; objects of it cannot be made")
        }
        return layout
    }

    // MARK: - Columns

    /// What a source column fills.
    enum Column {
        case attribute(AttributeDescription)
        /// Nested objects (JSON, property lists) or object URIs (dump format).
        case relationship(RelationshipDescription)
        /// A to-one filled with the destination whose attribute `key` equals the value.
        case byKey(RelationshipDescription, key: AttributeDescription)
        case ignored
        case unknown(String)
    }

    /// What the column `name` of a source of `entity` fills: the mapping's rule for the entity, else the property
    /// named so (ignoring case), else `relationship.key` for a to-one matched by key.
    func column(_ name: String, of entity: EntityLayout) -> Column {
        if let cached = columnCache[entity.name]?[name] { return cached }
        let resolved = resolveColumn(name, of: entity)
        columnCache[entity.name, default: [:]][name] = resolved
        return resolved
    }

    private func resolveColumn(_ name: String, of entity: EntityLayout) -> Column {
        let rule = options.mapping?.rule(forEntity: entity.name)
        let lowered = name.lowercased()
        if let rule {
            if rule.ignore.contains(name) { return .ignored }
            if let (attributeName, _) = rule.attributes.first(where: { $0.value == name }) {
                guard let attribute = entity.attributes.first(where: { $0.name == attributeName }) else {
                    return .unknown(
                        "the mapping names attribute '\(attributeName)', which \(entity.name) does not have")
                }
                return .attribute(attribute)
            }
            if let (relationshipName, target) = rule.relationships.first(where: { $0.value.source == name }) {
                return byKey(relationshipName, key: target.match, of: entity)
            }
        }
        if let attribute = entity.attributes.first(where: { $0.name.lowercased() == lowered }) {
            return .attribute(attribute)
        }
        if let relationship = entity.relationships.first(where: { $0.name.lowercased() == lowered }) {
            return .relationship(relationship)
        }
        if let dot = name.firstIndex(of: ".") {
            let relationshipName = String(name[..<dot])
            let key = String(name[name.index(after: dot)...])
            if let relationship = entity.relationships.first(where: {
                $0.name.lowercased() == relationshipName.lowercased()
            }) {
                return byKey(relationship.name, key: key, of: entity)
            }
        }
        let known = (entity.attributes.map(\.name) + entity.relationships.map(\.name)).sorted()
        return .unknown(
            "\(entity.name) has no property '\(name)'\(rule == nil ? "" : " and the mapping does not name it") (it has: \(known.joined(separator: ", ")))"
        )
    }

    private func byKey(_ relationshipName: String, key: String, of entity: EntityLayout) -> Column {
        guard let relationship = entity.relationships.first(where: { $0.name == relationshipName }) else {
            return .unknown("\(entity.name) has no relationship '\(relationshipName)'")
        }
        guard !relationship.isToMany else {
            return .unknown("\(entity.name).\(relationship.name) is to-many; only a to-one is filled by key")
        }
        guard let destination = model.layout(of: relationship.destinationEntityName),
            let attribute = destination.attributes.first(where: { $0.name.lowercased() == key.lowercased() })
        else {
            return .unknown("\(relationship.destinationEntityName) has no attribute '\(key)' to match")
        }
        return .byKey(relationship, key: attribute)
    }

    /// Reports the unknown columns of a header (once per file and column) and returns whether every column is
    /// known.
    func checkColumns(_ names: [(String, ImportPlace)], of entity: EntityLayout, in url: URL) -> [Column] {
        names.map { name, place in
            let resolved = column(name, of: entity)
            if case .unknown(let reason) = resolved { reportUnknown(reason, name: name, at: place, in: url) }
            return resolved
        }
    }

    private func reportUnknown(_ reason: String, name: String, at place: ImportPlace, in url: URL) {
        if reportedUnknown.insert(url.path + "\u{0}" + name).inserted {
            problem("unknown column '\(name)': \(reason)", at: place, in: url)
        }
    }

    // MARK: - Records

    /// Inserts one object of `entity` from named fields (a JSON object, a dictionary, a row): attributes parsed by
    /// type, `relationship.key` fields matched, nested objects under a relationship created. Problems are
    /// recorded; the object is inserted anyway so that later problems are found too.
    /// - Parameters:
    ///   - entity: the entity of the new object.
    ///   - fields: its fields, by the names the source uses.
    ///   - place: where the record is, for messages.
    ///   - url: the source.
    /// - Throws: ``DocumentError`` only when the context refuses the insert (an abstract entity); problems with values
    ///   are recorded instead.
    /// - Returns: the new object.
    @discardableResult
    public func insert(
        _ entity: EntityLayout, fields: [ImportField], at place: ImportPlace, in url: URL
    ) throws(DocumentError) -> ManagedObject {
        let object = try newObject(entity, at: place, in: url)
        for field in fields {
            let resolved = column(field.name, of: entity)
            if case .unknown(let reason) = resolved {
                reportUnknown(reason, name: field.name, at: field.node.place, in: url)
                continue
            }
            try apply(resolved, field.node, to: object, in: url)
        }
        try finishObject(object, entity)
        return object
    }

    /// Inserts one row of a table whose columns were resolved once (CSV, TSV, SQLite).
    func insertRow(
        _ entity: EntityLayout, columns: [Column], cells: [ImportNode], at place: ImportPlace, in url: URL
    ) throws(DocumentError) {
        let object = try newObject(entity, at: place, in: url)
        for (column, cell) in zip(columns, cells) {
            if case .unknown = column { continue }
            try apply(column, cell, to: object, in: url)
        }
        try finishObject(object, entity)
    }

    private func newObject(_ entity: EntityLayout, at place: ImportPlace, in url: URL) throws(DocumentError)
        -> ManagedObject
    {
        let object: ManagedObject
        do {
            object = try context.insertNewObject(forEntityName: entity.name)
        } catch {
            throw DocumentError(.badData, "\(place.described(in: url.path)): \(error)")
        }
        origins[object.objectID] = origin(place, url)
        building.insert(ObjectIdentifier(object))
        insertedCount += 1
        sinceCheckpoint += 1
        return object
    }

    /// After an object's values are set: it joins the key indexes built so far.
    private func finishObject(_ object: ManagedObject, _ entity: EntityLayout) throws(DocumentError) {
        building.remove(ObjectIdentifier(object))
        var handle: Handle?
        for ancestor in [entity.name] + entity.ancestorNames {
            for key in indexedAttributes[ancestor] ?? [] {
                let value = try read(object, key.attribute)
                guard !value.isNull else { continue }
                if handle == nil { handle = makeHandle(object) }
                guard let handle else { continue }
                addToIndex(key, value, handle)
            }
        }
    }

    /// Sets one value of a new object.
    private func apply(_ column: Column, _ node: ImportNode, to object: ManagedObject, in url: URL)
        throws(DocumentError)
    {
        let entityName = object.entity.name
        func report(_ key: String, _ message: String) {
            problem("\(entityName).\(key): \(message)", at: node.place, in: url)
        }
        switch column {
        case .ignored, .unknown:
            return
        case .attribute(let attribute):
            let value: AttributeValue
            do {
                value = try node.value.attributeValue(for: attribute, model: model)
            } catch {
                report(attribute.name, error.reason)
                return
            }
            do {
                try object.setAttributeValue(value, forKey: attribute.name)
            } catch {
                report(attribute.name, error.description)
            }
        case .byKey(let relationship, let key):
            let value: AttributeValue
            do {
                value = try node.value.attributeValue(for: key, model: model)
            } catch {
                report("\(relationship.name).\(key.name)", error.reason)
                return
            }
            guard !value.isNull else { return }
            let indexKey = try index(relationship.destinationEntityName, key)
            let link = KeyLink(
                source: makeHandle(object), relationship: relationship.name, key: indexKey, value: value,
                origin: origin(node.place, url))
            switch indexes[indexKey]?[value] {
            case .some(var entry) where entry.count == 1:
                if entry.usedAt == nil {
                    entry.usedAt = link.origin
                    indexes[indexKey]?[value] = entry
                }
                try connect(link, to: entry)
            case .some(let entry):
                problem(ambiguity(link, entry.count))
            case .none:
                pendingKeyLinks.append(link)
            }
        case .relationship(let relationship):
            try applyRelationship(relationship, node, to: object, in: url, report: report)
        }
    }

    private func applyRelationship(
        _ relationship: RelationshipDescription, _ node: ImportNode, to object: ManagedObject, in url: URL,
        report: (String, String) -> Void
    ) throws(DocumentError) {
        guard let destination = model.layout(of: relationship.destinationEntityName) else {
            report(relationship.name, "the destination entity \(relationship.destinationEntityName) is missing")
            return
        }
        func nested(_ item: ImportNode) throws(DocumentError) -> ManagedObject? {
            guard case .object(let fields) = item.value else {
                problem(
                    "\(object.entity.name).\(relationship.name): expected an object of \(destination.name), found \(item.value.kind) (to match an existing object by an attribute, name the field '\(relationship.name).ATTRIBUTE')",
                    at: item.place, in: url)
                return nil
            }
            guard !destination.declaration.isAbstract else {
                problem("\(destination.name) is abstract; objects of it cannot be made", at: item.place, in: url)
                return nil
            }
            return try insert(destination, fields: fields, at: item.place, in: url)
        }
        do {
            switch node.value {
            case .null:
                return
            case .array(let items):
                guard relationship.isToMany else {
                    report(relationship.name, "is to-one; expected one object, found an array")
                    return
                }
                var members: [ManagedObject] = []
                for item in items { if let member = try nested(item) { members.append(member) } }
                try object.setObjects(members, forKey: relationship.name)
            case .object:
                guard let member = try nested(node) else { return }
                if relationship.isToMany {
                    try object.setObjects([member], forKey: relationship.name)
                } else {
                    try object.setObject(member, forKey: relationship.name)
                }
            default:
                _ = try nested(node)
            }
        } catch let error as DocumentError {
            throw error
        } catch {
            report(relationship.name, "\(error)")
        }
    }

    // MARK: - Dump format (object URIs)

    /// Inserts an object of a `docutil dump` document: attributes set now, relationships (object URIs) linked when
    /// every object has been read.
    func insertDumped(
        _ entity: EntityLayout, uri: String, values: [ImportField], at place: ImportPlace, in url: URL
    ) throws(DocumentError) {
        let object = try newObject(entity, at: place, in: url)
        let handle = makeHandle(object)
        if uriHandles[uri] != nil {
            problem("the object URI \(uri) appears twice", at: place, in: url)
        } else {
            uriHandles[uri] = handle
        }
        for field in values {
            let resolved = column(field.name, of: entity)
            switch resolved {
            case .relationship(let relationship):
                var uris: [String] = []
                switch field.node.value {
                case .null: break
                case .string(let uri) where !relationship.isToMany: uris = [uri]
                case .array(let items) where relationship.isToMany:
                    for item in items {
                        guard case .string(let uri) = item.value else {
                            problem(
                                "\(entity.name).\(relationship.name): expected an object URI, found \(item.value.kind)",
                                at: item.place, in: url)
                            continue
                        }
                        uris.append(uri)
                    }
                default:
                    problem(
                        "\(entity.name).\(relationship.name): expected \(relationship.isToMany ? "an array of object URIs" : "an object URI or null"), found \(field.node.value.kind)",
                        at: field.node.place, in: url)
                }
                if !uris.isEmpty {
                    pendingURILinks.append(
                        URILink(
                            source: handle, relationship: relationship, uris: uris,
                            origin: origin(field.node.place, url)))
                }
            case .attribute:
                try apply(resolved, field.node, to: object, in: url)
            case .unknown(let reason):
                problem("unknown key '\(field.name)': \(reason)", at: field.node.place, in: url)
            case .byKey, .ignored:
                problem("unknown key '\(field.name)' in a dumped object", at: field.node.place, in: url)
            }
        }
        try finishObject(object, entity)
    }

    // MARK: - Progress and batches

    /// Called by importers after each record: reports progress and saves a batch when one is full.
    /// - Parameters:
    ///   - input: the source being read.
    ///   - bytesRead: how much of it has been read.
    ///   - totalBytes: its size (0 when unknown).
    /// - Throws: ``DocumentError`` when saving a full batch fails.
    public func recordRead(from input: URL, bytesRead: Int64 = 0, totalBytes: Int64 = 0) throws(DocumentError) {
        recordCount += 1
        if let progress = options.progress, recordCount % 512 == 0 {
            let now = Date()
            if now.timeIntervalSince(lastProgress) >= 0.25 {
                lastProgress = now
                progress(
                    ImportProgress(
                        file: input, bytesRead: bytesRead, totalBytes: totalBytes, records: recordCount,
                        elapsed: now.timeIntervalSince(started)))
            }
        }
        if let batchSize, sinceCheckpoint >= batchSize { try checkpoint() }
    }

    /// Validates the batch (listing failures with their places), saves it unless the import has already failed,
    /// and lets go of its objects.
    func checkpoint() throws(DocumentError) {
        sinceCheckpoint = 0
        validate()
        if problemCount == 0 {
            do {
                try context.save()
            } catch {
                throw DocumentError(.io, "saving a batch of the import: \(error)")
            }
        }
        for handle in liveHandles {
            if let object = handle.object {
                handle.id = object.objectID
                handle.object = nil
            }
        }
        liveHandles.removeAll(keepingCapacity: true)
        origins.removeAll(keepingCapacity: true)
        context.reset()
    }

    /// Checks the model's rules for what is in the context, recording each failure at the place its object was
    /// read.
    func validate() {
        do {
            try context.validateForSave()
        } catch {
            let failures = error.validationErrors
            if failures.isEmpty {
                problem("\(error)")
                return
            }
            for failure in failures {
                let place = failure.objectID.flatMap { origins[$0] }.map(describe)
                let key = failure.key.map { ".\($0)" } ?? ""
                problem("\(place.map { "\($0): " } ?? "")\(failure.entityName)\(key): \(failure.message)")
            }
        }
    }

    /// Links what waited for objects read later, checks the model's rules, and throws every problem found.
    /// Called once, when every source has been read.
    /// - Throws: ``DocumentError`` `badData` listing every problem (nothing of the import is kept then).
    public func finish() throws(DocumentError) {
        for link in pendingKeyLinks {
            switch indexes[link.key]?[link.value] {
            case .some(let entry) where entry.count == 1:
                if problemCount == 0 { try connect(link, to: entry) }
            case .some(let entry):
                problem(ambiguity(link, entry.count))
            case .none:
                problem(
                    "\(describe(link.origin)): \(link.relationship).\(link.key.attribute.name): no \(link.key.entity) has \(link.key.attribute.name) = \(link.value.literalText.isEmpty ? "\"\"" : link.value.literalText)"
                )
            }
            try countLinkForBatch()
        }
        pendingKeyLinks.removeAll()
        try linkURIs()
        // The model's rules are checked even when values were refused, so that every failure is listed at once.
        if batchSize != nil {
            try checkpoint()
        } else {
            validate()
        }
        if let failure { throw failure }
    }

    private func linkURIs() throws(DocumentError) {
        // To-ones and unordered to-manys first, ordered to-manys last, so that each ordered relationship ends in
        // the order its own list gives.
        let links =
            pendingURILinks.filter { !$0.relationship.isOrdered } + pendingURILinks.filter { $0.relationship.isOrdered }
        pendingURILinks.removeAll()
        for link in links {
            var destinations: [ManagedObject] = []
            for uri in link.uris {
                guard let handle = uriHandles[uri] else {
                    problem(
                        "\(describe(link.origin)): \(link.relationship.name): no object in the file has the URI \(uri)")
                    continue
                }
                if problemCount == 0 { destinations.append(try resolve(handle)) }
            }
            guard problemCount == 0 else { continue }
            let source = try resolve(link.source)
            do {
                if link.relationship.isToMany {
                    try source.setObjects(destinations, forKey: link.relationship.name)
                } else {
                    try source.setObject(destinations.first, forKey: link.relationship.name)
                }
            } catch {
                problem("\(describe(link.origin)): \(link.relationship.name): \(error)")
            }
            try countLinkForBatch()
        }
    }

    private func countLinkForBatch() throws(DocumentError) {
        guard let batchSize else { return }
        sinceCheckpoint += 1
        if sinceCheckpoint >= batchSize { try checkpoint() }
    }

    // MARK: - Handles and key indexes

    /// An object of the import, in the context now or (after a checkpoint) by its saved ID.
    final class Handle {
        var object: ManagedObject?
        var id: ManagedObjectID?

        init(object: ManagedObject?, id: ManagedObjectID?) {
            self.object = object
            self.id = id
        }
    }

    struct IndexKey: Hashable {
        let entity: String
        let attribute: AttributeDescription

        static func == (a: IndexKey, b: IndexKey) -> Bool {
            a.entity == b.entity && a.attribute.name == b.attribute.name
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(attribute.name)
        }
    }

    struct IndexEntry {
        var handle: Handle
        var count: Int
        /// Where a link first used this entry (so that a second object with the same key is reported there).
        var usedAt: Origin?
    }

    /// A place in one of the sources (its path looked up only for a message).
    struct Origin {
        let file: Int
        let place: ImportPlace
    }

    struct KeyLink {
        let source: Handle
        let relationship: String
        let key: IndexKey
        let value: AttributeValue
        let origin: Origin
    }

    func origin(_ place: ImportPlace, _ url: URL) -> Origin {
        if url != lastFile {
            lastFile = url
            files.append(url.path)
        }
        return Origin(file: files.count - 1, place: place)
    }

    func describe(_ origin: Origin) -> String {
        origin.place.described(in: files[origin.file])
    }

    private func ambiguity(_ link: KeyLink, _ count: Int) -> String {
        "\(describe(link.origin)): \(link.relationship).\(link.key.attribute.name): \(count) \(link.key.entity) objects have \(link.key.attribute.name) = \(link.value.literalText)"
    }

    struct URILink {
        let source: Handle
        let relationship: RelationshipDescription
        let uris: [String]
        let origin: Origin
    }

    private func makeHandle(_ object: ManagedObject) -> Handle {
        if object.objectID.isTemporary {
            let handle = Handle(object: object, id: nil)
            liveHandles.append(handle)
            return handle
        }
        return Handle(object: nil, id: object.objectID)
    }

    private func resolve(_ handle: Handle) throws(DocumentError) -> ManagedObject {
        if let object = handle.object { return object }
        guard let id = handle.id else { throw DocumentError(.io, "an imported object was lost before it was saved") }
        do {
            return try context.object(with: id)
        } catch {
            throw DocumentError(.io, "\(id): \(error)")
        }
    }

    private func read(_ object: ManagedObject, _ attribute: AttributeDescription) throws(DocumentError)
        -> AttributeValue
    {
        do {
            return try object.attributeValue(forKey: attribute.name)
        } catch {
            throw DocumentError(.badData, "\(object.objectID): \(attribute.name): \(error)")
        }
    }

    private func connect(_ link: KeyLink, to entry: IndexEntry) throws(DocumentError) {
        let source = try resolve(link.source)
        let destination = try resolve(entry.handle)
        do {
            // A batched import goes into a new SQLite store, which keeps a one-to-many on the to-one side: the
            // destination's to-many need not be read (and recorded as changed) for every new member.
            if batchSize != nil {
                try source.setObjectLeavingInverseFault(destination, forKey: link.relationship)
            } else {
                try source.setObject(destination, forKey: link.relationship)
            }
        } catch {
            problem("\(describe(link.origin)): \(link.relationship): \(error)")
        }
    }

    /// The index of `entity`'s objects by `attribute`, built on first use from every object the context can fetch
    /// (the document's and those imported so far) and kept up to date as objects are inserted.
    private func index(_ entity: String, _ attribute: AttributeDescription) throws(DocumentError) -> IndexKey {
        let key = IndexKey(entity: entity, attribute: attribute)
        if indexes[key] != nil { return key }
        indexes[key] = [:]
        indexedAttributes[entity, default: []].append(key)
        let objects: [ManagedObject]
        do {
            objects = try context.fetch(FetchRequest(entityName: entity))
        } catch {
            throw DocumentError(.io, "reading the \(entity) objects to match by \(attribute.name): \(error)")
        }
        for object in objects where !building.contains(ObjectIdentifier(object)) {
            let value = try read(object, attribute)
            if !value.isNull { addToIndex(key, value, makeHandle(object)) }
        }
        return key
    }

    private func addToIndex(_ key: IndexKey, _ value: AttributeValue, _ handle: Handle) {
        if var entry = indexes[key]?[value] {
            entry.count += 1
            if entry.count == 2, let usedAt = entry.usedAt {
                problem(
                    "\(describe(usedAt)): \(key.entity).\(key.attribute.name) = \(value.literalText) matches more than one \(key.entity) object"
                )
            }
            indexes[key]?[value] = entry
        } else {
            indexes[key]?[value] = IndexEntry(handle: handle, count: 1, usedAt: nil)
        }
    }
}
