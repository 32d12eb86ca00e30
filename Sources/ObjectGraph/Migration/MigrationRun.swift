/// One run of a ``MigrationManager``: the destination objects as they are made.
struct MigrationRun {
    /// A destination object being made.
    struct Made {
        var entity: String
        var source: ManagedObjectID
        var mapping: Int
        var attributes: [String: AttributeValue]
        var toOne: [String: ManagedObjectID?] = [:]
        var toMany: [String: [ManagedObjectID]] = [:]
        var id: ManagedObjectID?
    }

    let manager: MigrationManager
    let graph: SourceGraph
    let storeIdentifier: String
    let sharedKeys: Bool
    /// The destination model's composites by name, for converting composite values.
    let composites: [String: CompositeDescription]
    var made: [Made] = []
    var byMapping: [String: [ManagedObjectID: [Int]]] = [:]
    var bySource: [ManagedObjectID: [Int]] = [:]
    var madeByID: [ManagedObjectID: Int] = [:]
    var warnings: [String] = []
    var counts: [String: Int] = [:]
    var dropped: [String: Int] = [:]
    var problems: [MigrationProblem] = []
    var problemCount = 0

    var source: ManagedObjectModel { manager.sourceModel }
    var destination: ManagedObjectModel { manager.destinationModel }

    init(manager: MigrationManager, snapshots: [ObjectSnapshot], storeIdentifier: String, sharedKeys: Bool) {
        self.manager = manager
        self.graph = SourceGraph(model: manager.sourceModel, snapshots: snapshots)
        self.storeIdentifier = storeIdentifier
        self.sharedKeys = sharedKeys
        composites = Dictionary(
            manager.destinationModel.composites.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    mutating func fail(_ entity: String, _ property: String?, _ reason: String) {
        problemCount += 1
        if problems.count < MigrationManager.problemLimit {
            problems.append(MigrationProblem(entity: entity, property: property, reason: reason))
        }
    }

    func stopIfFailed() throws(MigrationError) {
        guard problemCount > 0 else { return }
        var listed = problems
        if problemCount > problems.count {
            listed.append(
                MigrationProblem(entity: "…", reason: "\(problemCount - problems.count) more problems not listed"))
        }
        throw MigrationError(.invalidObject, listed)
    }

    // MARK: - Stage 1: objects and attributes

    mutating func createObjects() throws(MigrationError) {
        var sourcesByEntity: [String: [ObjectSnapshot]] = [:]
        for snapshot in graph.snapshots.values {
            sourcesByEntity[snapshot.objectID.entityName, default: []].append(snapshot)
        }
        var covered: Set<String> = []
        var warnedPolicies: Set<String> = []
        for (index, entityMapping) in manager.mapping.entityMappings.enumerated() {
            guard entityMapping.kind != .add, entityMapping.kind != .remove,
                let sourceName = entityMapping.sourceEntityName,
                let destinationName = entityMapping.destinationEntityName
            else { continue }
            covered.insert(sourceName)
            var policy: (any EntityMigrationPolicy)?
            if let className = entityMapping.migrationPolicyClassName, !className.isEmpty {
                policy = manager.policies[className]
                if policy == nil, warnedPolicies.insert(className).inserted {
                    warnings.append(
                        "mapping \(entityMapping.name) names the migration policy class \(className), which is not registered; the default behaviour ran"
                    )
                }
            }
            let attributes = destination.allAttributes(of: destinationName).filter {
                !$0.isTransient && !$0.isDerived
            }
            var defaults: [String: AttributeValue] = [:]
            for attribute in attributes where !attribute.defaultValue.isNull {
                defaults[attribute.name] = attribute.defaultValue
            }
            let byName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let sources = (sourcesByEntity[sourceName] ?? []).sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            for snapshot in sources {
                guard let object = graph.object(snapshot.objectID) else { continue }
                let variables = variables(for: object, entityMapping)
                if let filter = entityMapping.filterPredicate {
                    do {
                        guard try filter.evaluate(with: .object(object), variables: variables) else {
                            dropped[sourceName, default: 0] += 1
                            continue
                        }
                    } catch {
                        fail(
                            destinationName, nil,
                            "\(object.objectID): the filter predicate of \(entityMapping.name): \(error)")
                        continue
                    }
                }
                var values = defaults
                for property in entityMapping.attributeMappings {
                    guard let expression = property.valueExpression, let attribute = byName[property.name] else {
                        continue
                    }
                    let value: PredicateValue
                    do {
                        value = try expression.value(with: .object(object), variables: variables)
                    } catch {
                        fail(destinationName, property.name, "\(object.objectID): \(error)")
                        continue
                    }
                    do {
                        let converted = try attributeValue(value, for: attribute)
                        if !converted.isNull {
                            values[attribute.name] = converted
                        } else if attribute.isOptional || attribute.defaultValue.isNull {
                            values[attribute.name] = nil
                        }
                    } catch {
                        fail(destinationName, property.name, "\(object.objectID): \(error)")
                    }
                }
                var results = [values]
                if let policy {
                    do {
                        results = try policy.destinationValues(for: object, mapping: entityMapping, proposed: values)
                    } catch {
                        fail(destinationName, nil, "\(object.objectID): the migration policy: \(error)")
                        continue
                    }
                }
                if results.isEmpty { dropped[sourceName, default: 0] += 1 }
                for values in results {
                    bySource[snapshot.objectID, default: []].append(made.count)
                    byMapping[entityMapping.name, default: [:]][snapshot.objectID, default: []].append(made.count)
                    made.append(
                        Made(entity: destinationName, source: snapshot.objectID, mapping: index, attributes: values))
                    counts[entityMapping.name, default: 0] += 1
                }
            }
        }
        for (name, snapshots) in sourcesByEntity where !covered.contains(name) {
            dropped[name, default: 0] += snapshots.count
        }
        try stopIfFailed()
        assignKeys()
    }

    /// The variables mapping expressions see for one source object.
    func variables(for object: MigrationSourceObject, _ entityMapping: EntityMapping) -> [String: PredicateValue] {
        ["source": .object(object), "entityMapping": .string(entityMapping.name)]
    }

    /// A value of an expression as a value of `attribute`, converted without loss.
    func attributeValue(_ value: PredicateValue, for attribute: AttributeDescription) throws(ValueConversionError)
        -> AttributeValue
    {
        if case .dictionary(let entries) = value, attribute.type == .composite {
            var members: [String: AttributeValue] = [:]
            for (name, member) in entries {
                guard let constant = member.constant else {
                    throw ValueConversionError(
                        value: .null, targetType: .composite, reason: "member \(name) is not a value")
                }
                members[name] = AttributeValue(constant: constant)
            }
            return try AttributeValue.converted(.composite(members), to: attribute, composites: composites)
        }
        guard let constant = value.constant else {
            throw ValueConversionError(
                value: .null, targetType: attribute.type, reason: "the expression gives an object, not a value")
        }
        return try AttributeValue.converted(AttributeValue(constant: constant), to: attribute, composites: composites)
    }

    /// Gives every made object its ID: its source object's key when free under its root entity, else the next key
    /// after the highest.
    mutating func assignKeys() {
        var used: [String: Set<Int64>] = [:]
        var deferred: [Int] = []
        var first: Set<ManagedObjectID> = []
        func root(_ entity: String) -> String { sharedKeys ? "" : destination.rootEntity(of: entity) }
        for index in made.indices {
            let key = made[index].source.primaryKey
            if first.insert(made[index].source).inserted,
                used[root(made[index].entity), default: []].insert(key).inserted
            {
                made[index].id = ManagedObjectID(
                    entityName: made[index].entity, storeIdentifier: storeIdentifier, primaryKey: key)
            } else {
                deferred.append(index)
            }
        }
        var next = used.mapValues { $0.max() ?? 0 }
        for index in deferred {
            let name = root(made[index].entity)
            let key = (next[name] ?? 0) + 1
            next[name] = key
            made[index].id = ManagedObjectID(
                entityName: made[index].entity, storeIdentifier: storeIdentifier, primaryKey: key)
        }
        for index in made.indices {
            if let id = made[index].id { madeByID[id] = index }
        }
    }

    // MARK: - Stage 2: relationships

    mutating func setRelationships() throws(MigrationError) {
        let mappings = manager.mapping.entityMappings
        for index in made.indices {
            let entityMapping = mappings[made[index].mapping]
            guard let object = graph.object(made[index].source) else { continue }
            let entity = made[index].entity
            let relationships = destination.allRelationships(of: entity)
            for property in entityMapping.relationshipMappings {
                guard let expression = property.valueExpression,
                    let relationship = relationships.first(where: { $0.name == property.name })
                else { continue }
                let targets: [ManagedObjectID]
                do {
                    targets = try destinations(of: expression, for: object, entityMapping).filter {
                        destination.entity($0.entityName, isKindOf: relationship.destinationEntityName)
                    }
                } catch {
                    fail(entity, property.name, "\(object.objectID): \(error)")
                    continue
                }
                if relationship.isToMany {
                    var seen: Set<ManagedObjectID> = []
                    made[index].toMany[relationship.name] = targets.filter { seen.insert($0).inserted }
                } else if targets.count > 1 {
                    fail(
                        entity, property.name,
                        "\(object.objectID): the mapping gives \(targets.count) objects for a to-one relationship")
                } else {
                    made[index].toOne[relationship.name] = .some(targets.first)
                }
            }
        }
        try stopIfFailed()
    }

    /// The destination objects a relationship mapping's expression gives for one source object.
    func destinations(
        of expression: ObjectExpression, for object: MigrationSourceObject, _ entityMapping: EntityMapping
    )
        throws(MigrationExpressionError) -> [ManagedObjectID]
    {
        let variables = variables(for: object, entityMapping)
        var table: [ManagedObjectID: [Int]]? = nil
        var sourceExpression = expression
        if case .methodCall(.variable("manager"), let selector, let arguments) = expression {
            guard arguments.count == 2, case .constant(.string(let name)) = arguments[0] else {
                throw MigrationExpressionError(
                    "FUNCTION($manager, '\(selector)', …) takes a name and the source objects")
            }
            switch selector {
            case MigrationSelector.destinationsForEntityMapping:
                guard manager.mapping.entityMapping(named: name) != nil else {
                    throw MigrationExpressionError("names the entity mapping '\(name)', which the mapping model lacks")
                }
                table = byMapping[name] ?? [:]
            case MigrationSelector.destinationsForSourceRelationship:
                break
            default:
                throw MigrationExpressionError("$manager has no method '\(selector)' that docutil runs")
            }
            sourceExpression = arguments[1]
        }
        let value: PredicateValue
        do {
            value = try sourceExpression.value(with: .object(object), variables: variables)
        } catch {
            throw MigrationExpressionError(error.description)
        }
        var sources: [MigrationSourceObject] = []
        func collect(_ value: PredicateValue) throws(MigrationExpressionError) {
            switch value {
            case .null: break
            case .object(let found as MigrationSourceObject): sources.append(found)
            case .collection(let items, _): for item in items { try collect(item) }
            default: throw MigrationExpressionError("gives a value, not source objects")
            }
        }
        try collect(value)
        var result: [ManagedObjectID] = []
        for found in sources {
            for index in (table ?? bySource)[found.objectID] ?? [] {
                if let id = made[index].id { result.append(id) }
            }
        }
        return result
    }

    /// The registered policies' second stage, source object by source object, mapping by mapping.
    mutating func runPolicies() throws(MigrationError) {
        guard !manager.policies.isEmpty else { return }
        let destination = MigrationDestination(run: self)
        let before = made.count
        for (mappingIndex, entityMapping) in manager.mapping.entityMappings.enumerated() {
            guard let className = entityMapping.migrationPolicyClassName, let policy = manager.policies[className],
                let sources = byMapping[entityMapping.name]
            else { continue }
            for (sourceID, indices) in sources.sorted(by: { $0.key.primaryKey < $1.key.primaryKey }) {
                guard let object = graph.object(sourceID) else { continue }
                destination.source = sourceID
                destination.mapping = mappingIndex
                destination.fromSource = indices
                do {
                    try policy.createRelationships(for: object, mapping: entityMapping, in: destination)
                } catch {
                    fail(
                        entityMapping.destinationEntityName ?? entityMapping.name, nil,
                        "\(sourceID): the migration policy \(className): \(error)")
                }
            }
        }
        made = destination.made
        for index in before..<made.count {
            if let id = made[index].id { madeByID[id] = index }
        }
        try stopIfFailed()
    }

    // MARK: - Stage 3: inverses and validation

    /// Sets the other side of every relationship a mapping set only one side of.
    mutating func completeInverses() throws(MigrationError) {
        var members: [Int: [String: Set<ManagedObjectID>]] = [:]
        for index in made.indices {
            guard let id = made[index].id else { continue }
            for relationship in destination.allRelationships(of: made[index].entity) where !relationship.isTransient {
                guard let inverse = destination.inverse(of: relationship), !inverse.isTransient else { continue }
                let targets: [ManagedObjectID] =
                    relationship.isToMany
                    ? made[index].toMany[relationship.name] ?? []
                    : (made[index].toOne[relationship.name] ?? nil).map { [$0] } ?? []
                for target in targets {
                    guard let other = madeByID[target] else { continue }
                    if inverse.isToMany {
                        if members[other]?[inverse.name] == nil {
                            members[other, default: [:]][inverse.name] = Set(made[other].toMany[inverse.name] ?? [])
                        }
                        if members[other, default: [:]][inverse.name, default: []].insert(id).inserted {
                            made[other].toMany[inverse.name, default: []].append(id)
                        }
                    } else {
                        switch made[other].toOne[inverse.name] ?? nil {
                        case nil: made[other].toOne[inverse.name] = .some(id)
                        case let existing? where existing == id: break
                        case let existing?:
                            fail(
                                made[other].entity, inverse.name,
                                "\(target) would point to both \(existing) and \(id) (its inverse \(relationship.name) holds it in both)"
                            )
                        }
                    }
                }
            }
        }
        try stopIfFailed()
    }

    /// Checks every destination object against the destination model's required values and counts.
    ///
    /// Objects made by a mapping whose migration policy class is not registered are the exception: that policy
    /// would have completed them, so what they lack is reported as warnings (each property once, with how many
    /// objects), not as a failure — the default behaviour ran, as Core Data's documentation describes for a
    /// mapping without its policy, and the user is told what the app's policy must still do.
    mutating func validate() throws(MigrationError) {
        let mappings = manager.mapping.entityMappings
        var incomplete: [String: (count: Int, policy: String, reason: String)] = [:]
        for item in made {
            guard let id = item.id else { continue }
            let lacking = lacks(of: item)
            guard !lacking.isEmpty else { continue }
            if let policy = mappings[item.mapping].migrationPolicyClassName, !policy.isEmpty,
                manager.policies[policy] == nil
            {
                for problem in lacking {
                    let key = "\(problem.entity).\(problem.property ?? "")"
                    incomplete[key, default: (0, policy, problem.reason)].count += 1
                }
                continue
            }
            let origin = item.source == id ? "\(id)" : "\(id) (from \(item.source))"
            for problem in lacking { fail(problem.entity, problem.property, "\(origin): \(problem.reason)") }
        }
        for (key, entry) in incomplete.sorted(by: { $0.key < $1.key }) {
            warnings.append(
                "\(key): \(entry.reason), on \(entry.count) object(s); the unregistered policy \(entry.policy) would have to set it"
            )
        }
        try stopIfFailed()
    }

    /// What one destination object lacks for the destination model's rules.
    func lacks(of item: Made) -> [MigrationProblem] {
        var problems: [MigrationProblem] = []
        for attribute in destination.allAttributes(of: item.entity)
        where !attribute.isOptional && !attribute.isTransient && !attribute.isDerived
            && item.attributes[attribute.name] == nil
        {
            problems.append(
                MigrationProblem(entity: item.entity, property: attribute.name, reason: "is required and has no value"))
        }
        for relationship in destination.allRelationships(of: item.entity) where !relationship.isTransient {
            let key = relationship.name
            if relationship.isToMany {
                let count = item.toMany[key]?.count ?? 0
                if count < relationship.minCount {
                    problems.append(
                        MigrationProblem(
                            entity: item.entity, property: key,
                            reason: "has \(count) object(s); at least \(relationship.minCount) required"))
                }
                if relationship.maxCount > 0, count > relationship.maxCount {
                    problems.append(
                        MigrationProblem(
                            entity: item.entity, property: key,
                            reason: "has \(count) objects; at most \(relationship.maxCount) allowed"))
                }
            } else if !relationship.isOptional, (item.toOne[key] ?? nil) == nil {
                problems.append(
                    MigrationProblem(entity: item.entity, property: key, reason: "needs a destination object"))
            }
        }
        return problems
    }

    func result() -> MigrationResult {
        var snapshots: [ObjectSnapshot] = []
        snapshots.reserveCapacity(made.count)
        for item in made {
            guard let id = item.id else { continue }
            var toOne = item.toOne
            var toMany = item.toMany
            for relationship in destination.allRelationships(of: item.entity) where !relationship.isTransient {
                if relationship.isToMany {
                    if toMany[relationship.name] == nil { toMany[relationship.name] = [] }
                } else if toOne[relationship.name] == nil {
                    toOne[relationship.name] = .some(nil)
                }
            }
            snapshots.append(ObjectSnapshot(objectID: id, attributes: item.attributes, toOne: toOne, toMany: toMany))
        }
        snapshots.sort {
            ($0.objectID.entityName, $0.objectID.primaryKey) < ($1.objectID.entityName, $1.objectID.primaryKey)
        }
        return MigrationResult(snapshots: snapshots, warnings: warnings, counts: counts, dropped: dropped)
    }
}

/// Why a relationship mapping's expression could not give destination objects.
struct MigrationExpressionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
