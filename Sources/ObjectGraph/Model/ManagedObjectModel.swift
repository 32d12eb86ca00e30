import Foundation
import Synchronization

/// A managed object model: the entities, fetch request templates and configurations of a document.
///
/// A model is immutable: it is checked when it is created and never changes afterwards, so it can be shared by
/// every context and store of a coordinator and across isolation domains. To change a model, copy its
/// ``entities`` (they are values), edit them, and create a new model.
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [
///     EntityDescription(name: "Book", attributes: [AttributeDescription(name: "title", type: .string)],
///                       relationships: [RelationshipDescription(name: "borrower", destination: "Friend",
///                                                               inverse: "books")]),
///     EntityDescription(name: "Friend", relationships: [RelationshipDescription(name: "books",
///         destination: "Book", inverse: "borrower", toMany: true)]),
/// ])
/// ```
public final class ManagedObjectModel: Sendable, Hashable, CustomStringConvertible {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// The fetch request templates, in the order given.
    public let fetchRequestTemplates: [FetchRequestTemplate]
    /// The named configurations (the default configuration, holding every entity, is implicit).
    public let configurations: [Configuration]
    /// Composite attribute types.
    public let composites: [CompositeDescription]
    /// The model's version identifiers (Xcode's `userDefinedModelVersionIdentifier`), sorted; empty strings, which
    /// Xcode and momc record for "none", are dropped.
    public let versionIdentifiers: [String]
    /// Problems that do not stop the model from working, such as a relationship with no inverse.
    public let warnings: [ModelError.Problem]

    /// The position of each entity by name (a lookup every insert and fetch by entity name makes).
    let entityIndexByName: NameIndex
    /// The layout of each entity, by position.
    private let layoutsByIndex: [EntityLayout?]
    let parentIndex: [Int?]
    let subentityIndexes: [[Int]]
    let resolvedAttributes: [[AttributeDescription]]
    let resolvedRelationships: [[RelationshipDescription]]
    let resolvedFetchedProperties: [[FetchedPropertyDescription]]
    /// The object layout of every entity, by name.
    package let layouts: [String: EntityLayout]
    /// What other modules work out from the model once and keep with it, by key (see ``derived(_:_:)``).
    private let derivedValues = Mutex<[String: any Sendable]>([:])

    /// Creates and checks a model.
    ///
    /// - Parameters:
    ///   - entities: the entities, in model order.
    ///   - fetchRequestTemplates: stored fetch requests.
    ///   - configurations: named subsets of the entities.
    ///   - composites: composite attribute types.
    ///   - versionIdentifiers: the model's version identifiers.
    /// - Throws: ``ModelError`` listing every problem: duplicate names, unknown parents or destinations,
    ///   inheritance cycles, inverses that point elsewhere, bad counts, unknown entities in configurations and
    ///   templates, constraints on unknown properties, default values of the wrong type.
    public init(
        entities: [EntityDescription], fetchRequestTemplates: [FetchRequestTemplate] = [],
        configurations: [Configuration] = [], composites: [CompositeDescription] = [],
        versionIdentifiers: [String] = []
    ) throws(ModelError) {
        var builder = ModelResolver(entities: entities)
        builder.checkAndResolve(
            templates: fetchRequestTemplates, configurations: configurations, composites: composites)
        if !builder.errors.isEmpty { throw ModelError(problems: builder.errors) }
        self.entities = entities
        self.fetchRequestTemplates = fetchRequestTemplates
        self.configurations = configurations
        self.composites = composites
        self.versionIdentifiers = Array(Set(versionIdentifiers.filter { !$0.isEmpty })).sorted()
        self.warnings = builder.warnings
        self.entityIndexByName = NameIndex(entities.map(\.name))
        self.parentIndex = builder.parentIndex
        self.subentityIndexes = builder.subentityIndexes
        self.resolvedAttributes = builder.resolvedAttributes
        self.resolvedRelationships = builder.resolvedRelationships
        self.resolvedFetchedProperties = builder.resolvedFetchedProperties
        let layouts = builder.makeLayouts(composites: composites)
        self.layouts = layouts
        self.layoutsByIndex = entities.map { layouts[$0.name] }
    }

    /// The value kept with the model under `key`, made by `make` the first time it is asked for (and again if the
    /// one kept is of another type): for what a module works out from the model alone and every store opened with it
    /// uses, such as a store's mapping of the entities onto its tables. `make` runs under the model's lock, so it must
    /// not ask the model for a derived value itself.
    /// - Parameters:
    ///   - key: what the value is, named by the module that keeps it.
    ///   - make: makes the value.
    /// - Returns: the value kept.
    package func derived<Value: Sendable>(_ key: String, _ make: () -> Value) -> Value {
        derivedValues.withLock { values in
            if let kept = values[key] as? Value { return kept }
            let made = make()
            values[key] = made
            return made
        }
    }

    /// Merges several models into one.
    ///
    /// Entities, templates, configurations and composites are combined; version identifiers are united.
    /// - Parameter models: the models to merge.
    /// - Throws: ``ModelError`` when the models share an entity or template name, or the result is invalid.
    public convenience init(merging models: [ManagedObjectModel]) throws(ModelError) {
        var configurations: [Configuration] = []
        for configuration in models.flatMap(\.configurations) {
            if let i = configurations.firstIndex(where: { $0.name == configuration.name }) {
                for entity in configuration.entityNames where !configurations[i].entityNames.contains(entity) {
                    configurations[i].entityNames.append(entity)
                }
            } else {
                configurations.append(configuration)
            }
        }
        var composites: [CompositeDescription] = []
        for composite in models.flatMap(\.composites) where !composites.contains(composite) {
            composites.append(composite)
        }
        try self.init(
            entities: models.flatMap(\.entities), fetchRequestTemplates: models.flatMap(\.fetchRequestTemplates),
            configurations: configurations, composites: composites,
            versionIdentifiers: models.flatMap(\.versionIdentifiers))
    }

    /// The object layout of an entity: its resolved properties and their slots.
    /// - Parameter entityName: the entity.
    /// - Returns: the layout, or `nil` for an unknown entity.
    public func layout(of entityName: String) -> EntityLayout? {
        entityIndexByName[entityName].flatMap { layoutsByIndex[$0] }
    }

    /// The entity with this name.
    /// - Parameter name: the entity's name.
    /// - Returns: the entity as declared, or `nil`.
    public func entity(named name: String) -> EntityDescription? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entity names, sorted by code point.
    public var entityNames: [String] { entities.map(\.name).sorted() }

    /// The composite with this name.
    /// - Parameter name: the composite's name.
    /// - Returns: the composite, or `nil`.
    public func composite(named name: String) -> CompositeDescription? {
        composites.first { $0.name == name }
    }

    /// The template with this name.
    /// - Parameter name: the template's name.
    /// - Returns: the template, or `nil`.
    public func fetchRequestTemplate(named name: String) -> FetchRequestTemplate? {
        fetchRequestTemplates.first { $0.name == name }
    }

    /// The names of the entities in a configuration; every entity for the default configuration or `nil`.
    /// - Parameter name: a configuration's name, or `nil` for the default one.
    /// - Returns: the entity names, or `nil` for an unknown configuration.
    public func entityNames(inConfiguration name: String?) -> [String]? {
        guard let name, name != Configuration.defaultName else { return entities.map(\.name) }
        return configurations.first { $0.name == name }?.entityNames
    }

    /// The chain of parents of an entity, nearest first.
    /// - Parameter entityName: the entity.
    /// - Returns: its parent, grandparent and so on; empty for a root entity.
    public func ancestors(of entityName: String) -> [String] {
        var result: [String] = []
        var index = entityIndexByName[entityName].flatMap { parentIndex[$0] }
        while let i = index {
            result.append(entities[i].name)
            index = parentIndex[i]
        }
        return result
    }

    /// The direct sub-entities of an entity, in model order.
    /// - Parameter entityName: the entity.
    /// - Returns: the names of the entities whose parent it is.
    public func subentities(of entityName: String) -> [String] {
        guard let i = entityIndexByName[entityName] else { return [] }
        return subentityIndexes[i].map { entities[$0].name }
    }

    /// The entity and all its sub-entities at every level, in pre-order with siblings sorted by name.
    /// - Parameter entityName: the entity.
    /// - Returns: the entity's name first, then its descendants.
    public func entityAndDescendants(of entityName: String) -> [String] {
        var result = [entityName]
        for sub in subentities(of: entityName).sorted() {
            result += entityAndDescendants(of: sub)
        }
        return result
    }

    /// Whether `entityName` is `ancestorName` or inherits from it.
    /// - Parameters:
    ///   - entityName: the entity.
    ///   - ancestorName: a possible ancestor.
    /// - Returns: `true` when `entityName` is `ancestorName` or one of its descendants.
    public func entity(_ entityName: String, isKindOf ancestorName: String) -> Bool {
        entityName == ancestorName || ancestors(of: entityName).contains(ancestorName)
    }

    /// The root entity of an inheritance hierarchy (the entity itself when it has no parent).
    /// - Parameter entityName: the entity.
    /// - Returns: the name of its root entity.
    public func rootEntity(of entityName: String) -> String {
        ancestors(of: entityName).last ?? entityName
    }

    /// Every attribute of an entity, inherited ones first.
    /// - Parameter entityName: the entity.
    /// - Returns: the attributes.
    public func allAttributes(of entityName: String) -> [AttributeDescription] {
        entityIndexByName[entityName].map { resolvedAttributes[$0] } ?? []
    }

    /// Every relationship of an entity, inherited ones first.
    /// - Parameter entityName: the entity.
    /// - Returns: the relationships.
    public func allRelationships(of entityName: String) -> [RelationshipDescription] {
        entityIndexByName[entityName].map { resolvedRelationships[$0] } ?? []
    }

    /// Every fetched property of an entity, inherited ones first.
    /// - Parameter entityName: the entity.
    /// - Returns: the fetched properties.
    public func allFetchedProperties(of entityName: String) -> [FetchedPropertyDescription] {
        entityIndexByName[entityName].map { resolvedFetchedProperties[$0] } ?? []
    }

    /// The inverse of a relationship, looked up on its destination (inherited relationships included).
    /// - Parameter relationship: a relationship of the model.
    /// - Returns: its inverse, or `nil` when it has none.
    public func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let inverseName = relationship.inverseName else { return nil }
        return allRelationships(of: relationship.destinationEntityName).first { $0.name == inverseName }
    }

    /// Whether the two are the same.
    /// - Parameters:
    ///   - lhs: one model.
    ///   - rhs: the other.
    /// - Returns: `true` when both are the same object.
    public static func == (lhs: ManagedObjectModel, rhs: ManagedObjectModel) -> Bool {
        lhs === rhs
            || (lhs.entities == rhs.entities && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates
                && lhs.configurations == rhs.configurations && lhs.composites == rhs.composites
                && lhs.versionIdentifiers == rhs.versionIdentifiers)
    }

    /// Hashes what `==` compares.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entities)
        hasher.combine(fetchRequestTemplates)
    }

    /// A readable description, as printed in messages.
    public var description: String {
        "ManagedObjectModel(\(entities.count) entities: \(entityNames.joined(separator: ", ")))"
    }
}
