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
    /// How many NOTs enclose the part being translated. Where none does, a comparison with NULL (unknown in SQL) and
    /// false select the same rows, so comparisons stay bare and can use indexes; under a NOT, unknown must be false.
    var negations = 0
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

    /// Whether an expression has one value for every row: no key paths into the object, no variables, no clock or
    /// random numbers.
    static func isConstant(_ e: ObjectExpression) -> Bool {
        switch e {
        case .constant: true
        case .evaluatedObject, .variable, .anyKey, .subquery, .assignment: false
        case .keyPath(let base, _): isConstant(base)
        case .function(let name, let arguments):
            !["now", "random", "randomn"].contains(name) && arguments.allSatisfy(isConstant)
        case .methodCall(let receiver, _, let arguments): isConstant(receiver) && arguments.allSatisfy(isConstant)
        case .arithmetic(_, let l, let r), .setOperation(_, let l, let r): isConstant(l) && isConstant(r)
        case .negation(let inner), .cast(let inner, _): isConstant(inner)
        case .aggregate(let items): items.allSatisfy(isConstant)
        case .index(let base, let kind):
            if case .at(let position) = kind { isConstant(base) && isConstant(position) } else { isConstant(base) }
        case .conditional: false
        }
    }

    static let aggregateFunctions = ["@sum": "SUM", "@avg": "AVG", "@min": "MIN", "@max": "MAX"]

    mutating func newAlias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    // MARK: - Predicates

    /// The predicate in SQL, or `nil` (with no binding left behind) when SQL cannot express all of it.
    mutating func predicate(_ p: ObjectPredicate, entity: String, alias: String) -> String? {
        // A part that cannot be expressed leaves out the whole: the values its other parts bound go with it (left,
        // they would be bound to the wrong placeholders, or to none).
        let saved = bindings
        let result = translated(p, entity: entity, alias: alias)
        if result == nil { bindings = saved }
        return result
    }

    private mutating func translated(_ p: ObjectPredicate, entity: String, alias: String) -> String? {
        switch p {
        case .true: return "1"
        case .false: return "0"
        case .and(let parts), .or(let parts):
            var sql: [String] = []
            for part in parts {
                guard let s = predicate(part, entity: entity, alias: alias) else { return nil }
                sql.append("(\(s))")
            }
            if case .and = p { return sql.joined(separator: " AND ") }
            return sql.joined(separator: " OR ")
        case .not(let inner):
            negations += 1
            defer { negations -= 1 }
            guard let s = predicate(inner, entity: entity, alias: alias) else { return nil }
            return "NOT (\(s))"
        case .comparison(let c):
            // A comparison of constants has the same answer for every row: work it out once.
            if Self.isConstant(c.lhs) && Self.isConstant(c.rhs),
                let holds = try? ObjectPredicate.comparison(c).evaluate(with: .null)
            {
                return holds ? "1" : "0"
            }
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

    /// - Parameter owner: the object the right-hand side reads its key paths from, when not the left-hand side's: in
    ///   `ANY toMany.key op value`, the left-hand side is each destination, and `value` is still the evaluated
    ///   object's (`ANY members.name == name`: a member named like the group).
    mutating func comparison(
        _ c: Comparison, entity: String, alias: String, owner: (entity: String, alias: String)? = nil
    ) -> String? {
        if c.modifier != .direct { return quantified(c, entity: entity, alias: alias) }
        let bound = bindings.count
        guard let left = value(c.lhs, entity: entity, alias: alias) else { return nil }
        if case .constant(.array(let items)) = c.rhs.constantKind, c.op == .in || c.op == .between {
            return membership(c, left: left, items: items)
        }
        guard let right = value(c.rhs, entity: owner?.entity ?? entity, alias: owner?.alias ?? alias) else {
            return nil
        }
        let needsFunction: Bool
        switch c.op {
        case .beginsWith, .endsWith, .like, .matches, .contains, .in, .utiEquals, .utiConformsTo: needsFunction = true
        default: needsFunction = !c.options.subtracting([.normalized, .localeSensitive]).isEmpty
        }
        if needsFunction {
            guard isString(left.kind) && isString(right.kind) else { return nil }
            return "DOCUTIL_CMP('\(c.op.rawValue)', \(c.options.rawValue), \(left.sql), \(right.sql))"
        }
        guard compatible(left.kind, right.kind) else {
            // A string never equals or orders against a number, nil included: the answer is the same for every row.
            guard
                (isString(left.kind) && isNumberConstant(right.kind))
                    || (isNumber(left.kind) && isStringConstant(right.kind))
            else { return nil }
            bindings.removeLast(bindings.count - bound)
            switch c.op {
            case .equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: return "0"
            case .notEqual: return "1"
            default: return nil
            }
        }
        switch c.op {
        case .equal: return "\(left.sql) IS \(right.sql)"
        case .notEqual: return "\(left.sql) IS NOT \(right.sql)"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if case .attribute(let t) = left.kind, t == .binary || t == .uuid || t == .transformable { return nil }
            return definite("\(left.sql) \(c.op.rawValue) \(right.sql)")
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
            return definite("\(left.sql) BETWEEN \(low) AND \(high)")
        }
        let nonNull = items.filter { $0 != .null }
        var sql =
            nonNull.isEmpty ? "0" : definite("\(left.sql) IN (\(nonNull.map { bind($0) }.joined(separator: ", ")))")
        if nonNull.count != items.count { sql = "(\(sql) OR \(left.sql) IS NULL)" }
        return sql
    }

    /// `ANY/ALL/NONE toMany.key op value` as EXISTS over the destination rows.
    mutating func quantified(_ c: Comparison, entity: String, alias: String) -> String? {
        guard case .keyPath(.evaluatedObject, let path) = c.lhs, path.count >= 2,
            let relationship = schema.model.allRelationships(of: entity).first(where: { $0.name == path[0] }),
            relationship.isToMany
        else { return nil }
        // A key path with a collection operator (`peers.peerOf.@count`) is one number for the whole object, as memory
        // evaluates it (ANY, ALL and NONE then test that one value): not one per destination (which answered
        // otherwise). Left to memory.
        guard !path.dropFirst().contains(where: { $0.hasPrefix("@") }) else { return nil }
        let destinationAlias = newAlias()
        guard let (from, link) = toManyLink(relationship, owner: entity, ownerAlias: alias, alias: destinationAlias)
        else { return nil }
        var inner = c
        inner.modifier = .direct
        inner.lhs = .keyPath(.evaluatedObject, Array(path.dropFirst()))
        // ALL wraps the condition in NOT.
        let saved = negations
        negations = c.modifier == .all ? negations + 1 : negations
        defer { negations = saved }
        guard
            let condition = comparison(
                inner, entity: relationship.destinationEntityName, alias: destinationAlias,
                owner: (entity, alias))
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
        let q = SQLiteSchema.q
        let kinds = schema.numbers(of: schema.model.entityAndDescendants(of: destination))
        let table = schema.table(of: destination)
        let kindFilter =
            schema.model.entityAndDescendants(of: schema.model.rootEntity(of: destination)).count > kinds.count
            ? " AND \(alias).Z_ENT IN (\(kinds.map(String.init).joined(separator: ", ")))" : ""
        switch storage {
        case .inverseKey(_, let column, _)?, .hiddenKey(_, let column, _)?:
            return ("\(table) \(alias)", "\(alias).\(q(column)) = \(ownerAlias).Z_PK\(kindFilter)")
        case .joinTable(let join, let source, let destinationColumn, _)?:
            let j = alias + "j"
            return (
                "\(q(join)) \(j) JOIN \(table) \(alias) ON \(alias).Z_PK = \(j).\(q(destinationColumn))",
                "\(j).\(q(source)) = \(ownerAlias).Z_PK\(kindFilter)"
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
        case .negation(let inner):
            guard let value = value(inner, entity: entity, alias: alias), isNumber(value.kind) else { return nil }
            return Value(sql: "(-\(value.sql))", kind: value.kind)
        case .function("noindex", let arguments) where arguments.count == 1:
            return value(arguments[0], entity: entity, alias: alias)
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
            guard !attribute.isTransient, let column = schema.attributeColumns[entity]?[first] else { return nil }
            if attribute.type == .composite {
                // `magnitude.richter`: a member's own column.
                let members = Array(path.dropFirst())
                guard let member = column.members.first(where: { $0.path == members }) else { return nil }
                return Value(sql: "\(alias).\(SQLiteSchema.q(member.column))", kind: .attribute(member.attribute.type))
            }
            guard path.count == 1, attribute.allowsExternalBinaryDataStorage == false else { return nil }
            return Value(sql: "\(alias).\(SQLiteSchema.q(column.column))", kind: .attribute(attribute.type))
        }
        guard let relationship = schema.model.allRelationships(of: entity).first(where: { $0.name == first }) else {
            return nil
        }
        if relationship.isToMany {
            let destinationAlias = newAlias()
            guard let (from, link) = toManyLink(relationship, owner: entity, ownerAlias: alias, alias: destinationAlias)
            else { return nil }
            if path.count == 2, path.last == "@count" {
                return Value(sql: "(SELECT COUNT(*) FROM \(from) WHERE \(link))", kind: .integer)
            }
            // `toMany.@sum.attribute` and the other collection operators over one attribute of the destinations.
            let rest = Array(path.dropFirst())
            guard rest.count == 2, let function = Self.aggregateFunctions[rest[0]],
                let inner = keyPath(rest[1...], entity: relationship.destinationEntityName, alias: destinationAlias),
                case .attribute(let type) = inner.kind, type != .binary, type != .transformable, type != .uuid
            else { return nil }
            if function != "MIN" && function != "MAX" && !isNumber(inner.kind) { return nil }
            let aggregate = "\(function)(\(inner.sql))"
            let sql = function == "SUM" ? "IFNULL(\(aggregate), 0)" : aggregate
            let kind: Kind = function == "AVG" ? .attribute(.double) : inner.kind
            return Value(sql: "(SELECT \(sql) FROM \(from) WHERE \(link))", kind: kind)
        }
        guard let raw = schema.toOneColumns[entity]?[first]?.column else { return nil }
        let column = SQLiteSchema.q(raw)
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
        // As in memory: only the variable names the element; bare key paths still name the fetched object.
        guard let condition = predicate(inner, entity: entity, alias: alias) else { return nil }
        return Value(sql: "(SELECT COUNT(*) FROM \(from) WHERE \(link) AND (\(condition)))", kind: .integer)
    }

    /// A comparison that SQL may answer with NULL, made false under a NOT.
    func definite(_ sql: String) -> String {
        negations > 0 ? "IFNULL(\(sql), 0)" : sql
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

    func isNumberConstant(_ kind: Kind) -> Bool {
        if case .constant(let c) = kind, c != .null { return isNumber(kind) }
        return false
    }

    func isStringConstant(_ kind: Kind) -> Bool {
        if case .constant(.string) = kind { return true }
        return false
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
