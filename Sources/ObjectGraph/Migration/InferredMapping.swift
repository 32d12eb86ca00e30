extension MappingModel {
    /// The mapping Core Data's lightweight migration infers between two models, or every reason it can't.
    ///
    /// The rules are Apple's: entities and properties match by name, or by the destination's renaming identifier
    /// naming the source element (or both having the same renaming identifier). An added attribute takes its default
    /// (nil when optional); a new required attribute without a default can't be inferred, nor an optional attribute
    /// that becomes required without one. Removed entities and properties are dropped. Attribute types may only
    /// widen (Integer 16 → 32 → 64, integers → Decimal or Double, Float → Double, Binary ↔ Transformable). A to-one
    /// may become a to-many and an ordered to-many unordered or the other way round, but a to-many can't become a
    /// to-one. A new required relationship can't be inferred. A relationship whose destination entity changes must
    /// still point where its source objects go. An entity may change its parent: its objects keep their keys where
    /// they are free in the new hierarchy and are numbered after the others where not.
    ///
    /// - Parameters:
    ///   - source: the model the store was written with.
    ///   - destination: the model to migrate to.
    /// - Returns: one ``EntityMappingKind/copy`` or ``EntityMappingKind/transform`` mapping per destination entity
    ///   that has a source, an ``EntityMappingKind/add`` per new one and a ``EntityMappingKind/remove`` per dropped
    ///   source entity.
    /// - Throws: ``MigrationError`` (`cannotInfer`) listing every change inference can't handle.
    public static func inferred(from source: ManagedObjectModel, to destination: ManagedObjectModel)
        throws(MigrationError) -> MappingModel
    {
        var inference = Inference(source: source, destination: destination)
        let mapping = inference.run()
        guard inference.problems.isEmpty else { throw MigrationError(.cannotInfer, inference.problems) }
        return mapping
    }

    /// Every change between two models that lightweight migration can't handle (empty when it can).
    /// - Parameters:
    ///   - source: the older model.
    ///   - destination: the newer model.
    /// - Returns: the problems, each with the entity, property and reason.
    public static func inferenceProblems(from source: ManagedObjectModel, to destination: ManagedObjectModel)
        -> [MigrationProblem]
    {
        var inference = Inference(source: source, destination: destination)
        _ = inference.run()
        return inference.problems
    }
}

/// The work of ``MappingModel/inferred(from:to:)``.
struct Inference {
    let source: ManagedObjectModel
    let destination: ManagedObjectModel
    var problems: [MigrationProblem] = []

    init(source: ManagedObjectModel, destination: ManagedObjectModel) {
        self.source = source
        self.destination = destination
    }

    /// The source element a destination element comes from: the same name, or the name its renaming identifier
    /// gives, or the same renaming identifier.
    static func match<T>(
        _ name: String, _ renamingIdentifier: String?, in candidates: [T], name candidateName: (T) -> String,
        renamingIdentifier candidateIdentifier: (T) -> String?
    ) -> T? {
        if let identifier = renamingIdentifier, !identifier.isEmpty {
            if let found = candidates.first(where: { candidateName($0) == identifier }) { return found }
            if let found = candidates.first(where: { candidateIdentifier($0) == identifier }) { return found }
            return nil
        }
        return candidates.first { candidateName($0) == name }
    }

    /// The source entity each destination entity comes from (by name), and the other way round.
    func entityCorrespondence() -> (sourceOf: [String: String], destinationOf: [String: String]) {
        var sourceOf: [String: String] = [:]
        var destinationOf: [String: String] = [:]
        for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
            guard
                let match = Self.match(
                    entity.name, entity.renamingIdentifier, in: source.entities, name: \.name,
                    renamingIdentifier: \.renamingIdentifier), destinationOf[match.name] == nil
            else { continue }
            sourceOf[entity.name] = match.name
            destinationOf[match.name] = entity.name
        }
        return (sourceOf, destinationOf)
    }

    /// Whether every object must hold a destination, as validation judges it: a non-optional to-one, or a to-many
    /// with a minimum count.
    static func isRequired(_ relationship: RelationshipDescription) -> Bool {
        relationship.isToMany ? relationship.minCount > 0 : !relationship.isOptional
    }

    /// Whether a value of type `from` always converts to `to` without loss.
    static func widens(_ from: AttributeType, to: AttributeType) -> Bool {
        if from == to { return true }
        switch (from, to) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.integer16, .double), (.integer32, .double), (.integer16, .float): return true
        case (.float, .double): return true
        case (.binary, .transformable), (.transformable, .binary): return true
        default: return false
        }
    }

    mutating func run() -> MappingModel {
        let (sourceOf, destinationOf) = entityCorrespondence()
        // Hashing a model hashes every entity: once each, not once per entity.
        let (sourceHashes, destinationHashes) = (source.entityVersionHashes, destination.entityVersionHashes)
        var mappings: [EntityMapping] = []
        for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
            guard let sourceName = sourceOf[entity.name], let sourceEntity = source.entity(named: sourceName) else {
                mappings.append(EntityMapping(kind: .add, sourceEntityName: nil, destinationEntityName: entity.name))
                continue
            }
            if entity.isAbstract && !sourceEntity.isAbstract {
                problems.append(
                    MigrationProblem(
                        entity: entity.name,
                        reason:
                            "becomes abstract, but the store may hold \(sourceName) objects, which would have no entity"
                    ))
                continue
            }
            let attributes = attributeMappings(for: entity, from: sourceEntity)
            let relationships = relationshipMappings(for: entity, from: sourceEntity, destinationOf: destinationOf)
            let unchanged =
                sourceName == entity.name
                && sourceHashes[sourceName] == destinationHashes[entity.name]
            mappings.append(
                EntityMapping(
                    kind: unchanged ? .copy : .transform, sourceEntityName: sourceName,
                    destinationEntityName: entity.name, attributeMappings: attributes,
                    relationshipMappings: relationships))
        }
        for entity in source.entities.sorted(by: { $0.name < $1.name }) where destinationOf[entity.name] == nil {
            mappings.append(EntityMapping(kind: .remove, sourceEntityName: entity.name, destinationEntityName: nil))
        }
        return MappingModel(entityMappings: mappings)
    }

    mutating func attributeMappings(for entity: EntityDescription, from sourceEntity: EntityDescription)
        -> [PropertyMapping]
    {
        let sourceAttributes = source.allAttributes(of: sourceEntity.name).filter { !$0.isTransient }
        var mappings: [PropertyMapping] = []
        for attribute in destination.allAttributes(of: entity.name)
        where !attribute.isTransient && !attribute.isDerived {
            let hasDefault = !attribute.defaultValue.isNull
            guard
                let match = Self.match(
                    attribute.name, attribute.renamingIdentifier, in: sourceAttributes, name: \.name,
                    renamingIdentifier: \.renamingIdentifier)
            else {
                if !attribute.isOptional && !hasDefault {
                    problems.append(
                        MigrationProblem(
                            entity: entity.name, property: attribute.name,
                            reason: "is new, required and has no default value"))
                }
                mappings.append(PropertyMapping(name: attribute.name, valueExpression: nil))
                continue
            }
            if !Self.widens(match.type, to: attribute.type) {
                problems.append(
                    MigrationProblem(
                        entity: entity.name, property: attribute.name,
                        reason:
                            "changes type from \(match.type.xcodeName) to \(attribute.type.xcodeName), which is not a widening lightweight migration can make"
                    ))
            }
            if match.isOptional && !attribute.isOptional && !hasDefault {
                problems.append(
                    MigrationProblem(
                        entity: entity.name, property: attribute.name,
                        reason: "becomes required and has no default value for the objects where it is nil"))
            }
            mappings.append(
                PropertyMapping(name: attribute.name, valueExpression: PropertyMapping.sourceValue(match.name)))
        }
        return mappings
    }

    mutating func relationshipMappings(
        for entity: EntityDescription, from sourceEntity: EntityDescription, destinationOf: [String: String]
    ) -> [PropertyMapping] {
        let sourceRelationships = source.allRelationships(of: sourceEntity.name).filter { !$0.isTransient }
        var mappings: [PropertyMapping] = []
        for relationship in destination.allRelationships(of: entity.name) where !relationship.isTransient {
            guard
                let match = Self.match(
                    relationship.name, relationship.renamingIdentifier, in: sourceRelationships, name: \.name,
                    renamingIdentifier: \.renamingIdentifier)
            else {
                if Self.isRequired(relationship) {
                    problems.append(
                        MigrationProblem(
                            entity: entity.name, property: relationship.name,
                            reason: "is a new required relationship; its objects would have none"))
                }
                mappings.append(PropertyMapping(name: relationship.name, valueExpression: nil))
                continue
            }
            if match.isToMany && !relationship.isToMany {
                problems.append(
                    MigrationProblem(
                        entity: entity.name, property: relationship.name,
                        reason: "changes from to-many to to-one, which lightweight migration can't make"))
            }
            let target = destinationOf[match.destinationEntityName]
            if let target, !destination.entity(target, isKindOf: relationship.destinationEntityName) {
                problems.append(
                    MigrationProblem(
                        entity: entity.name, property: relationship.name,
                        reason:
                            "pointed to \(match.destinationEntityName), whose objects become \(target), not \(relationship.destinationEntityName)"
                    ))
            }
            if target == nil {
                // The destination entity was dropped: so are the links.
                mappings.append(PropertyMapping(name: relationship.name, valueExpression: nil))
                if Self.isRequired(relationship) {
                    problems.append(
                        MigrationProblem(
                            entity: entity.name, property: relationship.name,
                            reason: "is required, but \(match.destinationEntityName) objects are dropped"))
                }
                continue
            }
            mappings.append(
                PropertyMapping(
                    name: relationship.name,
                    valueExpression: PropertyMapping.destinationsOfSourceRelationship(match.name)))
        }
        return mappings
    }
}
