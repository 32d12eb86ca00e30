public import Foundation
import ObjectGraph

/// How sources whose names differ from the model's map onto it, read from a JSON mapping file:
///
/// ```json
/// {"entities": {"Person": {"source": "people.csv", "attributes": {"name": "Full Name"},
///                          "relationships": {"department": {"source": "Dept", "match": "code"}},
///                          "ignore": ["Notes"]}}}
/// ```
///
/// `source` names a file (`people.csv`), a SQLite table (`table:people`) or a top-level key of a JSON object or
/// property list (`key:people`). `attributes` maps an attribute to its source column; `relationships` fills a
/// to-one with the destination whose `match` attribute equals the source column's value. Columns neither mapped,
/// nor named like a property, nor listed in `ignore` are an error, and so are names the model lacks and columns a
/// table source lacks. Sources the mapping does not name follow the default rules.
public struct ImportMapping: Sendable {
    /// The rule for one entity.
    public struct Rule: Sendable {
        /// The entity the rule fills.
        public var entity: String
        /// The source it reads (`people.csv`, `table:people`, `key:people`), if named.
        public var source: String?
        /// Attribute name → source column.
        public var attributes: [String: String]
        /// Relationship name → the source column and the destination attribute it matches.
        public var relationships: [String: (source: String, match: String)]
        /// Source columns to skip.
        public var ignore: Set<String>
        /// Where the rule is in the mapping file, for messages.
        public var place: String

        /// Creates a rule.
        /// - Parameters:
        ///   - entity: the entity the rule fills.
        ///   - source: the file (`people.csv`), table (`table:people`) or key (`key:people`) it reads; `nil` for the
        ///     entity's default source.
        ///   - attributes: attribute name → the source's column or key.
        ///   - relationships: to-one name → the source column and the destination attribute it matches.
        ///   - ignore: source columns to leave out.
        ///   - place: where the rule was read, for messages.
        public init(
            entity: String, source: String? = nil, attributes: [String: String] = [:],
            relationships: [String: (source: String, match: String)] = [:], ignore: Set<String> = [],
            place: String = "mapping"
        ) {
            self.entity = entity
            self.source = source
            self.attributes = attributes
            self.relationships = relationships
            self.ignore = ignore
            self.place = place
        }
    }

    /// The rules, one per entity, in the file's order.
    public var rules: [Rule]

    /// Creates a mapping from rules.
    /// - Parameter rules: one rule per entity.
    public init(rules: [Rule]) {
        self.rules = rules
    }

    /// Reads a mapping file.
    /// - Parameter url: the JSON mapping file.
    /// - Throws: ``DocumentError`` `badData` naming the file, line and column of anything it does not understand
    ///   (an unknown key, a value of the wrong kind); `noInput`/`io` when it cannot be read.
    public init(contentsOf url: URL) throws(DocumentError) {
        let reader = JSONReader(try ByteInput(url))
        let root = try reader.readValue()
        try reader.expectEnd()
        let file = url.path
        func fail(_ node: ImportNode, _ message: String) -> DocumentError {
            DocumentError(.badData, "\(node.place.described(in: file)): \(message)")
        }
        func members(_ node: ImportNode, _ what: String) throws(DocumentError) -> [ImportField] {
            guard case .object(let fields) = node.value else { throw fail(node, "\(what) must be a JSON object") }
            return fields
        }
        func string(_ node: ImportNode, _ what: String) throws(DocumentError) -> String {
            guard case .string(let s) = node.value, !s.isEmpty else {
                throw fail(node, "\(what) must be a non-empty string")
            }
            return s
        }
        var rules: [Rule] = []
        var sawEntities = false
        for top in try members(root, "the mapping") {
            guard top.name == "entities" else {
                throw fail(top.node, "unknown key '\(top.name)' (a mapping has only \"entities\")")
            }
            sawEntities = true
            for entry in try members(top.node, "\"entities\"") {
                var rule = Rule(entity: entry.name, place: entry.node.place.described(in: file))
                for field in try members(entry.node, "the rule for \(entry.name)") {
                    switch field.name {
                    case "source":
                        rule.source = try string(field.node, "\"source\"")
                    case "attributes":
                        for attribute in try members(field.node, "\"attributes\"") {
                            rule.attributes[attribute.name] = try string(
                                attribute.node, "the source column of \(attribute.name)")
                        }
                    case "relationships":
                        for relationship in try members(field.node, "\"relationships\"") {
                            var source: String?
                            var match: String?
                            for part in try members(relationship.node, "the rule for \(relationship.name)") {
                                switch part.name {
                                case "source": source = try string(part.node, "\"source\"")
                                case "match": match = try string(part.node, "\"match\"")
                                default:
                                    throw fail(
                                        part.node,
                                        "unknown key '\(part.name)' (a relationship rule has \"source\" and \"match\")")
                                }
                            }
                            guard let source, let match else {
                                throw fail(relationship.node, "a relationship rule needs \"source\" and \"match\"")
                            }
                            rule.relationships[relationship.name] = (source, match)
                        }
                    case "ignore":
                        guard case .array(let items) = field.node.value else {
                            throw fail(field.node, "\"ignore\" must be an array of column names")
                        }
                        for item in items { rule.ignore.insert(try string(item, "a column to ignore")) }
                    default:
                        throw fail(
                            field.node,
                            "unknown key '\(field.name)' (an entity rule has \"source\", \"attributes\", \"relationships\" and \"ignore\")"
                        )
                    }
                }
                rules.append(rule)
            }
        }
        guard sawEntities else { throw fail(root, "the mapping has no \"entities\"") }
        self.rules = rules
    }

    /// What the rules name that `model` does not have: an entity, an attribute of the entity, a to-one relationship,
    /// or the destination's attribute a relationship is matched by; each message begins with the rule's place. (A
    /// name the model lacks would otherwise never be used, and the mapping's typo go unnoticed.)
    /// - Parameter model: the model the import fills.
    /// - Returns: one message per name, in the rules' order.
    func problems(in model: ManagedObjectModel) -> [String] {
        var found: [String] = []
        var seen: Set<String> = []
        for rule in rules {
            guard let layout = model.layout(of: rule.entity) else {
                found.append(
                    "\(rule.place): the mapping names entity '\(rule.entity)', which the model does not have (it has: \(model.entityNames.joined(separator: ", ")))"
                )
                continue
            }
            if !seen.insert(rule.entity).inserted {
                found.append("\(rule.place): the mapping has a second rule for \(rule.entity) (one rule an entity)")
            }
            // One column fills one property: the second would be left out (which one, by the rule's order).
            var readers: [String: [String]] = [:]
            for (property, column) in rule.attributes { readers[column, default: []].append(property) }
            for (property, target) in rule.relationships { readers[target.source, default: []].append(property) }
            for (column, properties) in readers.sorted(by: { $0.key < $1.key }) where properties.count > 1 {
                found.append(
                    "\(rule.place): the mapping reads the column '\(column)' for \(properties.sorted().joined(separator: " and ")) (a column fills one property)"
                )
            }
            let attributes = layout.attributes.map(\.name)
            for name in rule.attributes.keys.sorted() where !attributes.contains(name) {
                found.append(
                    "\(rule.place): the mapping maps attribute '\(name)', which \(rule.entity) does not have (its attributes: \(attributes.sorted().joined(separator: ", ")))"
                )
            }
            for (name, target) in rule.relationships.sorted(by: { $0.key < $1.key }) {
                guard let relationship = layout.relationships.first(where: { $0.name == name }) else {
                    found.append(
                        "\(rule.place): the mapping fills relationship '\(name)', which \(rule.entity) does not have (its relationships: \(layout.relationships.map(\.name).sorted().joined(separator: ", ")))"
                    )
                    continue
                }
                guard !relationship.isToMany else {
                    found.append(
                        "\(rule.place): the mapping fills \(rule.entity).\(name), which is to-many; only a to-one is filled by key"
                    )
                    continue
                }
                let keys = model.allAttributes(of: relationship.destinationEntityName).map(\.name)
                if !keys.contains(target.match) {
                    found.append(
                        "\(rule.place): the mapping matches \(rule.entity).\(name) by '\(target.match)', which \(relationship.destinationEntityName) does not have (its attributes: \(keys.sorted().joined(separator: ", ")))"
                    )
                }
            }
        }
        return found
    }

    /// The rule whose source is `source` (compared ignoring case), if any.
    func rule(forSource source: String) -> Rule? {
        rules.first { $0.source?.lowercased() == source.lowercased() }
    }

    /// The rule for an entity, if any.
    func rule(forEntity entity: String) -> Rule? {
        rules.first { $0.entity == entity }
    }
}
