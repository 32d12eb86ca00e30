import CSQLite
import Foundation
public import ObjectGraph

extension SQLiteStore {
    /// Reserves primary keys for new objects (`Z_PRIMARYKEY.Z_MAX`).
    /// - Parameters:
    ///   - entityName: The root entity the keys are numbered in.
    ///   - count: How many keys.
    /// - Returns: The keys, in order.
    /// - Throws: `StoreError` when the row cannot be updated.
    public func allocatePrimaryKeys(forRoot entityName: String, count: Int) throws(StoreError) -> [Int64] {
        let number = schema.number(entityName)
        guard count > 0 else { return [] }
        do throws(SQLiteStoreError) {
            try database.execute("BEGIN IMMEDIATE")
            do throws(SQLiteStoreError) {
                try addPendingPrimaryKeyRows(for: entityName)
                guard
                    case .integer(let current)? = try database.query(
                        "SELECT IFNULL(Z_MAX, 0) FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]
                    ).first?.first
                else {
                    throw SQLiteStoreError(
                        .malformed, path: database.path, "Z_PRIMARYKEY has no integer Z_MAX for \(entityName)")
                }
                // Above every key the table holds, whatever Z_MAX says: a Z_MAX left behind (rows added without it,
                // a NULL) would hand out keys that are taken (`docutil check` reports such a store).
                let table = schema.table(of: entityName)
                let taken: Int64
                switch try database.query("SELECT MAX(Z_PK) FROM \(table)").first?.first {
                case .integer(let key)?: taken = key
                case .null?, nil: taken = 0
                case let other?:
                    throw SQLiteStoreError(
                        .malformed, path: database.path, "the largest Z_PK of \(table) is not an integer: \(other)")
                }
                let base = max(current, taken)
                let (highest, overflow) = base.addingReportingOverflow(Int64(count))
                guard current >= 0, !overflow else {
                    throw SQLiteStoreError(
                        .malformed, path: database.path,
                        base == current
                            ? "Z_PRIMARYKEY.Z_MAX for \(entityName) is \(current): no room for \(count) new keys"
                            : "the largest Z_PK of \(table) is \(taken): no room for \(count) new keys")
                }
                try database.run(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(highest), .integer(number)])
                try database.execute("COMMIT")
                return Array((base + 1)...highest)
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        } catch {
            throw storeError(error)
        }
    }

    /// Runs the whole save in one transaction; the coordinator commits it once every store has prepared.
    ///
    /// Each update writes only the changed columns, and only if the row still has the version the object was read
    /// at (`UPDATE … WHERE Z_PK = ? AND Z_OPT = ?`, then the changed-row count); each delete likewise. Any conflict
    /// rolls the transaction back and is reported with the row's current state.
    /// - Parameter request: the inserts, updates and deletes of the save.
    /// - Returns: the open transaction, committed or rolled back by the coordinator.
    /// - Throws: `StoreError` `conflict` (with each object's current state) when a row changed since it was read,
    ///   or another error when SQL fails; nothing is then written.
    public func prepareSave(_ request: IncrementalSaveRequest) throws(StoreError) -> any StoreTransaction {
        if let metadataProblem {
            throw StoreError(
                .corrupt, path: description.url?.path,
                "\(metadataProblem); not saving, so that the app's metadata is not replaced")
        }
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            throw storeError(error)
        }
        triggerEffects.rows.removeAll()
        var conflicts: [SaveConflict] = []
        do throws(SQLiteStoreError) {
            for deletion in request.deleted {
                if try !deleteRow(deletion) {
                    conflicts.append(try conflict(deletion.objectID, deletion.expectedVersion))
                }
            }
            if !pendingPrimaryKeyRows.isEmpty {
                for name in Set(request.inserted.map(\.objectID.entityName)) { try addPendingPrimaryKeyRows(for: name) }
            }
            try insertRows(request.inserted)
            // Through a buffer: each update is read where it is, not copied (a copy retains each of its parts).
            let updatedWithToMany = try request.updated.withUnsafeBufferPointer {
                (updated) throws(SQLiteStoreError) -> [Int] in
                guard let first = updated.baseAddress else { return [] }
                var withToMany: [Int] = []
                for i in updated.indices {
                    if try !updateRow(first + i) {
                        conflicts.append(try conflict(updated[i].snapshot.objectID, updated[i].expectedVersion))
                    }
                    if let snapshot = (first + i).pointer(to: \.snapshot), ObjectSnapshot.hasToMany(snapshot) {
                        withToMany.append(i)
                    }
                }
                return withToMany
            }
            if conflicts.isEmpty {
                // Through a buffer: each inserted snapshot is read where it is, not copied.
                let highest = try request.inserted.withUnsafeBufferPointer {
                    (inserted) throws(SQLiteStoreError) -> [Int64: Int64] in
                    // An inverse-less to-many is one key on each destination: every owner written lets go of its
                    // old destinations first, so that one moved between two owners in this save is free when taken.
                    // Each checked where it is (`ObjectSnapshot.hasToMany(_:)`): most have none, and copying one
                    // to ask retains each of its parts.
                    let withToMany = inserted.indices.filter { i in
                        inserted.baseAddress.map { ObjectSnapshot.hasToMany($0 + i) } ?? false
                    }
                    for i in withToMany { try clearHiddenKeys(inserted[i], only: nil) }
                    for i in updatedWithToMany {
                        try clearHiddenKeys(request.updated[i].snapshot, only: request.updated[i].changedKeys)
                    }
                    for i in withToMany { try writeToMany(inserted[i], only: nil) }
                    for i in updatedWithToMany {
                        try writeToMany(request.updated[i].snapshot, only: request.updated[i].changedKeys)
                    }
                    return highestKeys(of: inserted)
                }
                for (root, key) in highest {
                    try database.run(
                        "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = ?",
                        [.integer(key), .integer(root)])
                }
                if let historyTables { try appendHistory(request, tables: historyTables) }
                try writeMetadata()
            }
        } catch {
            try? database.execute("ROLLBACK")
            throw storeError(error)
        }
        if !conflicts.isEmpty {
            try? database.execute("ROLLBACK")
            throw StoreError(
                .conflict, path: description.url?.path,
                "\(conflicts.count) object(s) changed in the store since they were read", conflicts: conflicts)
        }
        // Objects the store's triggers changed (values the save did not write): read again after it.
        var changedByStore: [ManagedObjectID] = []
        var seen = Set<ManagedObjectID>()
        for row in triggerEffects.rows {
            guard let name = schema.entityByNumber[row.entity] else { continue }
            let id = ManagedObjectID(entityName: name, storeIdentifier: identifier, primaryKey: row.key)
            if seen.insert(id).inserted { changedByStore.append(id) }
        }
        triggerEffects.rows.removeAll()
        return Transaction(database: database, path: description.url?.path, objectsChangedByStore: changedByStore)
    }

    /// The highest primary key among `inserted` for each root entity's number: keys given elsewhere (a migration)
    /// raise `Z_MAX` so that new keys never collide.
    private func highestKeys(of inserted: UnsafeBufferPointer<ObjectSnapshot>) -> [Int64: Int64] {
        var highest: [Int64: Int64] = [:]
        // Objects come in runs of one entity: the root's number is looked up, and the table updated, once per run.
        var runEntity: String? = nil
        var runRoot: Int64 = 0
        var runHighest: Int64 = 0
        for i in inserted.indices {
            let id = inserted[i].objectID
            if id.entityName != runEntity {
                if runEntity != nil { highest[runRoot] = max(highest[runRoot] ?? 0, runHighest) }
                runEntity = id.entityName
                runRoot = schema.number(model.rootEntity(of: id.entityName))
                runHighest = 0
            }
            runHighest = max(runHighest, id.primaryKey)
        }
        if runEntity != nil { highest[runRoot] = max(highest[runRoot] ?? 0, runHighest) }
        return highest
    }

    struct Transaction: StoreTransaction {
        let database: SQLiteDatabase
        let path: String?
        let objectsChangedByStore: [ManagedObjectID]
        func commit() throws(StoreError) {
            do {
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw StoreError(.io, path: path, error.message)
            }
        }
        func rollback() { try? database.execute("ROLLBACK") }
    }

    /// What a conflicting row holds now (inside the save's transaction).
    private func conflict(_ id: ManagedObjectID, _ expected: Int64) throws(SQLiteStoreError) -> SaveConflict {
        var stored: ObjectSnapshot?
        try readRows(
            "SELECT * FROM \(schema.table(of: id.entityName)) WHERE Z_PK = ?", [.integer(id.primaryKey)],
            table: schema.table(of: id.entityName)
        ) {
            stored = $0
            return true
        }
        return SaveConflict(objectID: id, expectedVersion: expected, storedSnapshot: stored)
    }

    /// What ``SQLiteStore/lastDeleteSQL`` keeps of the last `DELETE`: its entity, table and text, the statements
    /// that clear the entity's to-many storage, and the prepared statement (when made) with the database's statement
    /// generation then. A class: taken from the store once per row (a structure's strings were retained and released
    /// each time).
    final class LastDelete {
        let entity: String
        let table: String
        let sql: String
        let clears: [String]
        let statement: OpaquePointer?
        let generation: Int

        init(entity: String, table: String, sql: String, clears: [String], statement: OpaquePointer?, generation: Int) {
            self.entity = entity
            self.table = table
            self.sql = sql
            self.clears = clears
            self.statement = statement
            self.generation = generation
        }
    }

    /// What ``SQLiteStore/lastUpdateSQL`` keeps of the last `UPDATE`: its entity, the changed keys it was made for
    /// and the positions in the entity's column plan of the properties they write, its text and prepared statement
    /// with the database's statement generation then, and the entity's plan, layout and plan index. A class: taken
    /// from the store once per row.
    final class LastUpdate {
        let entity: String
        let keys: Set<String>
        let positions: [Int]
        let sql: String
        let statement: OpaquePointer
        let generation: Int
        let plan: [ColumnSource]
        let layout: EntityLayout
        let index: PlanIndex

        init(
            entity: String, keys: Set<String>, positions: [Int], sql: String, statement: OpaquePointer,
            generation: Int, plan: [ColumnSource], layout: EntityLayout, index: PlanIndex
        ) {
            self.entity = entity
            self.keys = keys
            self.positions = positions
            self.sql = sql
            self.statement = statement
            self.generation = generation
            self.plan = plan
            self.layout = layout
            self.index = index
        }
    }

    /// Calls `body` with each column of the snapshot's row and its value, in the entity's column order: the columns of
    /// every entry of `plan` (the entity's column plan, looked up by the caller once for many rows), or of the entries
    /// at `positions` only (in increasing order: an update's changed properties, see ``planPositions(of:_:layout:)``).
    private func forEachColumn(
        of snapshot: UnsafePointer<ObjectSnapshot>, only positions: [Int]?, plan: [ColumnSource], layout: EntityLayout?,
        _ body: (_ column: @autoclosure () -> String, SQLiteValue) throws(SQLiteStoreError) -> Void
    ) throws(SQLiteStoreError) {
        // (The column's name is made only for a body that asks for it: an insert binds by position, and took a
        // retain and a release of every name.)
        // A snapshot held by this entity's slots is read slot by slot, nothing looked up by name.
        let slotted = snapshot.pointee.slotted.flatMap { $0.layout === layout ? $0 : nil }
        let links = snapshot.pointee.slottedRelationships.flatMap { $0.layout === layout ? $0.values : nil }
        // Through a buffer: each source is read where it is, not copied (and its strings retained) per row.
        try plan.withUnsafeBufferPointer { (plan) throws(SQLiteStoreError) in
            // Sorted: the next position wanted is the only one that can be this entry.
            var next = 0
            for i in plan.indices {
                if let positions {
                    guard next < positions.count, positions[next] == i else { continue }
                    next += 1
                }
                // The entry's fields are read where they are (no copy of the entry, no string retained).
                switch plan[i].kind {
                case .attribute:
                    let slot = plan[i].slot
                    if let slotted, slot < slotted.count {
                        // A number or a text is written as it is held (NaN and anything else: the long way below).
                        switch slotted.scalar(at: slot) {
                        case .null:
                            try body(plan[i].column, .null)
                            continue
                        case .integer(let v):
                            try body(plan[i].column, .integer(v))
                            continue
                        case .real(let v) where !v.isNaN:
                            try body(plan[i].column, .real(v))
                            continue
                        case .text(let s):
                            try body(plan[i].column, .text(s))
                            continue
                        case .real, .other: break
                        }
                    }
                    try body(
                        plan[i].column,
                        try encodedAttribute(plan[i], of: snapshot, slotted: slotted, layout: layout))
                case .composite:
                    let name = plan[i].name
                    let value = ObjectSnapshot.attribute(name, of: snapshot)
                    for member in plan[i].members {
                        let memberValue = Self.member(value, member.path[...])
                        let encoded = SQLiteValueCoding.encode(memberValue)
                        try checkStorable(
                            memberValue, encoded, snapshot.pointee.objectID,
                            "\(name).\(member.path.joined(separator: "."))")
                        try body(member.column, encoded)
                    }
                case .toOne:
                    let slot = plan[i].slot
                    let destination: ManagedObjectID?
                    if let links {
                        // As `snapshot[toOne:]` reads it: no destination unless the slot holds one.
                        if slot < links.count, case .toOne(let id) = links[slot] {
                            destination = id
                        } else {
                            destination = nil
                        }
                    } else {
                        destination = ObjectSnapshot.toOne(plan[i].name, of: snapshot) ?? nil
                    }
                    try body(plan[i].column, destination.map { .integer($0.primaryKey) } ?? .null)
                    if let entityColumn = plan[i].entityColumn {
                        try body(entityColumn, destination.map { .integer(schema.number($0.entityName)) } ?? .null)
                    }
                }
            }
        }
    }

    /// The column value of an attribute entry of a column plan for a snapshot, the long way: its value converted and
    /// checked (a value that does not fit a column, or one of an Undefined attribute, is an error).
    private func encodedAttribute(
        _ entry: ColumnSource, of snapshot: UnsafePointer<ObjectSnapshot>, slotted: SlotValues?,
        layout: EntityLayout?
    ) throws(SQLiteStoreError) -> SQLiteValue {
        let slot = entry.slot
        let value =
            slotted.map { slot < $0.count ? $0[slot] : .null }
            ?? ObjectSnapshot.attribute(entry.name, of: snapshot)
        if !value.isNull, let layout, slot < layout.attributeTypes.count, layout.attributeTypes[slot] == .undefined {
            // A column read back by its attribute's type has none for an Undefined attribute.
            throw SQLiteStoreError(
                .unsupported, path: database.path,
                "\(snapshot.pointee.objectID.entityName).\(entry.name) of \(snapshot.pointee.objectID) holds a value, but its type is Undefined, which a SQLite store cannot hold (make the attribute transient); not saved"
            )
        }
        let encoded = SQLiteValueCoding.encode(value, external: entry.external)
        try checkStorable(value, encoded, snapshot.pointee.objectID, entry.name)
        return encoded
    }

    /// Binds the columns of an entity's column plan (`plan`, without composites) for a snapshot held by the entity's
    /// slots, from parameter 4 on: as ``forEachColumn(of:only:plan:layout:_:)`` gives them to an insert, each number
    /// and text bound from where it is held (nothing made, retained or looked up per column), anything else the long
    /// way.
    private func bindSlotted(
        _ snapshot: UnsafePointer<ObjectSnapshot>, _ values: SlotValues, _ links: [RelationshipSlotValue],
        plan: UnsafeBufferPointer<ColumnSource>, layout: EntityLayout, to statement: OpaquePointer
    ) throws(SQLiteStoreError) {
        var parameter: Int32 = 4
        for i in plan.indices {
            let slot = plan[i].slot
            if plan[i].kind == .toOne {
                // As `snapshot[toOne:]` reads it: no destination unless the slot holds one.
                let destination: ManagedObjectID?
                if slot < links.count, case .toOne(let id) = links[slot] { destination = id } else { destination = nil }
                try database.bindInRow(statement, parameter, destination.map { .integer($0.primaryKey) } ?? .null)
                parameter += 1
                if plan[i].entityColumn != nil {
                    try database.bindInRow(
                        statement, parameter, destination.map { .integer(schema.number($0.entityName)) } ?? .null)
                    parameter += 1
                }
                continue
            }
            let status: Int32
            switch slot < values.count ? values.inPlace(at: slot) : .null {
            case .null: status = sqlite3_bind_null(statement, parameter)
            case .integer(let v): status = sqlite3_bind_int64(statement, parameter, v)
            case .real(let v) where !v.isNaN: status = sqlite3_bind_double(statement, parameter, v)
            case .text:
                status =
                    values.withText(at: slot) { bytes in database.bindTextInRow(statement, parameter, bytes) }
                    ?? sqlite3_bind_null(statement, parameter)
            case .real, .other:
                try database.bindInRow(
                    statement, parameter,
                    try encodedAttribute(plan[i], of: snapshot, slotted: values, layout: layout))
                status = SQLITE_OK
            }
            if status != SQLITE_OK { throw database.error(status, "binding") }
            parameter += 1
        }
    }

    /// The positions in an entity's column plan of the properties `keys` names (in increasing order; names without a
    /// column, a to-many or a transient property, left out): each key's slot found through the layout's name index,
    /// not by comparing each plan entry's name.
    private func planPositions(of keys: Set<String>, _ index: PlanIndex, layout: EntityLayout) -> [Int] {
        var positions: [Int] = []
        positions.reserveCapacity(keys.count)
        for key in keys {
            if let slot = layout.attributeSlot(named: key) {
                if slot < index.byAttributeSlot.count, index.byAttributeSlot[slot] >= 0 {
                    positions.append(index.byAttributeSlot[slot])
                }
            } else if let slot = layout.relationshipSlot(named: key), slot < index.byRelationshipSlot.count,
                index.byRelationshipSlot[slot] >= 0
            {
                positions.append(index.byRelationshipSlot[slot])
            }
        }
        if positions.count > 1 { positions.sort() }
        return positions
    }

    /// Where each attribute and to-one relationship of an entity is in its column plan (made once per entity).
    func planIndex(of entityName: String, plan: [ColumnSource], layout: EntityLayout) -> PlanIndex {
        if let known = planIndexes[entityName] { return known }
        var byAttributeSlot = [Int](repeating: -1, count: layout.attributes.count)
        var byRelationshipSlot = [Int](repeating: -1, count: layout.relationships.count)
        for (i, source) in plan.enumerated() {
            switch source.kind {
            case .attribute, .composite:
                if source.slot < byAttributeSlot.count { byAttributeSlot[source.slot] = i }
            case .toOne: if source.slot < byRelationshipSlot.count { byRelationshipSlot[source.slot] = i }
            }
        }
        let index = PlanIndex(byAttributeSlot: byAttributeSlot, byRelationshipSlot: byRelationshipSlot)
        planIndexes[entityName] = index
        return index
    }

    /// Refuses a value SQLite would not give back as it is, so that nothing is written: a NaN (SQLite stores it as
    /// NULL, which reads back as nil), and a decimal the column would change. A decimal is written as its text, and
    /// SQLite's NUMERIC affinity turns a number's text into an integer or a 64-bit floating point number (15
    /// significant digits), as Core Data's decimals are kept: one that does not come back equal is refused.
    private func checkStorable(
        _ value: AttributeValue, _ encoded: SQLiteValue, _ objectID: @autoclosure () -> ManagedObjectID,
        _ key: String
    ) throws(SQLiteStoreError) {
        // (The ID is made only for a message: a snapshot may know its object by key.)
        func refuse(_ why: String) -> SQLiteStoreError {
            let id = objectID()
            return SQLiteStoreError(
                .unsupported, path: database.path, "\(id.entityName).\(key) of \(id) \(why); not saved")
        }
        switch (value, encoded) {
        case (_, .real(let number)) where number.isNaN:
            throw refuse("is NaN, which a SQLite store cannot hold (it would read back as nil)")
        case (.decimal(let decimal), .text(let text)):
            if decimal.isNaN { throw refuse("is a decimal NaN, which a SQLite store cannot hold") }
            // Up to 15 significant digits a 64-bit floating point number keeps exactly (the usual case: prices).
            if Self.significantDigits(text) <= 15 { return }
            // What the column keeps of the text, read back as the decoder reads it.
            guard let stored = try database.query("SELECT CAST(? AS NUMERIC)", [.text(text)]).first?.first else {
                throw refuse("could not be checked")
            }
            let back: AttributeValue
            do {
                back = try SQLiteValueCoding.decode(stored, as: .decimal, external: false, externalDirectory: nil)
            } catch {
                throw refuse("is \(text), which a SQLite column cannot hold (\(error.reason))")
            }
            guard case .decimal(let read) = back, read == decimal else {
                throw refuse(
                    "is \(text), which a SQLite store would give back as \(back.literalText) (it keeps decimals as 64-bit floating point numbers, as Core Data does); the XML and binary stores hold it"
                )
            }
        default: break
        }
    }

    /// The digits of a number's text from its first nonzero digit to its last (`0.0120` and `-12000` have 2).
    static func significantDigits(_ text: String) -> Int {
        var first: Int?
        var last = 0
        var position = 0
        for byte in text.utf8 where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
            if byte != UInt8(ascii: "0") {
                if first == nil { first = position }
                last = position
            }
            position += 1
        }
        return first.map { last - $0 + 1 } ?? 0
    }

    /// The columns of an entity's rows in order, with the property each comes from: its stored attributes, then
    /// its to-one relationships (and their entity columns).
    func columnPlan(for entityName: String) -> [ColumnSource] {
        if let plan = columnPlans[entityName] { return plan }
        var plan: [ColumnSource] = []
        if let layout = model.layout(of: entityName) {
            for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
                guard let column = schema.attributeColumns[entityName]?[attribute.name] else { continue }
                if attribute.type == .composite {
                    plan.append(
                        ColumnSource(
                            kind: .composite, name: attribute.name, slot: slot,
                            members: column.members.map { ($0.column, $0.path) }))
                } else {
                    plan.append(
                        ColumnSource(
                            kind: .attribute, name: attribute.name, slot: slot, column: column.column,
                            external: attribute.allowsExternalBinaryDataStorage))
                }
            }
            for (slot, relationship) in layout.relationships.enumerated()
            where !relationship.isToMany && !relationship.isTransient {
                guard let column = schema.toOneColumns[entityName]?[relationship.name] else { continue }
                plan.append(
                    ColumnSource(
                        kind: .toOne, name: relationship.name, slot: slot, column: column.column,
                        entityColumn: column.entityColumn))
            }
        }
        columnPlans[entityName] = plan
        return plan
    }

    /// The value of a composite member at a path (null when the composite or a level of it is null).
    static func member(_ value: AttributeValue, _ path: ArraySlice<String>) -> AttributeValue {
        guard let first = path.first, case .composite(let members) = value, let inner = members[first] else {
            return .null
        }
        return path.count == 1 ? inner : member(inner, path.dropFirst())
    }

    /// Inserts the rows of new objects; a run of objects of one entity (a batch) uses one prepared statement and
    /// looks nothing up by name per row.
    private func insertRows(_ snapshots: [ObjectSnapshot]) throws(SQLiteStoreError) {
        // Through a buffer: each snapshot is read where it is, not copied (its parts retained) per row.
        try snapshots.withUnsafeBufferPointer { (snapshots) throws(SQLiteStoreError) in try insertRows(snapshots) }
    }

    private func insertRows(_ snapshots: UnsafeBufferPointer<ObjectSnapshot>) throws(SQLiteStoreError) {
        guard let first = snapshots.baseAddress else { return }
        var i = 0
        while i < snapshots.count {
            let entityName = snapshots[i].objectID.entityName
            guard let layout = model.layout(of: entityName) else {
                throw SQLiteStoreError(.malformed, path: database.path, "no entity \(entityName) in the model")
            }
            let number = schema.number(entityName)
            let plan = columnPlan(for: entityName)
            let sql = insertSQL(for: entityName, plan: plan)
            let statement = try database.statement(sql)
            // A plan without composites is bound straight from the slots of a snapshot held by them.
            let bindsSlots = !plan.contains { $0.kind == .composite }
            repeat {
                // Each value is bound as it comes (no list of the row's values made), texts where SQLite reads them
                // in place until the row is written; a value that fails leaves no binding behind.
                do throws(SQLiteStoreError) {
                    try database.bind(statement, 1, .integer(snapshots[i].objectID.primaryKey))
                    try database.bind(statement, 2, .integer(number))
                    try database.bind(statement, 3, .integer(snapshots[i].version))
                    if bindsSlots, let values = snapshots[i].slotted, values.layout === layout,
                        let links = snapshots[i].slottedRelationships, links.layout === layout
                    {
                        try plan.withUnsafeBufferPointer { (plan) throws(SQLiteStoreError) in
                            try bindSlotted(first + i, values, links.values, plan: plan, layout: layout, to: statement)
                        }
                    } else {
                        var parameter: Int32 = 4
                        try forEachColumn(of: first + i, only: nil, plan: plan, layout: layout) {
                            (_, value) throws(SQLiteStoreError) in
                            try database.bindInRow(statement, parameter, value)
                            parameter += 1
                        }
                    }
                } catch {
                    database.abandonRow(statement)
                    throw error
                }
                try database.stepBoundRow(statement, sql: sql)
                i += 1
            } while i < snapshots.count && snapshots[i].objectID.entityName == entityName
        }
    }

    /// The `INSERT` of an entity's rows, with the columns of its plan in order (made once per entity).
    private func insertSQL(for entityName: String, plan: [ColumnSource]) -> String {
        if let known = insertSQL[entityName] { return known }
        var names: [String] = []
        for source in plan {
            switch source.kind {
            case .attribute: names.append(source.column)
            case .composite: names += source.members.map(\.column)
            case .toOne:
                names.append(source.column)
                if let entityColumn = source.entityColumn { names.append(entityColumn) }
            }
        }
        let list = names.map { ", " + SQLiteSchema.q($0) }.joined()
        let sql =
            "INSERT INTO \(schema.table(of: entityName)) (Z_PK, Z_ENT, Z_OPT\(list)) VALUES (?, ?, ?\(String(repeating: ", ?", count: names.count)))"
        insertSQL[entityName] = sql
        return sql
    }

    /// Writes the changed columns of a row if its version is still the expected one; `false` when it is not (or the
    /// row is gone).
    private func updateRow(_ update: UnsafePointer<ObjectUpdate>) throws(SQLiteStoreError) -> Bool {
        guard let snapshot = update.pointer(to: \.snapshot) else {
            throw SQLiteStoreError(.malformed, path: database.path, "an update without its snapshot's place")
        }
        let id = snapshot.pointee.objectID
        let entityName = id.entityName
        var keys = update.pointee.changedKeys
        if !triggerMaintained.isEmpty {
            // A count the store's triggers keep is theirs to write (they run as the rows it counts change).
            for entity in [entityName] + model.ancestors(of: entityName) {
                keys = keys.filter { !triggerMaintained.contains("\(entity).\($0)") }
            }
        }
        // Rows of one entity come in runs: its plan and layout, the statement and its text are kept from the last
        // row while they still apply.
        var last = lastUpdateSQL
        if last?.entity != entityName { last = nil }
        let plan = last?.plan ?? columnPlan(for: entityName)
        guard let layout = last?.layout ?? model.layout(of: entityName) else {
            throw SQLiteStoreError(.malformed, path: database.path, "no entity \(entityName) in the model")
        }
        let index = last?.index ?? planIndex(of: entityName, plan: plan, layout: layout)
        // The same keys as the last row's write the same plan entries (one changed attribute's keys are one set, the
        // layout's: equal at once by their storage).
        let positions: [Int]
        if let last, last.keys == keys {
            positions = last.positions
        } else {
            positions = planPositions(of: keys, index, layout: layout)
        }
        // The same plan entries as the last row's write the same columns: its statement applies.
        let kept = last.flatMap {
            $0.positions == positions && $0.generation == database.statementGeneration ? $0 : nil
        }
        if let kept {
            // Bound as they come (no list of values made per row): the new version, the columns, the key, the
            // version expected. A failure before the step leaves only bindings, which the next use replaces.
            let statement = kept.statement
            var parameter: Int32 = 1
            try database.bind(statement, parameter, .integer(snapshot.pointee.version))
            try forEachColumn(of: snapshot, only: positions, plan: plan, layout: layout) {
                (_, value) throws(SQLiteStoreError) in
                parameter += 1
                try database.bind(statement, parameter, value)
            }
            try database.bind(statement, parameter + 1, .integer(id.primaryKey))
            try database.bind(statement, parameter + 2, .integer(update.pointee.expectedVersion))
            try database.step(statement, sql: kept.sql)
        } else {
            var columns: [String] = []
            var values: [SQLiteValue] = [.integer(snapshot.pointee.version)]
            try forEachColumn(of: snapshot, only: positions, plan: plan, layout: layout) { (column, value) in
                columns.append(column())
                values.append(value)
            }
            values.append(.integer(id.primaryKey))
            values.append(.integer(update.pointee.expectedVersion))
            let sets = columns.map { ", \(SQLiteSchema.q($0)) = ?" }.joined()
            let sql =
                "UPDATE \(schema.table(of: entityName)) SET Z_OPT = ?\(sets) WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?"
            let statement = try database.statement(sql)
            lastUpdateSQL = LastUpdate(
                entity: entityName, keys: keys, positions: positions, sql: sql, statement: statement,
                generation: database.statementGeneration, plan: plan, layout: layout, index: index)
            try database.step(statement, values, sql: sql)
        }
        return database.changes == 1
    }

    /// Join-table rows, hidden keys and order columns of the to-many relationships a snapshot carries (those in
    /// `only`, when given). Each relationship's statements are made once and stepped once per destination.
    private func writeToMany(_ snapshot: ObjectSnapshot, only keys: Set<String>?) throws(SQLiteStoreError) {
        let entityName = snapshot.objectID.entityName
        let pk = Int64(snapshot.objectID.primaryKey)
        try snapshot.forEachToMany { (name, ids) throws(SQLiteStoreError) in
            guard keys?.contains(name) != false, let sql = toManySQL(entityName, name) else { return }
            if let sharing = sql.sharedRows {
                // An order is kept in these rows (this side's, the other side's or both): only the links that went are
                // deleted, and those already there are left as they are (inserted again, they would lose their place
                // in the other side).
                var wanted = Set<Int64>()
                wanted.reserveCapacity(ids.count)
                for id in ids { wanted.insert(id.primaryKey) }
                var gone: [Int64] = []
                try database.query(sharing.held, [.integer(pk)]) { (statement) throws(SQLiteStoreError) in
                    let key = sqlite3_column_int64(statement, 0)
                    if !wanted.contains(key) { gone.append(key) }
                }
                for key in gone { try database.run(sharing.remove, [.integer(pk), .integer(key)]) }
            } else if let clear = sql.clear, !sql.bindings.takes {
                try database.run(clear, [.integer(pk)])
            }
            guard let add = sql.add, !ids.isEmpty else { return }
            if sql.orderedByKey,
                let i = ids.indices.dropFirst().first(where: { ids[$0 - 1].primaryKey > ids[$0].primaryKey })
            {
                throw SQLiteStoreError(
                    .unsupported, path: database.path,
                    "\(snapshot.objectID).\(name) puts \(ids[i]) after \(ids[i - 1]), but this store has no column to keep the order of \(entityName).\(name) in (its destinations are read in key order); not saved"
                )
            }
            let statement = try database.statement(add)
            for (i, id) in ids.enumerated() {
                switch sql.bindings {
                case .ownerDestination:
                    try database.step(statement, [.integer(pk), .integer(id.primaryKey)], sql: add)
                    if let order = sql.orderUpdate {
                        try database.run(order, [.integer(Int64(i + 1)), .integer(pk), .integer(id.primaryKey)])
                    }
                case .orderDestination:
                    try database.step(statement, [.integer(Int64(i + 1)), .integer(id.primaryKey)], sql: add)
                case .takenDestination(let ordered):
                    let values: [SQLiteValue] =
                        ordered
                        ? [.integer(pk), .integer(Int64(i + 1)), .integer(id.primaryKey), .integer(pk)]
                        : [.integer(pk), .integer(id.primaryKey), .integer(pk)]
                    try database.step(statement, values, sql: add)
                    if database.changes == 0 { try checkTaken(id, by: snapshot.objectID, name, sql) }
                }
            }
        }
    }

    /// Lets go of the destinations of `snapshot`'s inverse-less to-many relationships (those in `only`, when given).
    private func clearHiddenKeys(_ snapshot: ObjectSnapshot, only keys: Set<String>?) throws(SQLiteStoreError) {
        let entityName = snapshot.objectID.entityName
        try snapshot.forEachToMany { (name, _) throws(SQLiteStoreError) in
            guard keys?.contains(name) != false, let sql = toManySQL(entityName, name),
                sql.bindings.takes,
                let clear = sql.clear
            else { return }
            try database.run(clear, [.integer(snapshot.objectID.primaryKey)])
        }
    }

    /// After a destination of an inverse-less to-many was not taken: an error when another owner holds it (one key
    /// on the destination cannot name two owners: the other's link would be dropped); nothing when the destination
    /// row is gone (its key has nowhere to be kept, as before).
    private func checkTaken(_ destination: ManagedObjectID, by owner: ManagedObjectID, _ name: String, _ sql: ToManySQL)
        throws(SQLiteStoreError)
    {
        guard let holder = sql.holder,
            case .integer(let key)? = try database.query(holder, [.integer(destination.primaryKey)]).first?.first
        else { return }
        throw SQLiteStoreError(
            .unsupported, path: database.path,
            "\(owner).\(name) names \(destination), which the \(name) of another object (key \(key)) already names: a to-many relationship without an inverse is kept as one key on each destination, so one object cannot be in two owners' \(name); not saved"
        )
    }

    /// The statements that write one to-many relationship of an entity (made once): one run once per owner before
    /// its destinations are written (bound to the owner's key), one run per destination.
    func toManySQL(_ entityName: String, _ name: String) -> ToManySQL? {
        let key = entityName + "\u{0}" + name
        if let known = toManySQLCache[key] { return known }
        guard let storage = schema.toManyStorage[entityName]?[name] else { return nil }
        let q = SQLiteSchema.q
        let sql: ToManySQL
        switch storage {
        case .joinTable(let table, let source, let destination, let order):
            // Both sides of a many-to-many write these rows. When either side is ordered, its order is in them: a
            // link already there is kept (its row not written again) and only this side's order set.
            let shared = order != nil || schema.inverseOrderColumn(of: entityName, name) != nil
            sql = ToManySQL(
                clear: "DELETE FROM \(q(table)) WHERE \(q(source)) = ?",
                add: "INSERT OR IGNORE INTO \(q(table)) (\(q(source)), \(q(destination))) VALUES (?, ?)",
                bindings: .ownerDestination,
                orderedByKey: schema.orderedByKey.contains(entityName + "." + name),
                sharedRows: shared
                    ? (
                        held: "SELECT \(q(destination)) FROM \(q(table)) WHERE \(q(source)) = ?",
                        remove: "DELETE FROM \(q(table)) WHERE \(q(source)) = ? AND \(q(destination)) = ?"
                    ) : nil,
                orderUpdate: order.map {
                    "UPDATE \(q(table)) SET \(q($0)) = ? WHERE \(q(source)) = ? AND \(q(destination)) = ?"
                })
        case .inverseKey(let table, _, let order?):
            sql = ToManySQL(
                clear: nil, add: "UPDATE \(q(table)) SET \(q(order)) = ? WHERE Z_PK = ?", bindings: .orderDestination)
        case .inverseKey:
            sql = ToManySQL(clear: nil, add: nil, bindings: .ownerDestination)
        case .hiddenKey(let table, let column, let order):
            // Taken only when free (or already the owner's): a destination another owner holds is an error.
            let orderSet = order.map { ", \(q($0)) = ?" } ?? ""
            sql = ToManySQL(
                clear:
                    "UPDATE \(q(table)) SET \(q(column)) = NULL\(order.map { ", \(q($0)) = NULL" } ?? "") WHERE \(q(column)) = ?",
                add:
                    "UPDATE \(q(table)) SET \(q(column)) = ?\(orderSet) WHERE Z_PK = ? AND (\(q(column)) IS NULL OR \(q(column)) = ?)",
                bindings: .takenDestination(ordered: order != nil),
                holder: "SELECT \(q(column)) FROM \(q(table)) WHERE Z_PK = ? AND \(q(column)) IS NOT NULL",
                orderedByKey: schema.orderedByKey.contains(entityName + "." + name))
        }
        toManySQLCache[key] = sql
        return sql
    }

    /// Deletes a row if its version is still the expected one; `false` when the row is there with another version.
    private func deleteRow(_ deletion: ObjectDeletion) throws(SQLiteStoreError) -> Bool {
        let id = deletion.objectID
        // Rows of one entity come in runs: the statement, its text and the entity's to-many clearing statements are
        // kept from the last row (the statement while the database's statement generation is unchanged).
        let last: LastDelete
        if let kept = lastDeleteSQL, kept.entity == id.entityName {
            last = kept
        } else {
            let table = schema.table(of: id.entityName)
            let clears = (schema.toManyStorage[id.entityName] ?? [:]).keys.sorted().compactMap {
                toManySQL(id.entityName, $0)?.clear
            }
            last = LastDelete(
                entity: id.entityName, table: table,
                sql: "DELETE FROM \(table) WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?", clears: clears, statement: nil,
                generation: -1)
        }
        let statement: OpaquePointer
        if let kept = last.statement, last.generation == database.statementGeneration {
            statement = kept
        } else {
            statement = try database.statement(last.sql)
            lastDeleteSQL = LastDelete(
                entity: last.entity, table: last.table, sql: last.sql, clears: last.clears, statement: statement,
                generation: database.statementGeneration)
        }
        // The two parameters bound one by one (no array per row).
        try database.bind(statement, 1, .integer(id.primaryKey))
        try database.bind(statement, 2, .integer(deletion.expectedVersion))
        try database.step(statement, sql: last.sql)
        if database.changes == 0 {
            // Gone already is fine; still there with another version is a conflict.
            let still = try database.query("SELECT 1 FROM \(last.table) WHERE Z_PK = ?", [.integer(id.primaryKey)])
            if !still.isEmpty { return false }
        }
        // Its join-table rows and the keys its inverse-less to-manys hold on their destinations go with it (what a
        // save runs before writing an owner's links; a one-to-many's key is the destination's own to-one).
        for clear in last.clears { try database.run(clear, [.integer(id.primaryKey)]) }
        return true
    }
}

/// The statements that write a to-many relationship's storage (see `SQLiteStore.toManySQL(_:_:)`).
struct ToManySQL {
    /// What the per-destination statement binds, in order.
    enum Bindings {
        case ownerDestination
        case orderDestination
        /// Owner, (order,) destination, owner: an inverse-less to-many's key (and order), taken only when free.
        case takenDestination(ordered: Bool)

        /// Whether the statement takes a destination for an inverse-less to-many.
        var takes: Bool {
            if case .takenDestination = self { return true }
            return false
        }
    }

    /// Run once per owner (bound to its key) before its destinations are written.
    let clear: String?
    /// Run once per destination.
    let add: String?
    let bindings: Bindings
    /// For an inverse-less to-many: the owner a destination's key names, if any.
    var holder: String? = nil
    /// An ordered to-many whose store keeps no order for it: its destinations can only be saved in key order.
    var orderedByKey = false
    /// For a many-to-many ordered on either side (an order is kept in the join rows both sides write): the
    /// statements that find an owner's links (bound to its key) and delete one (owner, destination), used instead of
    /// `clear` when the owner's links are written, so that a link that stays keeps its row. (`clear` still deletes
    /// every link of a deleted owner.)
    var sharedRows: (held: String, remove: String)? = nil
    /// For an ordered many-to-many: sets a link's place (bound to the place, the owner's key, the destination's).
    var orderUpdate: String? = nil
}

/// Where each attribute and to-one relationship of an entity is in its column plan: the position by slot, -1 for
/// none (a transient attribute, a to-many).
final class PlanIndex {
    let byAttributeSlot: [Int]
    let byRelationshipSlot: [Int]
    init(byAttributeSlot: [Int], byRelationshipSlot: [Int]) {
        self.byAttributeSlot = byAttributeSlot
        self.byRelationshipSlot = byRelationshipSlot
    }
}

/// Where a column's value comes from in a snapshot (an entry of an entity's column plan).
struct ColumnSource {
    /// What kind of property the columns come from.
    enum Kind {
        /// An attribute: one column.
        case attribute
        /// A composite attribute: a column per member (``members``).
        case composite
        /// A to-one relationship: the destination's key, and its entity's number when ``entityColumn`` is set.
        case toOne
    }
    let kind: Kind
    /// The property's name.
    let name: String
    /// The property's slot in the entity's layout (an attribute slot, or for a to-one a relationship slot).
    let slot: Int
    /// The column (none for a composite).
    var column = ""
    /// Whether the attribute's binary data may be kept outside the database.
    var external = false
    /// A polymorphic to-one's entity-number column.
    var entityColumn: String? = nil
    /// A composite's columns and the member path each holds.
    var members: [(column: String, path: [String])] = []
}
