import Foundation
import ObjectGraph

/// How a model maps onto Core Data's SQLite schema: entity numbers, one table per inheritance root, columns per
/// attribute and to-one relationship, join tables for many-to-many relationships (FORMATS.md §c).
///
/// Built from the model with Apple's naming rules; when an existing store is opened, its entity numbers come
/// from `Z_PRIMARYKEY` and its column and join-table names are confirmed by introspection.
final class SQLiteSchema {
    struct Entity {
        let name: String
        let number: Int64
        let superNumber: Int64
        let root: String
        let table: String
    }

    struct AttributeColumn {
        let attribute: AttributeDescription
        /// The column (for a composite attribute: empty; its members have columns of their own).
        var column: String
        let declaredType: String
        let rank: Int
        /// For a composite attribute: one column per member (nested composites flattened), in model order.
        var members: [MemberColumn] = []
    }

    /// One member of a composite attribute, stored in a column of its own: `Z<ATTRIBUTE>_<MEMBER>` (nested members
    /// add `_<MEMBER>` again), declared with the member's type, so that members can be queried and indexed.
    struct MemberColumn {
        /// The member names from the attribute down (`["location", "latitude"]`).
        let path: [String]
        let column: String
        let attribute: AttributeDescription
    }

    struct ToOneColumn {
        let relationship: RelationshipDescription
        var column: String
        /// `Z<n>_<NAME>`: the destination row's `Z_ENT`, when the destination has sub-entities.
        var entityColumn: String?
    }

    /// Where a to-many relationship's links live.
    enum ToManyStorage {
        /// The inverse to-one's foreign key on the destination table (one-to-many), with its order column when ordered.
        case inverseKey(table: String, column: String, orderColumn: String?)
        /// A join table (many-to-many): the column holding this side's key, the column holding the destination's.
        case joinTable(table: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)
        /// A to-many with no inverse: a hidden foreign key on the destination table, with its order column when
        /// ordered (`Z_FOK_` and the key's name without its `Z`, as for a one-to-many's foreign key).
        case hiddenKey(table: String, column: String, orderColumn: String?)
    }

    struct Table {
        let name: String
        var columns: [(name: String, type: String)]
        var indexes: [String]
    }

    let model: ManagedObjectModel
    private(set) var entities: [String: Entity] = [:]
    private(set) var entityByNumber: [Int64: String] = [:]
    /// `entityByNumber` as an array by number, for looking a row's entity up without hashing (numbers count from 1;
    /// a model's are small).
    @exclusivity(unchecked) private var entityNames: [String?] = []
    /// Attribute columns by entity name (inherited ones included), by attribute name.
    private(set) var attributeColumns: [String: [String: AttributeColumn]] = [:]
    private(set) var toOneColumns: [String: [String: ToOneColumn]] = [:]
    private(set) var toManyStorage: [String: [String: ToManyStorage]] = [:]
    private(set) var tables: [String: Table] = [:]
    private(set) var joinTables: [Table] = []
    private(set) var entityIndexes: [String] = []
    /// Ordered to-many relationships without an inverse (`Entity.name`) whose store has no order column: their
    /// destinations are kept in key order (see ``reconcile(with:)``).
    private(set) var orderedByKey: Set<String> = []

    /// - Throws: ``SQLiteStoreError`` `malformed` when an entity or property name is not an identifier (names are
    ///   quoted in SQL anyway; a name that is not an identifier means a damaged or hostile model).
    init(model: ManagedObjectModel, numbers: [String: Int64]? = nil) throws(SQLiteStoreError) {
        self.model = model
        try Self.checkNames(model)
        // Entity numbers: a pre-order walk, roots alphabetical, each followed by its sub-entities.
        var assigned: [String: Int64] = [:]
        for (index, name) in Self.preOrder(model).enumerated() { assigned[name] = Int64(index + 1) }
        let finalNumbers = numbers ?? assigned
        for entity in model.entities {
            let root = model.rootEntity(of: entity.name)
            // Every entity has a number (the walk covers the whole model); a missing one is refused, never guessed.
            guard let number = finalNumbers[entity.name] ?? assigned[entity.name] else {
                throw SQLiteStoreError(.malformed, path: "", "entity \(entity.name) has no entity number")
            }
            var superNumber: Int64 = 0
            if let parent = entity.parentName {
                guard let found = finalNumbers[parent] ?? assigned[parent] else {
                    throw SQLiteStoreError(.malformed, path: "", "entity \(parent) has no entity number")
                }
                superNumber = found
            }
            let info = Entity(
                name: entity.name, number: number, superNumber: superNumber, root: root,
                table: "Z" + root.uppercased())
            entities[entity.name] = info
            entityByNumber[number] = entity.name
        }
        let largest = entityByNumber.keys.max() ?? 0
        if largest < 1 << 16, entityByNumber.keys.allSatisfy({ $0 >= 0 }) {
            entityNames = Array(repeating: nil, count: Int(largest) + 1)
            for (number, name) in entityByNumber { entityNames[Int(number)] = name }
        }
        buildTables()
    }

    /// Everything a schema holds but its model: what ``of(_:numbers:)`` keeps with the model (a schema kept there
    /// would hold the model that holds it, and neither would ever be freed). Every part is a value: a schema made from
    /// them changes its own.
    private struct Parts {
        let entities: [String: Entity]
        let entityByNumber: [Int64: String]
        let entityNames: [String?]
        let attributeColumns: [String: [String: AttributeColumn]]
        let toOneColumns: [String: [String: ToOneColumn]]
        let toManyStorage: [String: [String: ToManyStorage]]
        let tables: [String: Table]
        let joinTables: [Table]
        let entityIndexes: [String]
        let orderedByKey: Set<String>
        let joinNames: [String: (String, String)]
    }

    /// The schema's parts (all but its model).
    private var parts: Parts {
        Parts(
            entities: entities, entityByNumber: entityByNumber, entityNames: entityNames,
            attributeColumns: attributeColumns, toOneColumns: toOneColumns, toManyStorage: toManyStorage,
            tables: tables, joinTables: joinTables, entityIndexes: entityIndexes, orderedByKey: orderedByKey,
            joinNames: joinNames)
    }

    /// A schema of `model` made of `parts` (taken from a schema of the same model and numbers).
    private init(model: ManagedObjectModel, parts: Parts) {
        self.model = model
        entities = parts.entities
        entityByNumber = parts.entityByNumber
        entityNames = parts.entityNames
        attributeColumns = parts.attributeColumns
        toOneColumns = parts.toOneColumns
        toManyStorage = parts.toManyStorage
        tables = parts.tables
        joinTables = parts.joinTables
        entityIndexes = parts.entityIndexes
        orderedByKey = parts.orderedByKey
        joinNames = parts.joinNames
    }

    /// The schema ``init(model:numbers:)`` builds, for a store to reconcile with its file: made of the parts of the one
    /// built the first time a store opened with `model` asked for these entity numbers, kept with the model (building
    /// it is about a fifth of opening a store).
    /// - Parameters:
    ///   - model: the model.
    ///   - numbers: the entity numbers of the store's file; `nil` for Core Data's own numbering (a new store).
    /// - Returns: a schema of the store's own.
    /// - Throws: ``SQLiteStoreError`` as ``init(model:numbers:)`` does.
    static func of(_ model: ManagedObjectModel, numbers: [String: Int64]?) throws(SQLiteStoreError) -> SQLiteSchema {
        // (No numbers and none given are the same: each entity then takes its number from Core Data's numbering.)
        let key = numbers ?? [:]
        let built = model.derived("SQLiteStore.SQLiteSchema.Built") { Built() }
        if let kept = built.parts(for: key) { return SQLiteSchema(model: model, parts: kept) }
        let schema = try SQLiteSchema(model: model, numbers: numbers)
        built.keep(schema.parts, for: key)
        return schema
    }

    /// The parts of the schemas built from one model, by entity numbers (a few: a model's stores usually share one
    /// numbering).
    private final class Built: @unchecked Sendable {
        // (Unchecked: `kept` is read and written under `lock` only, and holds values.)
        private let lock = NSLock()
        private var kept: [[String: Int64]: Parts] = [:]

        func parts(for numbers: [String: Int64]) -> Parts? {
            lock.lock()
            defer { lock.unlock() }
            return kept[numbers]
        }

        func keep(_ parts: Parts, for numbers: [String: Int64]) {
            lock.lock()
            defer { lock.unlock() }
            if kept.count >= 16 { kept.removeAll() }
            kept[numbers] = parts
        }
    }

    /// The entity whose number (`Z_ENT`) is `number`, if any.
    func entityName(number: Int64) -> String? {
        if number >= 0, number < entityNames.count { return entityNames[Int(number)] }
        return entityNames.isEmpty ? entityByNumber[number] : nil
    }

    /// The model's entity names in Core Data's numbering order: a pre-order walk, roots alphabetical (code points),
    /// each followed by its sub-entities.
    static func preOrder(_ model: ManagedObjectModel) -> [String] {
        var order: [String] = []
        var stack = model.entities.filter { $0.parentName == nil }.map(\.name).sorted(
            by: ManagedObjectModel.codePointOrder
        ).reversed().map { $0 }
        var visited: Set<String> = []
        while let name = stack.popLast() {
            guard visited.insert(name).inserted else { continue }
            order.append(name)
            stack += model.subentities(of: name).sorted(by: ManagedObjectModel.codePointOrder).reversed()
        }
        return order
    }

    /// Whether a name from a model can become part of SQL identifiers: letters, digits and `_`, not starting with a
    /// digit, at most 200 characters (Xcode allows no more for entity and property names).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 200 else { return false }
        if CharacterSet.decimalDigits.contains(first) { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            // ASCII (nearly every name) is decided here; Foundation's sets answer the rest.
            guard scalar.isASCII else {
                return CharacterSet.letters.contains(scalar) || CharacterSet.decimalDigits.contains(scalar)
            }
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": return true
            default: return false
            }
        }
    }

    static func checkNames(_ model: ManagedObjectModel) throws(SQLiteStoreError) {
        func check(_ name: String, _ what: @autoclosure () -> String) throws(SQLiteStoreError) {
            guard isIdentifier(name) else {
                throw SQLiteStoreError(
                    .malformed, path: "",
                    "the model's \(what()) '\(Diagnostics.quote(name))' is not a valid name (letters, digits and _ only)"
                )
            }
        }
        for entity in model.entities {
            try check(entity.name, "entity")
            for attribute in entity.attributes { try check(attribute.name, "attribute \(entity.name).") }
            for relationship in entity.relationships { try check(relationship.name, "relationship \(entity.name).") }
        }
        for composite in model.composites {
            for member in composite.attributes { try check(member.name, "composite member \(composite.name).") }
        }
    }

    func number(_ entity: String) -> Int64 { entities[entity]?.number ?? 0 }

    /// The table of an entity's hierarchy, as named in the file.
    func rawTable(of entity: String) -> String { entities[entity]?.table ?? "Z" + entity.uppercased() }

    /// The table of an entity's hierarchy, quoted for SQL.
    func table(of entity: String) -> String { Self.q(entities[entity]?.table ?? "Z" + entity.uppercased()) }

    /// An identifier quoted for SQL.
    static func q(_ identifier: String) -> String { SQLiteDatabase.quote(identifier) }

    /// The entity numbers of an entity and its descendants.
    func numbers(of entityNames: [String]) -> [Int64] { entityNames.compactMap { entities[$0]?.number } }

    static func declaredType(_ type: AttributeType) -> (String, Int) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: ("INTEGER", 0)
        case .date: ("TIMESTAMP", 2)
        case .double, .float: ("FLOAT", 2)
        case .decimal: ("DECIMAL", 3)
        case .string, .uri, .objectID: ("VARCHAR", 4)
        case .uuid: ("BLOB", 5)
        case .binary, .transformable, .composite, .undefined: ("BLOB", 6)
        }
    }

    private func buildTables() {
        let roots = model.entities.filter { $0.parentName == nil }.map(\.name)
        for root in roots {
            let hierarchy = model.entityAndDescendants(of: root)
            let tableName = "Z" + root.uppercased()
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            func columnName(_ base: String) -> String {
                var name = base
                var n = 1
                while used.contains(name) {
                    name = base + String(n)
                    n += 1
                }
                used.insert(name)
                return name
            }
            var attributeByKey: [String: AttributeColumn] = [:]
            var toOneByKey: [String: ToOneColumn] = [:]
            // Apple's column order: by kind of column (integers, dates and floats, decimals, strings, UUIDs, other
            // blobs); integers entity by entity down the hierarchy, each entity's attributes, then its foreign keys,
            // then the order columns of ordered to-many relationships they are the inverse of; by name within.
            var ranked: [(rank: Int, entity: Int, kind: Int, sort: String, columns: [(String, String)])] = []
            for (entityIndex, entityName) in hierarchy.enumerated() {
                guard let entity = model.entity(named: entityName) else { continue }
                for attribute in entity.attributes where !attribute.isTransient {
                    let (type, rank) = Self.declaredType(attribute.type)
                    if attribute.type == .composite {
                        var members: [MemberColumn] = []
                        flatten(attribute, path: [], prefix: "Z" + attribute.name.uppercased(), into: &members) {
                            columnName($0)
                        }
                        attributeByKey["\(entityName).\(attribute.name)"] = AttributeColumn(
                            attribute: attribute, column: "", declaredType: type, rank: rank, members: members)
                        for member in members {
                            let (memberType, memberRank) = Self.declaredType(member.attribute.type)
                            ranked.append(
                                (
                                    memberRank, memberRank == 0 ? entityIndex : 0, 0, member.column,
                                    [(member.column, memberType)]
                                ))
                        }
                        continue
                    }
                    let column = columnName("Z" + attribute.name.uppercased())
                    attributeByKey["\(entityName).\(attribute.name)"] = AttributeColumn(
                        attribute: attribute, column: column, declaredType: type, rank: rank)
                    ranked.append((rank, rank == 0 ? entityIndex : 0, 0, column, [(column, type)]))
                }
                for relationship in entity.relationships where !relationship.isToMany && !relationship.isTransient {
                    let column = columnName("Z" + relationship.name.uppercased())
                    var entityColumn: String?
                    let destinationRoot = model.rootEntity(of: relationship.destinationEntityName)
                    if !model.subentities(of: relationship.destinationEntityName).isEmpty {
                        entityColumn = columnName(
                            "Z\(number(destinationRoot))_" + relationship.name.uppercased())
                    }
                    toOneByKey["\(entityName).\(relationship.name)"] = ToOneColumn(
                        relationship: relationship, column: column, entityColumn: entityColumn)
                    var columns = [(column, "INTEGER")]
                    if let entityColumn { columns.append((entityColumn, "INTEGER")) }
                    ranked.append((0, entityIndex, 1, column, columns))
                    // Ordered one-to-many relationships keep their order next to the destination's foreign key.
                    if let inverse = model.inverse(of: relationship), inverse.isToMany, inverse.isOrdered {
                        let order = "Z_FOK_" + column.dropFirst()
                        used.insert(order)
                        ranked.append((0, entityIndex, 2, order, [(order, "INTEGER")]))
                    }
                }
            }
            // A to-many relationship without an inverse into this hierarchy keeps its owner's key (and order) on the
            // destination's rows, among the foreign keys and indexed like them (as a SwiftData store of CartKit has it).
            var hiddenKeys: [String] = []
            for entity in model.entities {
                for relationship in entity.relationships
                where relationship.isToMany && !relationship.isTransient && model.inverse(of: relationship) == nil {
                    guard let index = hierarchy.firstIndex(of: relationship.destinationEntityName) else { continue }
                    let (column, order) = hiddenKeyColumns(relationship, declaredOn: entity.name)
                    guard used.insert(column).inserted else { continue }
                    hiddenKeys.append(column)
                    ranked.append((0, index, 1, column, [(column, "INTEGER")]))
                    if let order {
                        used.insert(order)
                        ranked.append((0, index, 2, order, [(order, "INTEGER")]))
                    }
                }
            }
            ranked.sort { ($0.rank, $0.entity, $0.kind, $0.sort) < ($1.rank, $1.entity, $1.kind, $1.sort) }
            var table = Table(
                name: tableName,
                columns: [("Z_PK", "INTEGER PRIMARY KEY"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")],
                indexes: [])
            for group in ranked { for (name, type) in group.columns { table.columns.append((name, type)) } }
            for column in (toOneByKey.values.map(\.column) + hiddenKeys).sorted() {
                table.indexes.append(
                    "CREATE INDEX \(Self.q("\(tableName)_\(column)_INDEX")) ON \(Self.q(tableName)) (\(Self.q(column)));"
                )
            }
            if hierarchy.count > 1 {
                table.indexes.append(
                    "CREATE INDEX \(Self.q("\(tableName)_Z_ENT_INDEX")) ON \(Self.q(tableName)) (\(Self.q("Z_ENT")));")
            }
            tables[tableName] = table
            for entityName in hierarchy {
                var attributes: [String: AttributeColumn] = [:]
                var toOnes: [String: ToOneColumn] = [:]
                for declaring in [entityName] + model.ancestors(of: entityName) {
                    for (key, column) in attributeByKey where key.hasPrefix(declaring + ".") {
                        attributes[String(key.dropFirst(declaring.count + 1))] = column
                    }
                    for (key, column) in toOneByKey where key.hasPrefix(declaring + ".") {
                        toOnes[String(key.dropFirst(declaring.count + 1))] = column
                    }
                }
                attributeColumns[entityName] = attributes
                toOneColumns[entityName] = toOnes
            }
            for entityName in hierarchy {
                guard let entity = model.entity(named: entityName) else { continue }
                // Indexed attributes and fetch indexes (momc turns `indexed` into a fetch index per attribute, so a
                // model can have both under one name: that index is created once).
                var indexNames = Set<String>()
                for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
                    guard let column = attributeColumns[entityName]?[attribute.name]?.column,
                        indexNames.insert(attribute.name).inserted
                    else { continue }
                    entityIndexes.append(
                        "CREATE INDEX \(Self.q("Z_\(entityName)_\(attribute.name)")) ON \(Self.q(tableName)) (\(Self.q(column)) COLLATE BINARY ASC);"
                    )
                }
                for index in entity.fetchIndexes {
                    let columns = index.elements.compactMap { element -> String? in
                        guard
                            let column = attributeColumns[entityName]?[element.property]?.column
                                ?? toOneColumns[entityName]?[element.property]?.column
                        else { return nil }
                        return "\(Self.q(column)) COLLATE BINARY \(element.ascending ? "ASC" : "DESC")"
                    }
                    guard columns.count == index.elements.count, !columns.isEmpty,
                        indexNames.insert(index.name).inserted
                    else { continue }
                    entityIndexes.append(
                        "CREATE INDEX \(Self.q("Z_\(entityName)_\(index.name)")) ON \(Self.q(tableName)) (\(columns.joined(separator: ", ")));"
                    )
                }
                for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                    let columns = constraint.compactMap {
                        attributeColumns[entityName]?[$0]?.column ?? toOneColumns[entityName]?[$0]?.column
                    }
                    guard columns.count == constraint.count else { continue }
                    let indexName = Self.q("Z_\(entityName)_UNIQUE_" + constraint.joined(separator: "_"))
                    entityIndexes.append(
                        "CREATE UNIQUE INDEX \(indexName) ON \(Self.q(tableName)) ("
                            + columns.map { "\(Self.q($0)) COLLATE BINARY ASC" }.joined(separator: ", ") + ");")
                }
            }
        }
        buildToMany()
    }

    /// The key a to-many without an inverse, declared on `entity`, keeps on its destination's rows (`Z<n><NAME>`), and
    /// its order column when ordered (`Z_FOK_<n><NAME>`, as a one-to-many's `Z_FOK_` sits beside its foreign key).
    private func hiddenKeyColumns(_ relationship: RelationshipDescription, declaredOn entity: String) -> (
        key: String, order: String?
    ) {
        let key = "Z\(number(entity))\(relationship.name.uppercased())"
        return (key, relationship.isOrdered ? "Z_FOK_" + key.dropFirst() : nil)
    }

    private func buildToMany() {
        var joinColumnsUsed: [String: Set<String>] = [:]
        for entity in model.entities.sorted(by: { number($0.name) < number($1.name) }) {
            var storage: [String: ToManyStorage] = [:]
            for relationship in model.allRelationships(of: entity.name)
            where relationship.isToMany && !relationship.isTransient {
                let destination = relationship.destinationEntityName
                let inverse = model.inverse(of: relationship)
                if let inverse, !inverse.isToMany {
                    let declaring = declaringEntity(of: inverse.name, from: destination)
                    let column = toOneColumns[declaring]?[inverse.name]?.column ?? "Z" + inverse.name.uppercased()
                    storage[relationship.name] = .inverseKey(
                        table: rawTable(of: destination), column: column,
                        orderColumn: relationship.isOrdered ? "Z_FOK_" + column.dropFirst() : nil)
                } else if let inverse {
                    // Many-to-many: the table belongs to the ordered side when only one is (as in Apple's stores:
                    // `Z_28ASSETS (Z_28ALBUMS, Z_3ASSETS, Z_FOK_3ASSETS)`), else to the side with the smaller entity
                    // number.
                    let a = declaringEntity(of: relationship.name, from: entity.name)
                    let b = declaringEntity(of: inverse.name, from: destination)
                    let (na, nb) = (number(a), number(b))
                    // A relationship that is its own inverse (`friends` ↔ `friends`) is one side.
                    let selfInverse = a == b && relationship.name == inverse.name
                    let ownerIsThis =
                        relationship.isOrdered != inverse.isOrdered && !selfInverse
                        ? relationship.isOrdered : na < nb || (na == nb && relationship.name > inverse.name)
                    let (ownerEntity, ownerRel, otherEntity, otherRel) =
                        ownerIsThis ? (a, relationship.name, b, inverse.name) : (b, inverse.name, a, relationship.name)
                    let tableName = "Z_\(number(ownerEntity))\(ownerRel.uppercased())"
                    var ownerColumn = "Z_\(number(ownerEntity))\(otherRel.uppercased())"
                    var otherColumn = "Z_\(number(otherEntity))\(ownerRel.uppercased())"
                    if let known = joinNames[tableName] {
                        (ownerColumn, otherColumn) = known
                    } else {
                        // Column names are unique per entity: a repeat gets a digit suffix.
                        otherColumn = uniqueJoinColumn(otherColumn, entity: otherEntity, used: &joinColumnsUsed)
                        ownerColumn = uniqueJoinColumn(ownerColumn, entity: ownerEntity, used: &joinColumnsUsed)
                        if ownerColumn == otherColumn { otherColumn += "1" }
                        // Each ordered side's order column is named after the column of the keys it orders.
                        let (ownerOrdered, otherOrdered) =
                            ownerIsThis
                            ? (relationship.isOrdered, inverse.isOrdered) : (inverse.isOrdered, relationship.isOrdered)
                        var columns = [(ownerColumn, "INTEGER"), (otherColumn, "INTEGER")]
                        if ownerOrdered { columns.append(("Z_FOK_" + otherColumn.dropFirst(2), "INTEGER")) }
                        if otherOrdered && !selfInverse {
                            columns.append(("Z_FOK_" + ownerColumn.dropFirst(2), "INTEGER"))
                        }
                        joinTables.append(
                            Table(
                                name: tableName, columns: columns,
                                indexes: [
                                    "CREATE INDEX \(Self.q("\(tableName)_\(otherColumn)_INDEX")) ON \(Self.q(tableName)) (\(Self.q(otherColumn)), \(Self.q(ownerColumn)));"
                                ]))
                        joinNames[tableName] = (ownerColumn, otherColumn)
                    }
                    let (oc, tc) = (ownerColumn, otherColumn)
                    let orderColumn =
                        relationship.isOrdered ? "Z_FOK_" + (ownerIsThis || selfInverse ? tc : oc).dropFirst(2) : nil
                    storage[relationship.name] =
                        ownerIsThis
                        ? .joinTable(
                            table: tableName, sourceColumn: oc, destinationColumn: tc, orderColumn: orderColumn)
                        : .joinTable(
                            table: tableName, sourceColumn: tc, destinationColumn: oc, orderColumn: orderColumn)
                } else {
                    let (column, order) = hiddenKeyColumns(
                        relationship, declaredOn: declaringEntity(of: relationship.name, from: entity.name))
                    storage[relationship.name] = .hiddenKey(
                        table: rawTable(of: destination), column: column, orderColumn: order)
                }
            }
            toManyStorage[entity.name] = storage
        }
        // Order columns of ordered one-to-many relationships live in the destination tables.
        for (_, storages) in toManyStorage {
            for (_, storage) in storages {
                if case .inverseKey(let table, _, let order?) = storage,
                    tables[table]?.columns.contains(where: { $0.name == order }) == false
                {
                    tables[table]?.columns.append((order, "INTEGER"))
                }
            }
        }
    }

    private var joinNames: [String: (String, String)] = [:]

    /// The member columns of a composite attribute, nested composites flattened (the model has no cycles of
    /// composites: it refuses them).
    private func flatten(
        _ attribute: AttributeDescription, path: [String], prefix: String, into members: inout [MemberColumn],
        name: (String) -> String
    ) {
        guard let composite = attribute.compositeName.flatMap(model.composite(named:)), path.count < 16 else { return }
        for member in composite.attributes where !member.isTransient {
            let memberPath = path + [member.name]
            let base = prefix + "_" + member.name.uppercased()
            if member.type == .composite {
                flatten(member, path: memberPath, prefix: base, into: &members, name: name)
            } else {
                members.append(MemberColumn(path: memberPath, column: name(base), attribute: member))
            }
        }
    }

    private func uniqueJoinColumn(_ base: String, entity: String, used: inout [String: Set<String>]) -> String {
        var name = base
        var n = 1
        while used[entity, default: []].contains(name) {
            name = base + String(n)
            n += 1
        }
        used[entity, default: []].insert(name)
        return name
    }

    /// The entity (the given one or an ancestor) that declares a property.
    func declaringEntity(of property: String, from entity: String) -> String {
        for name in [entity] + model.ancestors(of: entity) {
            if let e = model.entity(named: name), e.declaredPropertyNames.contains(property) { return name }
        }
        return entity
    }

    /// The statements that create the schema (without Z_PRIMARYKEY and Z_METADATA).
    var createStatements: [String] {
        var statements: [String] = []
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            statements.append(
                "CREATE TABLE \(Self.q(table.name)) ( "
                    + table.columns.map { "\(Self.q($0.name)) \($0.type)" }.joined(separator: ", ") + " );")
        }
        for table in joinTables {
            let keys = table.columns.prefix(2).map(\.name)
            statements.append(
                "CREATE TABLE \(Self.q(table.name)) ( "
                    + table.columns.map { "\(Self.q($0.name)) \($0.type)" }.joined(separator: ", ")
                    + ", PRIMARY KEY (\(keys.map(Self.q).joined(separator: ", "))) );")
        }
        for table in tables.values.sorted(by: { $0.name < $1.name }) { statements += table.indexes }
        for table in joinTables { statements += table.indexes }
        statements += entityIndexes
        statements += derivedAttributeTriggers
        return statements
    }

    /// Apple's triggers for derived attributes that count a to-many relationship kept by a foreign key in the
    /// destination's table (`pages.@count`, `count(pages)`): the count goes up and down as rows of the destination are
    /// inserted, moved and deleted, and is computed when a row of the source is inserted. Each reports the row it
    /// changed through `NSCoreDataDATrigger…AffectedObjectValue`. Other derivations get no trigger (their values
    /// are what the program saves).
    var derivedAttributeTriggers: [String] { countTriggers.flatMap(\.statements) }

    /// The counting derived attributes of the model, with the name of their first trigger and their statements.
    var countTriggers: [(entity: String, attribute: String, name: String, statements: [String])] {
        var result: [(String, String, String, [String])] = []
        for entity in model.entities.sorted(by: { number($0.name) < number($1.name) }) {
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                guard let text = attribute.derivationExpression, let counted = Self.countedRelationship(text),
                    let relationship = model.allRelationships(of: entity.name).first(where: { $0.name == counted }),
                    relationship.isToMany,
                    case .inverseKey(let destination, let foreignKey, _)? = toManyStorage[entity.name]?[counted],
                    let column = attributeColumns[entity.name]?[attribute.name]?.column
                else { continue }
                let source = rawTable(of: entity.name)
                let prefix = "Z_DA_\(destination)_\(entity.name)_\(attribute.name)"
                let report = { (function: String, key: String) in
                    "SELECT \(function)('\(source)', Z_ENT, Z_PK, '\(attribute.name)', \(Self.q(column))) FROM \(Self.q(source)) WHERE Z_PK = \(key);"
                }
                let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
                let (d, s, c, f) = (Self.q(destination), Self.q(source), Self.q(column), Self.q(foreignKey))
                let statements = [
                    "CREATE TRIGGER \(Self.q(prefix + "_PARAMETER_INSERT")) AFTER INSERT ON \(d) FOR EACH ROW WHEN (NEW.\(f) NOT NULL) BEGIN UPDATE \(s) SET \(c) = IFNULL(\(c), 0) + 1 WHERE Z_PK = NEW.\(f); \(report(updated, "NEW.\(f)")) END;",
                    "CREATE TRIGGER \(Self.q(prefix + "_PARAMETER_UPDATE_INCREMENT")) AFTER UPDATE OF \(f) ON \(d) FOR EACH ROW WHEN (NEW.\(f) NOT NULL) BEGIN UPDATE \(s) SET \(c) = \(c) + 1 WHERE Z_PK = NEW.\(f); \(report(updated, "NEW.\(f)")) END;",
                    "CREATE TRIGGER \(Self.q(prefix + "_PARAMETER_UPDATE_DECREMENT")) AFTER UPDATE OF \(f) ON \(d) FOR EACH ROW WHEN (OLD.\(f) NOT NULL) BEGIN UPDATE \(s) SET \(c) = \(c) - 1 WHERE Z_PK = OLD.\(f); \(report(updated, "OLD.\(f)")) END;",
                    "CREATE TRIGGER \(Self.q(prefix + "_PARAMETER_DELETE")) AFTER DELETE ON \(d) FOR EACH ROW WHEN (OLD.\(f) NOT NULL) BEGIN UPDATE \(s) SET \(c) = \(c) - 1 WHERE Z_PK = OLD.\(f); \(report(updated, "OLD.\(f)")) END;",
                    "CREATE TRIGGER \(Self.q("Z_DA_\(source)_\(entity.name)_\(attribute.name)_SOURCE_INSERT")) AFTER INSERT ON \(s) FOR EACH ROW BEGIN UPDATE \(s) SET \(c) = (SELECT IFNULL(COUNT(\(f)), 0) FROM \(d) WHERE \(f) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; \(report("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NEW.Z_PK")) END;",
                ]
                result.append((entity.name, attribute.name, prefix + "_PARAMETER_INSERT", statements))
            }
        }
        return result
    }

    /// The to-many relationship a derivation counts (`pages.@count`, `count(pages)`, `count:(pages)`), if that is
    /// what it is.
    static func countedRelationship(_ text: String) -> String? {
        guard let expression = try? ObjectExpression(format: text) else { return nil }
        switch expression {
        case .keyPath(.evaluatedObject, let path) where path.count == 2 && path[1] == "@count":
            return path[0]
        case .function(let name, let arguments) where ["count", "count:"].contains(name) && arguments.count == 1:
            if case .keyPath(.evaluatedObject, let path) = arguments[0], path.count == 1 { return path[0] }
            return nil
        default:
            return nil
        }
    }

    /// The order column of the inverse of `entity`'s to-many `name` when that inverse is an ordered to-many kept in
    /// the same join table (a many-to-many ordered on the other side): the join rows this side writes carry it.
    func inverseOrderColumn(of entity: String, _ name: String) -> String? {
        guard case .joinTable(let table, _, _, _)? = toManyStorage[entity]?[name],
            let relationship = model.allRelationships(of: entity).first(where: { $0.name == name }),
            let inverse = model.inverse(of: relationship),
            case .joinTable(table, _, _, let order?)? = toManyStorage[relationship.destinationEntityName]?[inverse.name]
        else { return nil }
        return order
    }

    /// Adjusts column and join-table names to what an existing store has (Apple's stores may differ from our naming
    /// where names collide).
    func reconcile(with catalog: inout SQLiteCatalog) throws(SQLiteStoreError) {
        func columns(_ table: String) throws(SQLiteStoreError) -> Set<String> { try catalog.columns(of: table) }
        // The tables whose names start `Z_` (any case of the Z, as SQLite's LIKE matches), in the schema's order.
        let joinCandidates = catalog.tables.filter {
            let name = $0.utf8
            return name.count >= 2 && (name.first == UInt8(ascii: "Z") || name.first == UInt8(ascii: "z"))
                && name.dropFirst().first == UInt8(ascii: "_")
        }
        for (entity, storages) in toManyStorage {
            for (name, storage) in storages {
                // An ordered to-many without an inverse in a store made without its order column (by an earlier
                // docutil): its destinations are read in key order, and a save of another order is refused.
                if case .hiddenKey(let table, let column, let order?) = storage, !(try columns(table)).contains(order) {
                    toManyStorage[entity]?[name] = .hiddenKey(table: table, column: column, orderColumn: nil)
                    orderedByKey.insert(entity + "." + name)
                    continue
                }
                guard case .joinTable(var table, var source, var destination, var order) = storage else { continue }
                let existing = try columns(table)
                if !existing.contains(source) || !existing.contains(destination) {
                    // The same table with digit-suffixed columns, or the table named from the other side.
                    guard
                        let match = try matchJoin(
                            table: table, source: source, destination: destination, candidates: joinCandidates,
                            columns: columns)
                    else { continue }
                    (table, source, destination) = match
                }
                if let wanted = order, !(try columns(table)).contains(wanted) {
                    // The order column under another name (a table named from the other side): the table's only one,
                    // when the other side keeps no order. Without one (a store made by an earlier docutil, whose
                    // sides of a many-to-many ordered on both shared one column), the destinations are read in key
                    // order and a save of another order is refused, as for a to-many without an inverse.
                    let orderColumns = try columns(table).filter { $0.hasPrefix("Z_FOK_") }
                    if orderColumns.count == 1, inverseOrderColumn(of: entity, name) == nil {
                        order = orderColumns.first
                    } else {
                        order = nil
                        orderedByKey.insert(entity + "." + name)
                    }
                }
                toManyStorage[entity]?[name] = .joinTable(
                    table: table, sourceColumn: source, destinationColumn: destination, orderColumn: order)
            }
        }
    }

    private func matchJoin(
        table: String, source: String, destination: String, candidates: [String],
        columns: (String) throws(SQLiteStoreError) -> Set<String>
    ) throws(SQLiteStoreError) -> (String, String, String)? {
        func strip(_ s: String) -> String { String(s.reversed().drop(while: \.isNumber).reversed()) }
        for candidate in [table] + candidates where candidate.hasPrefix("Z_") {
            let existing = try columns(candidate)
            let s = existing.first { strip($0) == strip(source) }
            let d = existing.first { strip($0) == strip(destination) && $0 != s }
            if let s, let d { return (candidate, s, d) }
        }
        return nil
    }
}
