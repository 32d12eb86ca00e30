import Foundation
import ObjectGraph

/// Turns predicates and sort descriptors into SQL over Core Data's schema, where SQL can say exactly what the
/// in-memory evaluation does: comparisons (with nil semantics: `x != 'a'` includes NULL), `IN`, `BETWEEN`, string
/// operators and `[c]`/`[d]` through a registered function that runs the in-memory comparison, key paths through
/// to-one relationships (subqueries), `ANY`/`ALL`/`NONE` and `@count` over to-many relationships, `SUBQUERY`.
/// Anything else returns `nil`, and the store evaluates that part in memory on the narrowed rows.
struct SQLTranslator {
    let schema: SQLiteSchema
    var bindings: [SQLiteValue] = []
    var aliasCounter = 0
    /// SUBQUERY variables: name → (entity, alias).
    var variables: [String: (String, String)] = [:]

    init(schema: SQLiteSchema) {
        self.schema = schema
    }

    enum Kind: Equatable {
        case attribute(AttributeType)
        case toOne(String)
        case integer
        case constant(PredicateConstant)
    }

    struct Value {
        var sql: String
        var kind: Kind
    }

    mutating func newAlias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    // MARK: - Predicates

    mutating func predicate(_ p: ObjectPredicate, entity: String, alias: String) -> String? {
        switch p {
        case .true: return "1"
        case .false: return "0"
        case .and(let parts):
            var sql: [String] = []
            for part in parts {
                guard let s = predicate(part, entity: entity, alias: alias) else { return nil }
                sql.append("(\(s))")
            }
            return sql.joined(separator: " AND ")
        case .or(let parts):
            var sql: [String] = []
            for part in parts {
                guard let s = predicate(part, entity: entity, alias: alias) else { return nil }
                sql.append("(\(s))")
            }
            return sql.joined(separator: " OR ")
        case .not(let inner):
            guard let s = predicate(inner, entity: entity, alias: alias) else { return nil }
            return "NOT (\(s))"
        case .comparison(let c):
            let saved = bindings
            let result = comparison(c, entity: entity, alias: alias)
            if result == nil { bindings = saved }
            return result
        }
    }

    /// The parts of a top-level AND that SQL can express (the rest is evaluated in memory).
    mutating func narrowing(_ p: ObjectPredicate, entity: String, alias: String) -> (sql: String?, complete: Bool) {
        if let full = predicate(p, entity: entity, alias: alias) { return (full, true) }
        guard case .and(let parts) = p else { return (nil, false) }
        var sql: [String] = []
        for part in parts {
            let saved = bindings
            if let s = predicate(part, entity: entity, alias: alias) { sql.append("(\(s))") } else { bindings = saved }
        }
        return (sql.isEmpty ? nil : sql.joined(separator: " AND "), false)
    }

    mutating func comparison(_ c: Comparison, entity: String, alias: String) -> String? {
        if c.modifier != .direct { return quantified(c, entity: entity, alias: alias) }
        guard let left = value(c.lhs, entity: entity, alias: alias) else { return nil }
        if case .constant(.array(let items)) = c.rhs.constantKind, c.op == .in || c.op == .between {
            return membership(c, left: left, items: items)
        }
        guard let right = value(c.rhs, entity: entity, alias: alias) else { return nil }
        let needsFunction: Bool
        switch c.op {
        case .beginsWith, .endsWith, .like, .matches, .contains, .in, .utiEquals, .utiConformsTo: needsFunction = true
        default: needsFunction = !c.options.subtracting([.normalized, .localeSensitive]).isEmpty
        }
        if needsFunction {
            guard isString(left.kind) && isString(right.kind) else { return nil }
            return "DOCUTIL_CMP('\(c.op.rawValue)', \(c.options.rawValue), \(left.sql), \(right.sql))"
        }
        guard compatible(left.kind, right.kind) else { return nil }
        switch c.op {
        case .equal: return "\(left.sql) IS \(right.sql)"
        case .notEqual: return "\(left.sql) IS NOT \(right.sql)"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if case .attribute(let t) = left.kind, t == .binary || t == .uuid || t == .transformable { return nil }
            return "IFNULL(\(left.sql) \(c.op.rawValue) \(right.sql), 0)"
        default: return nil
        }
    }

    mutating func membership(_ c: Comparison, left: Value, items: [PredicateConstant]) -> String? {
        guard c.options.subtracting([.normalized, .localeSensitive]).isEmpty else { return nil }
        for item in items where !compatible(left.kind, .constant(item)) && item != .null { return nil }
        if c.op == .between {
            guard items.count == 2, items[0] != .null, items[1] != .null else { return items.count == 2 ? "0" : nil }
            let low = bind(items[0])
            let high = bind(items[1])
            return "IFNULL(\(left.sql) BETWEEN \(low) AND \(high), 0)"
        }
        let nonNull = items.filter { $0 != .null }
        var sql =
            nonNull.isEmpty ? "0" : "IFNULL(\(left.sql) IN (\(nonNull.map { bind($0) }.joined(separator: ", "))), 0)"
        if nonNull.count != items.count { sql = "(\(sql) OR \(left.sql) IS NULL)" }
        return sql
    }

    /// `ANY/ALL/NONE toMany.key op value` as EXISTS over the destination rows.
    mutating func quantified(_ c: Comparison, entity: String, alias: String) -> String? {
        guard case .keyPath(.evaluatedObject, let path) = c.lhs, path.count >= 2,
            let relationship = schema.model.allRelationships(of: entity).first(where: { $0.name == path[0] }),
            relationship.isToMany
        else { return nil }
        let destinationAlias = newAlias()
        guard let (from, link) = toManyLink(relationship, owner: entity, ownerAlias: alias, alias: destinationAlias)
        else { return nil }
        var inner = c
        inner.modifier = .direct
        inner.lhs = .keyPath(.evaluatedObject, Array(path.dropFirst()))
        guard let condition = comparison(inner, entity: relationship.destinationEntityName, alias: destinationAlias)
        else { return nil }
        switch c.modifier {
        case .any: return "EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND (\(condition)))"
        case .none: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND (\(condition)))"
        case .all: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND NOT (\(condition)))"
        case .direct: return nil
        }
    }

    /// The FROM clause and join condition that reach the destinations of a to-many relationship.
    func toManyLink(
        _ relationship: RelationshipDescription, owner: String, ownerAlias: String, alias: String
    ) -> (from: String, link: String)? {
        let storage = schema.toManyStorage[owner]?[relationship.name]
        let destination = relationship.destinationEntityName
        let kinds = schema.numbers(of: schema.model.entityAndDescendants(of: destination))
        let table = schema.table(of: destination)
        let kindFilter =
            schema.model.entityAndDescendants(of: schema.model.rootEntity(of: destination)).count > kinds.count
            ? " AND \(alias).Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))" : ""
        switch storage {
        case .inverseKey(_, let column, _)?, .hiddenKey(_, let column)?:
            return ("\(table) \(alias)", "\(alias).\(column) = \(ownerAlias).Z_PK\(kindFilter)")
        case .joinTable(let join, let source, let destinationColumn, _)?:
            let j = alias + "j"
            return (
                "\(join) \(j) JOIN \(table) \(alias) ON \(alias).Z_PK = \(j).\(destinationColumn)",
                "\(j).\(source) = \(ownerAlias).Z_PK\(kindFilter)"
            )
        case nil:
            return nil
        }
    }

    // MARK: - Values

    mutating func value(_ e: ObjectExpression, entity: String, alias: String) -> Value? {
        switch e {
        case .constant(let c):
            if case .array = c { return nil }
            return Value(sql: bind(c), kind: .constant(c))
        case .keyPath(.evaluatedObject, let path):
            return keyPath(path[...], entity: entity, alias: alias)
        case .keyPath(.variable(let name), let path):
            guard let (variableEntity, variableAlias) = variables[name] else { return nil }
            return keyPath(path[...], entity: variableEntity, alias: variableAlias)
        case .keyPath(.subquery(let collection, let variable, let inner), let path) where path == ["@count"]:
            return subqueryCount(collection, variable: variable, inner, entity: entity, alias: alias)
        case .arithmetic(let op, let l, let r) where op != .power:
            guard let left = value(l, entity: entity, alias: alias), let right = value(r, entity: entity, alias: alias),
                isNumber(left.kind), isNumber(right.kind)
            else { return nil }
            let sql =
                op == .divide
                ? "(CAST(\(left.sql) AS REAL) / \(right.sql))" : "(\(left.sql) \(op.rawValue) \(right.sql))"
            return Value(sql: sql, kind: .attribute(.double))
        default:
            return nil
        }
    }

    mutating func keyPath(_ path: ArraySlice<String>, entity: String, alias: String) -> Value? {
        guard let first = path.first else { return nil }
        if let attribute = schema.model.allAttributes(of: entity).first(where: { $0.name == first }) {
            guard path.count == 1, !attribute.isTransient, let column = schema.attributeColumns[entity]?[first]?.column
            else {
                return nil
            }
            guard attribute.allowsExternalBinaryDataStorage == false else { return nil }
            return Value(sql: "\(alias).\(column)", kind: .attribute(attribute.type))
        }
        guard let relationship = schema.model.allRelationships(of: entity).first(where: { $0.name == first }) else {
            return nil
        }
        if relationship.isToMany {
            guard path.count == 2, path.last == "@count" else { return nil }
            let destinationAlias = newAlias()
            guard let (from, link) = toManyLink(relationship, owner: entity, ownerAlias: alias, alias: destinationAlias)
            else { return nil }
            return Value(sql: "(SELECT COUNT(*) FROM \(from) WHERE \(link))", kind: .integer)
        }
        guard let column = schema.toOneColumns[entity]?[first]?.column else { return nil }
        if path.count == 1 { return Value(sql: "\(alias).\(column)", kind: .toOne(relationship.destinationEntityName)) }
        let destination = relationship.destinationEntityName
        let destinationAlias = newAlias()
        guard let inner = keyPath(path.dropFirst(), entity: destination, alias: destinationAlias) else { return nil }
        return Value(
            sql:
                "(SELECT \(inner.sql) FROM \(schema.table(of: destination)) \(destinationAlias) WHERE \(destinationAlias).Z_PK = \(alias).\(column))",
            kind: inner.kind)
    }

    mutating func subqueryCount(
        _ collection: ObjectExpression, variable: String, _ inner: ObjectPredicate, entity: String, alias: String
    ) -> Value? {
        guard case .keyPath(.evaluatedObject, let path) = collection, path.count == 1,
            let relationship = schema.model.allRelationships(of: entity).first(where: { $0.name == path[0] }),
            relationship.isToMany
        else { return nil }
        let destinationAlias = newAlias()
        guard let (from, link) = toManyLink(relationship, owner: entity, ownerAlias: alias, alias: destinationAlias)
        else { return nil }
        let saved = variables[variable]
        variables[variable] = (relationship.destinationEntityName, destinationAlias)
        defer { variables[variable] = saved }
        guard let condition = predicate(inner, entity: relationship.destinationEntityName, alias: destinationAlias)
        else {
            return nil
        }
        return Value(sql: "(SELECT COUNT(*) FROM \(from) WHERE \(link) AND (\(condition)))", kind: .integer)
    }

    mutating func bind(_ constant: PredicateConstant) -> String {
        bindings.append(Self.sqlValue(constant))
        return "?"
    }

    static func sqlValue(_ constant: PredicateConstant) -> SQLiteValue {
        switch constant {
        case .null, .array: .null
        case .boolean(let b): .integer(b ? 1 : 0)
        case .integer(let i): .integer(i)
        case .double(let d): .real(d)
        case .decimal(let d): .real(NSDecimalNumber(decimal: d).doubleValue)
        case .string(let s): .text(s)
        case .date(let d): .real(d.timeIntervalSinceReferenceDate)
        case .data(let d): .blob(d)
        case .uuid(let u): .blob(u.bytes)
        case .url(let u): .text(u.absoluteString)
        }
    }

    // MARK: - Kinds

    func isNumber(_ kind: Kind) -> Bool {
        switch kind {
        case .integer: return true
        case .attribute(let t): return t.isNumeric || t == .boolean
        case .constant(let c):
            switch c {
            case .integer, .double, .decimal, .boolean: return true
            default: return false
            }
        case .toOne: return false
        }
    }

    func isString(_ kind: Kind) -> Bool {
        switch kind {
        case .attribute(let t): return t == .string
        case .constant(let c):
            if case .string = c { return true }
            return c == .null
        default: return false
        }
    }

    /// Whether SQL compares the two the way the in-memory evaluation does.
    func compatible(_ a: Kind, _ b: Kind) -> Bool {
        if case .constant(.null) = a { return true }
        if case .constant(.null) = b { return true }
        if isNumber(a) && isNumber(b) { return true }
        switch (a, b) {
        case (.attribute(let x), .attribute(let y)): return x == y || (x == .date && y == .date)
        case (.attribute(let t), .constant(let c)), (.constant(let c), .attribute(let t)):
            switch (t, c) {
            case (.string, .string), (.date, .date), (.uuid, .uuid), (.uri, .url), (.binary, .data): return true
            default: return false
            }
        default: return false
        }
    }
}

extension ObjectExpression {
    var constantKind: SQLTranslator.Kind? {
        if case .constant(let c) = self { return .constant(c) }
        return nil
    }
}
