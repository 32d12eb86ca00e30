/// Checks a set of entities and works out inheritance, for ``ManagedObjectModel``.
struct ModelResolver {
    let entities: [EntityDescription]
    var errors: [ModelError.Problem] = []
    var warnings: [ModelError.Problem] = []
    var indexByName: [String: Int] = [:]
    var parentIndex: [Int?] = []
    var subentityIndexes: [[Int]] = []
    var resolvedAttributes: [[AttributeDescription]] = []
    var resolvedRelationships: [[RelationshipDescription]] = []
    var resolvedFetchedProperties: [[FetchedPropertyDescription]] = []

    init(entities: [EntityDescription]) {
        self.entities = entities
    }

    mutating func checkAndResolve(
        templates: [FetchRequestTemplate], configurations: [Configuration], composites: [CompositeDescription]
    ) {
        indexEntities()
        resolveInheritance()
        resolveProperties()
        checkRelationships()
        checkAttributes(composites: composites)
        checkConstraints()
        checkTemplates(templates)
        checkConfigurations(configurations)
    }

    /// Whether a name holds a C0, DEL or C1 control character: no modelling tool makes one, and a name is shown in
    /// messages and listings, where a terminal would act on it.
    static func holdsControlCharacters(_ name: String) -> Bool {
        name.unicodeScalars.contains(where: Diagnostics.isControl)
    }

    private mutating func indexEntities() {
        for (i, entity) in entities.enumerated() {
            if entity.name.isEmpty {
                errors.append(.init(.invalidName, "an entity has an empty name"))
            } else if Self.holdsControlCharacters(entity.name) {
                errors.append(
                    .init(
                        .invalidName, entity: Diagnostics.quote(entity.name),
                        "the entity name holds a control character"))
            }
            if indexByName[entity.name] != nil {
                errors.append(.init(.duplicateEntity, entity: entity.name, "the entity name is used twice"))
            } else {
                indexByName[entity.name] = i
            }
        }
    }

    private mutating func resolveInheritance() {
        parentIndex = Array(repeating: nil, count: entities.count)
        subentityIndexes = Array(repeating: [], count: entities.count)
        for (i, entity) in entities.enumerated() {
            guard let parent = entity.parentName else { continue }
            guard let p = indexByName[parent] else {
                errors.append(.init(.unknownParent, entity: entity.name, "parent entity '\(parent)' does not exist"))
                continue
            }
            if indexByName[entity.name] == i {
                parentIndex[i] = p
                subentityIndexes[p].append(i)
            }
        }
        // Break cycles so that later walks terminate, reporting each entity on a cycle once.
        for start in entities.indices {
            var seen: Set<Int> = [start]
            var current = parentIndex[start]
            while let c = current {
                if c == start {
                    let cycle = [entities[start].name] + ancestorsNames(from: start, limit: seen.count)
                    errors.append(
                        .init(
                            .inheritanceCycle, entity: entities[start].name,
                            "inheritance cycle: \(cycle.joined(separator: " → "))"))
                    break
                }
                if !seen.insert(c).inserted { break }
                current = parentIndex[c]
            }
        }
        if errors.contains(where: { $0.kind == .inheritanceCycle }) {
            let cyclic = Set(errors.filter { $0.kind == .inheritanceCycle }.compactMap { $0.entity })
            for (i, entity) in entities.enumerated() where cyclic.contains(entity.name) {
                if let p = parentIndex[i] { subentityIndexes[p].removeAll { $0 == i } }
                parentIndex[i] = nil
            }
        }
    }

    private func ancestorsNames(from start: Int, limit: Int) -> [String] {
        var names: [String] = []
        var current = parentIndex[start]
        while let c = current, names.count < limit {
            names.append(entities[c].name)
            current = parentIndex[c]
        }
        return names
    }

    private mutating func resolveProperties() {
        resolvedAttributes = Array(repeating: [], count: entities.count)
        resolvedRelationships = Array(repeating: [], count: entities.count)
        resolvedFetchedProperties = Array(repeating: [], count: entities.count)
        var done = Array(repeating: false, count: entities.count)
        func resolve(_ i: Int) {
            if done[i] { return }
            done[i] = true
            var attributes: [AttributeDescription] = []
            var relationships: [RelationshipDescription] = []
            var fetched: [FetchedPropertyDescription] = []
            if let p = parentIndex[i] {
                resolve(p)
                attributes = resolvedAttributes[p]
                relationships = resolvedRelationships[p]
                fetched = resolvedFetchedProperties[p]
            }
            resolvedAttributes[i] = attributes + entities[i].attributes
            resolvedRelationships[i] = relationships + entities[i].relationships
            resolvedFetchedProperties[i] = fetched + entities[i].fetchedProperties
        }
        for i in entities.indices { resolve(i) }
        for (i, entity) in entities.enumerated() where indexByName[entity.name] == i {
            var seen: Set<String> = []
            let names =
                resolvedAttributes[i].map(\.name) + resolvedRelationships[i].map(\.name)
                + resolvedFetchedProperties[i].map(\.name)
            let inherited = Set(
                parentIndex[i].map { p in
                    resolvedAttributes[p].map(\.name) + resolvedRelationships[p].map(\.name)
                        + resolvedFetchedProperties[p].map(\.name)
                } ?? [])
            for name in names {
                if name.isEmpty {
                    errors.append(.init(.invalidName, entity: entity.name, "a property has an empty name"))
                } else if Self.holdsControlCharacters(name) {
                    // Reported on the entity that declares it, not again on its sub-entities.
                    guard entity.declaredPropertyNames.contains(name) else { continue }
                    errors.append(
                        .init(
                            .invalidName, entity: entity.name, property: Diagnostics.quote(name),
                            "the property name holds a control character"))
                } else if !seen.insert(name).inserted {
                    let how = inherited.contains(name) ? "declared again though inherited" : "declared twice"
                    // Report each clash on the entity that declares it, not again on its sub-entities.
                    if entity.declaredPropertyNames.contains(name) {
                        errors.append(.init(.duplicateProperty, entity: entity.name, property: name, how))
                    }
                }
            }
        }
    }

    private mutating func checkRelationships() {
        for entity in entities {
            for relationship in entity.relationships {
                let here = (entity: entity.name, property: relationship.name)
                if relationship.minCount < 0 || relationship.maxCount < 0
                    || (relationship.maxCount > 0 && relationship.minCount > relationship.maxCount)
                {
                    errors.append(
                        .init(
                            .invalidCount, entity: here.entity, property: here.property,
                            "minCount \(relationship.minCount) and maxCount \(relationship.maxCount) do not fit"))
                }
                guard let d = indexByName[relationship.destinationEntityName] else {
                    errors.append(
                        .init(
                            .unknownDestination, entity: here.entity, property: here.property,
                            "destination entity '\(relationship.destinationEntityName)' does not exist"))
                    continue
                }
                guard let inverseName = relationship.inverseName else {
                    warnings.append(
                        .init(.unknownInverse, entity: here.entity, property: here.property, "has no inverse"))
                    continue
                }
                guard let inverse = resolvedRelationships[d].first(where: { $0.name == inverseName }) else {
                    errors.append(
                        .init(
                            .unknownInverse, entity: here.entity, property: here.property,
                            "inverse '\(inverseName)' is not a relationship of '\(relationship.destinationEntityName)'"
                        ))
                    continue
                }
                let inverseDestination = inverse.destinationEntityName
                // An unknown destination on the inverse is reported on the inverse itself.
                guard indexByName[inverseDestination] != nil else { continue }
                if !isKind(entity.name, of: inverseDestination) && !isKind(inverseDestination, of: entity.name) {
                    errors.append(
                        .init(
                            .inverseMismatch, entity: here.entity, property: here.property,
                            "inverse '\(relationship.destinationEntityName).\(inverseName)' points to "
                                + "'\(inverseDestination)', not back to '\(entity.name)'"))
                } else if let back = inverse.inverseName, back != relationship.name {
                    errors.append(
                        .init(
                            .inverseMismatch, entity: here.entity, property: here.property,
                            "inverse '\(relationship.destinationEntityName).\(inverseName)' has inverse '\(back)', "
                                + "not '\(relationship.name)'"))
                } else if inverse.inverseName == nil {
                    warnings.append(
                        .init(
                            .inverseMismatch, entity: here.entity, property: here.property,
                            "inverse '\(relationship.destinationEntityName).\(inverseName)' names no inverse itself"
                        ))
                }
            }
            for fetched in entity.fetchedProperties where indexByName[fetched.entityName] == nil {
                errors.append(
                    .init(
                        .unknownEntityInFetchRequest, entity: entity.name, property: fetched.name,
                        "fetched entity '\(fetched.entityName)' does not exist"))
            }
        }
    }

    private mutating func checkAttributes(composites: [CompositeDescription]) {
        let compositeNames = Set(composites.map(\.name))
        checkComposites(composites)
        for entity in entities {
            for attribute in entity.attributes {
                if attribute.type == .composite {
                    if let name = attribute.compositeName, !compositeNames.contains(name) {
                        errors.append(
                            .init(
                                .unknownComposite, entity: entity.name, property: attribute.name,
                                "composite '\(name)' is not defined in the model"))
                    }
                }
                if !attribute.defaultValue.isNull, attribute.type != .undefined, attribute.type != .transformable,
                    attribute.type != .composite, attribute.defaultValue.type != attribute.type
                {
                    errors.append(
                        .init(
                            .invalidDefaultValue, entity: entity.name, property: attribute.name,
                            "default value \(attribute.defaultValue.debugText) is not a \(attribute.type.xcodeName)"))
                }
            }
        }
    }

    /// Composites must refer to defined composites and must not contain themselves (directly or through others),
    /// so that converting and storing their values always ends.
    private mutating func checkComposites(_ composites: [CompositeDescription]) {
        let byName = Dictionary(composites.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for composite in composites {
            var seen: Set<String> = [composite.name]
            var stack = composite.attributes.compactMap { $0.type == .composite ? $0.compositeName : nil }
            while let next = stack.popLast() {
                guard let member = byName[next] else {
                    errors.append(
                        .init(
                            .unknownComposite,
                            "composite '\(composite.name)' uses composite '\(next)', which is not defined"))
                    continue
                }
                guard seen.insert(next).inserted else {
                    if next == composite.name {
                        errors.append(.init(.unknownComposite, "composite '\(composite.name)' contains itself"))
                    }
                    continue
                }
                stack += member.attributes.compactMap { $0.type == .composite ? $0.compositeName : nil }
            }
        }
    }

    private mutating func checkConstraints() {
        for (i, entity) in entities.enumerated() where indexByName[entity.name] == i {
            let known = Set(resolvedAttributes[i].map(\.name) + resolvedRelationships[i].map(\.name))
            for property in (entity.uniquenessConstraints + entity.compoundIndexes).joined()
            where !known.contains(property) {
                errors.append(
                    .init(
                        .unknownPropertyInConstraint, entity: entity.name, property: property,
                        "a constraint or index names a property the entity does not have"))
            }
            for index in entity.fetchIndexes {
                for element in index.elements where !known.contains(element.property) {
                    errors.append(
                        .init(
                            .unknownPropertyInConstraint, entity: entity.name, property: element.property,
                            "fetch index '\(index.name)' names a property the entity does not have"))
                }
            }
        }
    }

    private mutating func checkTemplates(_ templates: [FetchRequestTemplate]) {
        var names: Set<String> = []
        for template in templates {
            if !names.insert(template.name).inserted {
                errors.append(
                    .init(.duplicateFetchRequest, "fetch request template '\(template.name)' is defined twice"))
            }
            if indexByName[template.entityName] == nil {
                errors.append(
                    .init(
                        .unknownEntityInFetchRequest,
                        "fetch request template '\(template.name)' fetches unknown entity '\(template.entityName)'"))
            }
        }
    }

    private mutating func checkConfigurations(_ configurations: [Configuration]) {
        for configuration in configurations {
            for name in configuration.entityNames where indexByName[name] == nil {
                errors.append(
                    .init(
                        .unknownEntityInConfiguration,
                        "configuration '\(configuration.name)' lists unknown entity '\(name)'"))
            }
        }
    }

    /// The object layout of every entity (call only for a model without errors).
    func makeLayouts(composites: [CompositeDescription]) -> [String: EntityLayout] {
        var layouts: [String: EntityLayout] = [:]
        let compositesByName = Dictionary(composites.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (i, entity) in entities.enumerated() {
            var ancestors: [String] = []
            var current = parentIndex[i]
            while let c = current {
                ancestors.append(entities[c].name)
                current = parentIndex[c]
            }
            var kinds: Set<String> = []
            var stack = [i]
            while let j = stack.popLast() {
                kinds.insert(entities[j].name)
                stack += subentityIndexes[j]
            }
            layouts[entity.name] = EntityLayout(
                entity: entity, attributes: resolvedAttributes[i], relationships: resolvedRelationships[i],
                ancestors: ancestors, kinds: kinds, composites: compositesByName)
        }
        return layouts
    }

    private func isKind(_ name: String, of ancestor: String) -> Bool {
        if name == ancestor { return true }
        var current = indexByName[name].flatMap { parentIndex[$0] }
        var steps = 0
        while let c = current, steps <= entities.count {
            if entities[c].name == ancestor { return true }
            current = parentIndex[c]
            steps += 1
        }
        return false
    }
}
