public import Foundation
public import ObjectGraph
import SQLiteStore

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
    /// Objects inserted so far, by entity name.
    var insertedByEntity: [String: Int] {
        var counts = objectsByEntity
        for case let (_, shape?) in rowShapes where shape.count > 0 {
            counts[shape.entityName, default: 0] += shape.count
        }
        return counts
    }
    /// Objects made in the context so far, by entity name.
    private var objectsByEntity: [String: Int] = [:]

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
    private var indexes: [IndexKey: KeyIndex] = [:]
    private var indexedAttributes: [String: [KeyIndex]] = [:]
    private var pendingKeyLinks: [KeyLink] = []
    private var uriHandles: [String: Handle] = [:]
    private var pendingURILinks: [URILink] = []
    private var columnCache: [String: [String: Column]] = [:]
    private var reportedUnknown = Set<String>()
    /// Rows read since the last batch was written (see ``insertRow(_:columns:cells:at:in:)``).
    private var pendingRows: [PendingRow] = []
    /// The to-one destinations of those rows: the row's position, the relationship, the destination.
    private var pendingLinks: [(row: Int, relationship: String, destination: Handle)] = []
    /// The batch of rows being written while the next is read, if any.
    private var writing: BackgroundWork<Void>?
    /// Whether the model's uniqueness constraints are checked as objects are read (the document's store enforces
    /// them: SQLite), so that a repeat is reported at the place that repeats it. By default, when the context has
    /// a SQLite store.
    var checksUniqueness: Bool
    /// The uniqueness checks each entity's objects take part in, by entity name.
    private var uniqueChecks: [String: [(check: UniqueCheck, slots: [Int])]] = [:]
    /// Every uniqueness check, by the entity that declares it and its property names.
    private var uniqueByDeclaration: [String: UniqueCheck] = [:]
    /// How each entity's rows are written without objects (`nil`: they need objects), by the entity's layout.
    private var rowShapes: [ObjectIdentifier: RowShape?] = [:]
    /// Objects whose values are still being set (kept out of an index built meanwhile; they join when finished).
    private var building = Set<ObjectIdentifier>()
    private let started = Date()
    /// The mapping's sources (lowercased) that named a file, table or key read so far.
    private var readSources: Set<String> = []
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
        checksUniqueness = context.persistentStoreCoordinator.persistentStores.contains {
            $0.description.type == SQLiteStore.typeName
        }
        // Names in the mapping the model lacks are problems like any other (listed, nothing imported).
        for message in options.mapping?.problems(in: context.persistentStoreCoordinator.model) ?? [] {
            problem(message)
        }
    }

    deinit {
        abandonWriting()
    }

    /// Waits for the batch of rows being written, if any, and lets its outcome go: for an import that has already
    /// failed (its own error is what the user is told, and the store it was writing to is thrown away), so that the
    /// store is not closed under the write.
    func abandonWriting() {
        guard let write = writing else { return }
        writing = nil
        _ = write.wait()
    }

    /// Waits for the batch of rows being written, if any (before anything reads the store, and before it is
    /// closed).
    /// - Throws: ``DocumentError`` `io` when writing it failed.
    func finishWriting() throws(DocumentError) {
        guard let write = writing else { return }
        writing = nil
        if case .failure(let error) = write.wait() {
            throw DocumentError(.io, "saving a batch of the import: \(error)")
        }
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
            if let source = rule.source { readSources.insert(source.lowercased()) }
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
        if let rule = options.mapping?.rule(forSource: prefix + key) {
            if let source = rule.source { readSources.insert(source.lowercased()) }
            return try layout(named: rule.entity, for: url)
        }
        guard let name = entityName(matching: key) else { return nil }
        return try layout(named: name, for: url)
    }

    /// Reports each file a mapping rule names as its source (`people.csv`, not `table:` or `key:`) that is not among
    /// `sources`: the rule would never be used.
    func checkMappedFiles(_ sources: [URL]) {
        let given = Set(sources.flatMap { [$0.lastPathComponent.lowercased(), $0.path.lowercased()] })
        for rule in options.mapping?.rules ?? [] {
            guard let source = rule.source, !source.hasPrefix("table:"), !source.hasPrefix("key:") else { continue }
            if !given.contains(source.lowercased()) {
                problem(
                    "\(rule.place): the mapping reads \(rule.entity) from '\(source)', which is not among the files imported"
                )
            }
        }
    }

    /// Reports each table (`table:T`) or top-level key (`key:K`) a mapping rule names as its source that none of the
    /// sources read had, when some source could have had it (a SQLite database; a JSON file, property list or keyed
    /// archive).
    func checkMappedParts(_ formats: [ImportFormat]) {
        let databases = formats.contains(.sqlite)
        let keyed = formats.contains { $0 == .json || $0 == .plist || $0 == .archive }
        for rule in options.mapping?.rules ?? [] {
            guard let source = rule.source, !readSources.contains(source.lowercased()) else { continue }
            if source.hasPrefix("table:"), databases {
                problem(
                    "\(rule.place): the mapping reads \(rule.entity) from the table '\(source.dropFirst(6))', which no database imported has"
                )
            } else if source.hasPrefix("key:"), keyed {
                problem(
                    "\(rule.place): the mapping reads \(rule.entity) from the key '\(source.dropFirst(4))', which no file imported has at its top level"
                )
            }
        }
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
        case attribute(AttributeColumn)
        /// Nested objects (JSON, property lists) or object URIs (dump format).
        case relationship(RelationshipDescription)
        /// A to-one filled with the destination whose attribute `key` equals the value.
        case byKey(KeyColumn)
        case ignored
        case unknown(String)
    }

    /// An attribute a column fills, with its slot in the entity's layout (a class: a column is read once per cell).
    final class AttributeColumn {
        let attribute: AttributeDescription
        let slot: Int
        /// The attribute's type and composite, read per cell without copying its description.
        let type: AttributeType
        let compositeName: String?

        init(_ attribute: AttributeDescription, slot: Int) {
            self.attribute = attribute
            self.slot = slot
            type = attribute.type
            compositeName = attribute.compositeName
        }
    }

    /// A to-one a column fills with the destination whose attribute `key` equals the cell.
    final class KeyColumn {
        let relationship: RelationshipDescription
        let key: AttributeDescription
        /// Whether a row written without an object can hold the link in its own column: the relationship has no
        /// inverse, or an unordered to-many one (nothing on the destination's side is written).
        let fillsRow: Bool
        /// The key index, once built.
        var index: KeyIndex?

        init(_ relationship: RelationshipDescription, key: AttributeDescription, fillsRow: Bool) {
            self.relationship = relationship
            self.key = key
            self.fillsRow = fillsRow
        }
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
                guard let slot = entity.attributeIndex[attributeName] else {
                    return .unknown(
                        "the mapping names attribute '\(attributeName)', which \(entity.name) does not have")
                }
                return .attribute(AttributeColumn(entity.attributes[slot], slot: slot))
            }
            if let (relationshipName, target) = rule.relationships.first(where: { $0.value.source == name }) {
                return byKey(relationshipName, key: target.match, of: entity)
            }
        }
        // A column named like a property the mapping fills from another column would fill it twice (the last one
        // read winning): it must be ignored or mapped elsewhere.
        func claimed(_ property: String) -> Column? {
            if let column = rule?.attributes[property] ?? rule?.relationships[property]?.source {
                return .unknown(
                    "it is named like \(entity.name).\(property), which the mapping fills from the column '\(column)' (ignore it, or map it to another property)"
                )
            }
            return nil
        }
        if let slot = entity.attributes.firstIndex(where: { $0.name.lowercased() == lowered }) {
            if let refused = claimed(entity.attributes[slot].name) { return refused }
            return .attribute(AttributeColumn(entity.attributes[slot], slot: slot))
        }
        if let relationship = entity.relationships.first(where: { $0.name.lowercased() == lowered }) {
            if let refused = claimed(relationship.name) { return refused }
            return .relationship(relationship)
        }
        if let dot = name.firstIndex(of: ".") {
            let relationshipName = String(name[..<dot])
            let key = String(name[name.index(after: dot)...])
            if let relationship = entity.relationships.first(where: {
                $0.name.lowercased() == relationshipName.lowercased()
            }) {
                if let refused = claimed(relationship.name) { return refused }
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
        let inverse = relationship.inverseName.flatMap { name in
            destination.relationships.first { $0.name == name }
        }
        let fillsRow = inverse.map { $0.isToMany && !$0.isOrdered } ?? (relationship.inverseName == nil)
        return .byKey(KeyColumn(relationship, key: attribute, fillsRow: fillsRow))
    }

    /// Resolves the columns of a table's header, reporting the unknown ones (once per file and column).
    func checkColumns(_ names: [(String, ImportPlace)], of entity: EntityLayout, in url: URL) -> TableColumns {
        // A column the mapping reads for this entity that the table does not have would never be read: the typo is
        // reported, not left to give objects without the value.
        if let rule = options.mapping?.rule(forEntity: entity.name) {
            let present = Set(names.map(\.0))
            let wanted =
                rule.attributes.map { (column: $0.value, what: "attribute \($0.key)") }
                + rule.relationships.map { (column: $0.value.source, what: "relationship \($0.key)") }
            for (column, what) in wanted.sorted(by: { $0.column < $1.column }) where !present.contains(column) {
                problem(
                    "\(rule.place): the mapping reads \(entity.name)'s \(what) from the column '\(column)', which \(url.path) does not have"
                )
            }
        }
        return TableColumns(
            names.map { name, place in
                let resolved = column(name, of: entity)
                if case .unknown(let reason) = resolved { reportUnknown(reason, name: name, at: place, in: url) }
                return resolved
            })
    }

    /// The columns of a table (CSV, TSV, a SQLite table), resolved once, with what each is for a row written
    /// without an object laid out for reading once per cell.
    final class TableColumns {
        /// What a column is for a row written without an object.
        enum RowPart {
            case skip
            /// An index into ``attributes``.
            case attribute(Int)
            /// An index into ``keys``.
            case key(Int)
        }

        let columns: [Column]
        let parts: [RowPart]
        let attributes: [AttributeColumn]
        let keys: [KeyColumn]
        /// Whether a column holds nested objects (then rows need objects).
        let hasRelationship: Bool
        var count: Int { columns.count }

        init(_ columns: [Column]) {
            self.columns = columns
            var parts: [RowPart] = []
            var attributes: [AttributeColumn] = []
            var keys: [KeyColumn] = []
            var hasRelationship = false
            for column in columns {
                switch column {
                case .attribute(let attribute):
                    parts.append(.attribute(attributes.count))
                    attributes.append(attribute)
                case .byKey(let key):
                    parts.append(.key(keys.count))
                    keys.append(key)
                case .relationship:
                    hasRelationship = true
                    parts.append(.skip)
                case .ignored, .unknown:
                    parts.append(.skip)
                }
            }
            self.parts = parts
            self.attributes = attributes
            self.keys = keys
            self.hasRelationship = hasRelationship
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
    ///
    /// In a batched import, a row of an entity with no behaviour of its own (no class registered for it, no derived
    /// attributes) whose columns are attributes and to-ones by key is written without making an object: its values
    /// are checked against the model's rules here and written with the next batch.
    func insertRow(
        _ entity: EntityLayout, columns: TableColumns, cells: [ImportNode], at place: ImportPlace, in url: URL
    ) throws(DocumentError) {
        if let shape = rowShape(of: entity, columns: columns) {
            try addRow(entity, shape: shape, columns: columns, cells: cells, at: place, in: url)
            return
        }
        let object = try newObject(entity, at: place, in: url)
        for (column, cell) in zip(columns.columns, cells) {
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
        objectsByEntity[entity.name, default: 0] += 1
        sinceCheckpoint += 1
        return object
    }

    // MARK: - Rows written without objects

    /// A row of a batched import waiting to be written: its values by the entity's slots (its to-one destinations
    /// are in ``pendingLinks``).
    struct PendingRow {
        let entity: EntityLayout
        let values: [AttributeValue]
        /// Made only when something refers to the row (a key index, a link made at the end).
        var handle: Handle?
    }

    /// What writing rows of an entity without objects needs.
    final class RowShape {
        let entityName: String
        /// The attributes' default values, by slot: a new row's values.
        let defaults: [AttributeValue]
        /// Rows read so far.
        var count = 0
        /// The attributes the model has rules for.
        let checked: [SlottedAttribute]
        /// The key indexes rows of the entity join, with the slot of each one's attribute, worked out when the
        /// import had `count` indexes (indexes are only added).
        var indexed: (count: Int, keys: [(key: KeyIndex, slot: Int)]) = (0, [])

        init(_ entity: EntityLayout) {
            entityName = entity.name
            defaults = entity.attributes.map(\.defaultValue)
            checked = entity.attributes.indices.filter {
                ManagedObjectContext.attributeHasRules(entity.attributes[$0])
            }.map { SlottedAttribute(slot: $0, attribute: entity.attributes[$0]) }
        }
    }

    /// How rows of `entity` with these columns are written without objects (`nil`: they need objects).
    private func rowShape(of entity: EntityLayout, columns: TableColumns) -> RowShape? {
        guard batchSize != nil else { return nil }
        let shape: RowShape?
        if let known = rowShapes[ObjectIdentifier(entity)] {
            shape = known
        } else {
            let plain =
                context.persistentStoreCoordinator.objectClass(forEntityName: entity.name) == ManagedObject.self
                && !entity.attributes.contains { $0.derivationExpression != nil }
            shape = plain ? RowShape(entity) : nil
            rowShapes[ObjectIdentifier(entity)] = shape
        }
        return columns.hasRelationship ? nil : shape
    }

    /// The handle of a row being read, made on first need.
    private static func rowHandle(_ handle: inout Handle?) -> Handle {
        if let handle { return handle }
        let made = Handle(object: nil, id: nil)
        made.isPendingRow = true
        handle = made
        return made
    }

    private func addRow(
        _ entity: EntityLayout, shape: RowShape, columns: TableColumns, cells: [ImportNode], at place: ImportPlace,
        in url: URL
    ) throws(DocumentError) {
        insertedCount += 1
        shape.count += 1
        sinceCheckpoint += 1
        var handle: Handle?
        var values = shape.defaults
        for (i, part) in columns.parts.enumerated() where i < cells.count {
            switch part {
            case .skip:
                continue
            case .attribute(let k):
                let column = columns.attributes[k]
                let value: AttributeValue
                do {
                    value = try cells[i].value.attributeValue(
                        type: column.type, compositeName: column.compositeName, model: model)
                } catch {
                    problem("\(entity.name).\(column.attribute.name): \(error.reason)", at: cells[i].place, in: url)
                    continue
                }
                do {
                    values[column.slot] = try entity.converted(value, forAttributeAt: column.slot)
                } catch {
                    // Worded as setting the value on an object words it.
                    let key = "\(entity.name).\(column.attribute.name)"
                    problem(
                        "\(key): \(ObjectGraphError(.wrongValueType, "\(key): \(error)"))", at: cells[i].place, in: url)
                }
            case .key(let k):
                let column = columns.keys[k]
                guard let (index, value) = try keyValue(column, cells[i], of: entity.name, in: url) else { continue }
                func link() -> KeyLink {
                    KeyLink(
                        source: Self.rowHandle(&handle), relationship: column.relationship.name, key: index,
                        value: value, origin: origin(cells[i].place, url))
                }
                switch index.entries[value] {
                case .some(var entry) where entry.count == 1:
                    if entry.usedAt == nil {
                        entry.usedAt = origin(cells[i].place, url)
                        index.entries[value] = entry
                    }
                    if column.fillsRow && (entry.handle.id != nil || entry.handle.isPendingRow) {
                        pendingLinks.append((pendingRows.count, column.relationship.name, entry.handle))
                    } else {
                        pendingKeyLinks.append(link())
                    }
                case .some(let entry):
                    problem(ambiguity(link(), entry.count))
                case .none:
                    pendingKeyLinks.append(link())
                }
            }
        }
        for checked in shape.checked {
            ManagedObjectContext.attributeRuleFailures(of: values[checked.slot], for: checked.attribute) { _, message in
                problem("\(place.described(in: url.path)): \(entity.name).\(checked.attribute.name): \(message)")
            }
        }
        for (check, slots) in try uniqueChecks(for: entity) {
            check.add(slots.map { values[$0] }, from: origin(place, url), target: self)
        }
        if shape.indexed.count != indexes.count {
            var keys: [(key: KeyIndex, slot: Int)] = []
            for ancestor in [entity.name] + entity.ancestorNames {
                for key in indexedAttributes[ancestor] ?? [] {
                    if let slot = entity.attributeIndex[key.attribute.name] { keys.append((key, slot)) }
                }
            }
            shape.indexed = (indexes.count, keys)
        }
        for (key, slot) in shape.indexed.keys where !values[slot].isNull {
            addToIndex(key, values[slot], Self.rowHandle(&handle))
        }
        pendingRows.append(PendingRow(entity: entity, values: values, handle: handle))
    }

    /// Gives the waiting rows their permanent IDs and, unless the import has failed, writes them in one batch.
    private func writeRows() throws(DocumentError) {
        guard !pendingRows.isEmpty else { return }
        // One batch in flight at a time, written in order.
        try finishWriting()
        let coordinator = context.persistentStoreCoordinator
        let ids: [ManagedObjectID]
        do {
            ids = try coordinator.obtainPermanentIDs(for: pendingRows.map { ($0.entity.name, nil) })
        } catch {
            throw DocumentError(.io, "numbering a batch of the import: \(error)")
        }
        guard ids.count == pendingRows.count else {
            throw DocumentError(.io, "numbering a batch of the import: \(ids.count) IDs for \(pendingRows.count) rows")
        }
        for (i, id) in ids.enumerated() {
            guard let handle = pendingRows[i].handle else { continue }
            handle.id = id
            handle.isPendingRow = false
        }
        defer {
            pendingRows.removeAll(keepingCapacity: true)
            pendingLinks.removeAll(keepingCapacity: true)
        }
        guard problemCount == 0 else { return }
        var snapshots: [ObjectSnapshot] = []
        snapshots.reserveCapacity(pendingRows.count)
        for (i, id) in ids.enumerated() {
            snapshots.append(
                ObjectSnapshot(objectID: id, version: 1, layout: pendingRows[i].entity, values: pendingRows[i].values))
        }
        for (row, relationship, destination) in pendingLinks {
            guard let destinationID = destination.id else {
                throw DocumentError(.io, "an imported object was lost before it was saved")
            }
            snapshots[row].toOne[relationship] = .some(destinationID)
        }
        let batch = snapshots
        writing = BackgroundWork.start { () throws(StoreError) in try coordinator.insert(batch) }
    }

    /// After an object's values are set: it joins the key indexes built so far.
    private func finishObject(_ object: ManagedObject, _ entity: EntityLayout) throws(DocumentError) {
        // Made (with the document's values) while the object is still kept out of what they read.
        let checks = try uniqueChecks(for: entity)
        building.remove(ObjectIdentifier(object))
        for (check, _) in checks {
            var key: [AttributeValue] = []
            for name in check.names { key.append(try read(object, name)) }
            if let origin = origins[object.objectID] { check.add(key, from: origin, target: self) }
        }
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
        case .attribute(let column):
            let attribute = column.attribute
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
        case .byKey(let column):
            guard let link = try keyLink(column, node, from: makeHandle(object), of: entityName, in: url) else {
                return
            }
            switch link.key.entries[link.value] {
            case .some(var entry) where entry.count == 1:
                if entry.usedAt == nil {
                    entry.usedAt = link.origin
                    link.key.entries[link.value] = entry
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

    /// The link a to-one-by-key cell asks for (`nil` when the cell is empty or its value does not parse, which is
    /// recorded as a problem).
    private func keyLink(
        _ column: KeyColumn, _ node: ImportNode, from source: Handle, of entityName: String, in url: URL
    ) throws(DocumentError) -> KeyLink? {
        guard let (index, value) = try keyValue(column, node, of: entityName, in: url) else { return nil }
        return KeyLink(
            source: source, relationship: column.relationship.name, key: index, value: value,
            origin: origin(node.place, url))
    }

    /// The key index and value a to-one-by-key cell names (`nil` when the cell is empty or its value does not
    /// parse, which is recorded as a problem).
    private func keyValue(_ column: KeyColumn, _ node: ImportNode, of entityName: String, in url: URL)
        throws(DocumentError) -> (KeyIndex, AttributeValue)?
    {
        let value: AttributeValue
        do {
            value = try node.value.attributeValue(for: column.key, model: model)
        } catch {
            problem(
                "\(entityName).\(column.relationship.name).\(column.key.name): \(error.reason)", at: node.place,
                in: url)
            return nil
        }
        guard !value.isNull else { return nil }
        return (try index(of: column), value)
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
        try writeRows()
        // Objects in the context may point at rows of the batch being written: they are checked and saved after it.
        if context.hasChanges { try finishWriting() }
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
        try writeRows()
        try finishWriting()
        for link in pendingKeyLinks {
            switch link.key.entries[link.value] {
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
        /// A row waiting to be written (it gets its ID when its batch is written).
        var isPendingRow = false

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

    /// The objects of an entity by the value of one attribute (a class: rows find theirs without hashing its
    /// names).
    final class KeyIndex {
        let entity: String
        let attribute: AttributeDescription
        var entries: [AttributeValue: IndexEntry] = [:]

        init(entity: String, attribute: AttributeDescription) {
            self.entity = entity
            self.attribute = attribute
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
        let key: KeyIndex
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
        if handle.isPendingRow { try writeRows() }
        guard let id = handle.id else { throw DocumentError(.io, "an imported object was lost before it was saved") }
        try finishWriting()
        do {
            return try context.object(with: id)
        } catch {
            throw DocumentError(.io, "\(id): \(error)")
        }
    }

    private func read(_ object: ManagedObject, _ attribute: AttributeDescription) throws(DocumentError)
        -> AttributeValue
    {
        try read(object, attribute.name)
    }

    private func read(_ object: ManagedObject, _ name: String) throws(DocumentError) -> AttributeValue {
        do {
            return try object.attributeValue(forKey: name)
        } catch {
            throw DocumentError(.badData, "\(object.objectID): \(name): \(error)")
        }
    }

    // MARK: - Uniqueness

    /// A uniqueness constraint of the model, with the values read so far and where each was read (`nil`: an object
    /// already in the document). Objects with a nil among the values never clash (as SQLite's unique indexes).
    final class UniqueCheck {
        /// The entity that declares the constraint (its sub-entities share it).
        let entity: String
        let names: [String]
        var seen: [[AttributeValue]: Origin?] = [:]

        init(entity: String, names: [String]) {
            self.entity = entity
            self.names = names
        }

        /// Records the values of one object, reporting a repeat as a problem of `target`.
        func add(_ key: [AttributeValue], from origin: Origin?, target: ImportTarget) {
            guard !key.contains(where: \.isNull) else { return }
            if let first = seen[key] {
                let already =
                    first.map { "by the object at \(target.describe($0))" } ?? "by an object already in the document"
                let place = origin.map { "\(target.describe($0)): " } ?? ""
                let values = key.map(\.literalText).joined(separator: ", ")
                target.problem(
                    "\(place)\(entity).\(names.joined(separator: ",")): \(values) is already used \(already) (the model makes it unique)"
                )
                return
            }
            seen[key] = origin
        }
    }

    /// The uniqueness constraints objects of `entity` must keep (its own and its ancestors', those made of
    /// attributes), each made on first use with the values of the objects already in the document.
    private func uniqueChecks(for entity: EntityLayout) throws(DocumentError) -> [(check: UniqueCheck, slots: [Int])] {
        if let known = uniqueChecks[entity.name] { return known }
        var checks: [(check: UniqueCheck, slots: [Int])] = []
        if checksUniqueness {
            for name in [entity.name] + entity.ancestorNames {
                guard let declaring = model.entity(named: name) else { continue }
                for names in declaring.uniquenessConstraints where !names.isEmpty {
                    let slots = names.compactMap { entity.attributeIndex[$0] }
                    guard slots.count == names.count else { continue }
                    let declaration = name + "\u{0}" + names.joined(separator: "\u{0}")
                    if let check = uniqueByDeclaration[declaration] {
                        checks.append((check, slots))
                        continue
                    }
                    let check = UniqueCheck(entity: name, names: names)
                    uniqueByDeclaration[declaration] = check
                    try finishWriting()
                    let existing: [ManagedObject]
                    do {
                        existing = try context.fetch(FetchRequest(entityName: name))
                    } catch {
                        throw DocumentError(.io, "reading the \(name) objects to keep \(names) unique: \(error)")
                    }
                    for object in existing where !building.contains(ObjectIdentifier(object)) {
                        var key: [AttributeValue] = []
                        for name in names { key.append(try read(object, name)) }
                        check.add(key, from: nil, target: self)
                    }
                    checks.append((check, slots))
                }
            }
        }
        uniqueChecks[entity.name] = checks
        return checks
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
    private func index(of column: KeyColumn) throws(DocumentError) -> KeyIndex {
        if let key = column.index { return key }
        let key = try index(column.relationship.destinationEntityName, column.key)
        column.index = key
        return key
    }

    private func index(_ entity: String, _ attribute: AttributeDescription) throws(DocumentError) -> KeyIndex {
        if let known = indexes[IndexKey(entity: entity, attribute: attribute)] { return known }
        let key = KeyIndex(entity: entity, attribute: attribute)
        indexes[IndexKey(entity: entity, attribute: attribute)] = key
        indexedAttributes[entity, default: []].append(key)
        let objects: [ManagedObject]
        try finishWriting()
        do {
            objects = try context.fetch(FetchRequest(entityName: entity))
        } catch {
            throw DocumentError(.io, "reading the \(entity) objects to match by \(attribute.name): \(error)")
        }
        for object in objects where !building.contains(ObjectIdentifier(object)) {
            let value = try read(object, attribute)
            if !value.isNull { addToIndex(key, value, makeHandle(object)) }
        }
        // Rows not written yet are not in the store: they join from here.
        for i in pendingRows.indices {
            let row = pendingRows[i]
            guard row.entity.name == entity || row.entity.ancestorNames.contains(entity),
                let slot = row.entity.attributeIndex[attribute.name], !row.values[slot].isNull
            else { continue }
            addToIndex(key, row.values[slot], Self.rowHandle(&pendingRows[i].handle))
        }
        return key
    }

    private func addToIndex(_ key: KeyIndex, _ value: AttributeValue, _ handle: Handle) {
        if var entry = key.entries[value] {
            entry.count += 1
            if entry.count == 2, let usedAt = entry.usedAt {
                problem(
                    "\(describe(usedAt)): \(key.entity).\(key.attribute.name) = \(value.literalText) matches more than one \(key.entity) object"
                )
            }
            key.entries[value] = entry
        } else {
            key.entries[value] = IndexEntry(handle: handle, count: 1, usedAt: nil)
        }
    }
}
