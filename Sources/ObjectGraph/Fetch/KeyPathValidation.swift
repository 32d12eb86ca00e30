/// Checks that every key path a fetch request uses names a property of the model, as Core Data does when it runs
/// a fetch ("keypath … not found in entity"): an unknown key is an error, never a silent nil.
extension ManagedObjectModel {
    /// Checks the predicate, sort descriptors and properties to fetch of a request against its entity.
    /// - Parameter request: the fetch request.
    /// - Throws: ``ObjectPredicateError`` `unknownKey` naming the key path and the entity.
    public func validateKeyPaths(of request: FetchRequest) throws(ObjectPredicateError) {
        var checker = KeyPathChecker(model: self)
        if let predicate = request.predicate {
            try checker.check(predicate, entity: request.entityName)
        }
        for descriptor in request.sortDescriptors {
            let path = descriptor.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try checker.checkPath(path[...], from: .entity(request.entityName), whole: descriptor.keyPath)
        }
        for property in request.propertiesToFetch ?? [] {
            if case .property(let name) = property {
                let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                try checker.checkPath(path[...], from: .entity(request.entityName), whole: name)
            }
        }
    }

    /// Checks the key paths of a predicate evaluated against objects of `entityName`.
    /// - Parameters:
    ///   - predicate: the predicate.
    ///   - entityName: the entity of the objects it is evaluated against.
    /// - Throws: ``ObjectPredicateError`` `unknownKey` naming the key path and the entity.
    public func validateKeyPaths(of predicate: ObjectPredicate, entity entityName: String) throws(ObjectPredicateError)
    {
        var checker = KeyPathChecker(model: self)
        try checker.check(predicate, entity: entityName)
    }
}

/// Walks predicates and expressions, following key paths through the model.
struct KeyPathChecker {
    /// What a value along a key path is known to be.
    enum Place {
        /// Objects of an entity (one, or the elements of a to-many relationship).
        case entity(String)
        /// The value of a composite attribute.
        case composite(String)
        /// Something the model does not describe (a scalar, a transformable value, a variable): not checked further.
        case unknown
    }

    let model: ManagedObjectModel
    /// SUBQUERY variables and what they range over.
    var variables: [String: Place] = [:]

    static let collectionOperators: Set<String> = [
        "@count", "@sum", "@avg", "@min", "@max", "@unionOfObjects", "@distinctUnionOfObjects", "@unionOfArrays",
        "@distinctUnionOfArrays", "@unionOfSets", "@distinctUnionOfSets",
    ]

    mutating func check(_ predicate: ObjectPredicate, entity: String) throws(ObjectPredicateError) {
        // An explicit stack: predicates nest only as deep as the parser allows, but a tree built in code may not.
        var stack: [ObjectPredicate] = [predicate]
        while let next = stack.popLast() {
            switch next {
            case .true, .false: break
            case .and(let parts), .or(let parts): stack += parts
            case .not(let inner): stack.append(inner)
            case .comparison(let c):
                try check(c.lhs, entity: entity)
                try check(c.rhs, entity: entity)
                // A constant MATCHES pattern is compiled now: an invalid one is an error before anything runs.
                if c.op == .matches, case .constant(.string(let pattern)) = c.rhs {
                    _ = try RegexCache.shared.regex(
                        ValueComparison.fold(pattern, c.options.intersection(.diacriticInsensitive)),
                        caseInsensitive: c.options.contains(.caseInsensitive))
                }
            }
        }
    }

    mutating func check(_ expression: ObjectExpression, entity: String) throws(ObjectPredicateError) {
        switch expression {
        case .constant, .evaluatedObject, .variable, .anyKey: return
        case .keyPath(let base, let path):
            switch base {
            case .evaluatedObject:
                try checkPath(path[...], from: .entity(entity), whole: path.joined(separator: "."))
            case .variable(let name):
                if let place = variables[name] {
                    try checkPath(path[...], from: place, whole: "$\(name)." + path.joined(separator: "."))
                }
            default:
                try check(base, entity: entity)
            }
        case .function(_, let arguments), .aggregate(let arguments):
            for argument in arguments { try check(argument, entity: entity) }
        case .methodCall(let receiver, _, let arguments):
            try check(receiver, entity: entity)
            for argument in arguments { try check(argument, entity: entity) }
        case .arithmetic(_, let l, let r), .setOperation(_, let l, let r):
            try check(l, entity: entity)
            try check(r, entity: entity)
        case .negation(let inner), .cast(let inner, _), .assignment(_, let inner):
            try check(inner, entity: entity)
        case .index(let base, let kind):
            try check(base, entity: entity)
            if case .at(let position) = kind { try check(position, entity: entity) }
        case .conditional(let condition, let a, let b):
            try check(condition, entity: entity)
            try check(a, entity: entity)
            try check(b, entity: entity)
        case .subquery(let collection, let variable, let inner):
            try check(collection, entity: entity)
            let saved = variables[variable]
            variables[variable] = place(of: collection, entity: entity)
            defer { variables[variable] = saved }
            try check(inner, entity: entity)
        }
    }

    /// What the elements of a SUBQUERY's collection are.
    func place(of collection: ObjectExpression, entity: String) -> Place {
        guard case .keyPath(let base, let path) = collection else { return .unknown }
        var current: Place
        switch base {
        case .evaluatedObject: current = .entity(entity)
        case .variable(let name): current = variables[name] ?? .unknown
        default: return .unknown
        }
        for component in path {
            guard case .entity(let name) = current, !component.hasPrefix("@") else { return .unknown }
            if let relationship = model.allRelationships(of: name).first(where: { $0.name == component }) {
                current = .entity(relationship.destinationEntityName)
            } else if let fetched = model.allFetchedProperties(of: name).first(where: { $0.name == component }) {
                current = .entity(fetched.entityName)
            } else {
                return .unknown
            }
        }
        return current
    }

    /// Follows `path` from `start`; an unknown key is an error.
    func checkPath(_ path: ArraySlice<String>, from start: Place, whole: String) throws(ObjectPredicateError) {
        var current = start
        for component in path {
            if component.hasPrefix("@") {
                guard Self.collectionOperators.contains(component) else {
                    throw ObjectPredicateError(
                        .unknownKey,
                        "unknown collection operator '\(Diagnostics.quote(component))' in key path '\(Diagnostics.quote(whole))'"
                    )
                }
                if component == "@count" { current = .unknown }
                continue
            }
            switch current {
            case .unknown:
                return
            case .composite(let name):
                guard let member = model.composite(named: name)?.attributes.first(where: { $0.name == component })
                else {
                    throw ObjectPredicateError(
                        .unknownKey,
                        "keypath '\(Diagnostics.quote(whole))' not found: composite '\(name)' has no member '\(Diagnostics.quote(component))'"
                    )
                }
                current = member.type == .composite ? member.compositeName.map { .composite($0) } ?? .unknown : .unknown
            case .entity(let name):
                if let attribute = model.allAttributes(of: name).first(where: { $0.name == component }) {
                    current =
                        attribute.type == .composite
                        ? attribute.compositeName.map { .composite($0) } ?? .unknown : .unknown
                } else if let relationship = model.allRelationships(of: name).first(where: { $0.name == component }) {
                    current = .entity(relationship.destinationEntityName)
                } else if let fetched = model.allFetchedProperties(of: name).first(where: { $0.name == component }) {
                    current = .entity(fetched.entityName)
                } else {
                    throw ObjectPredicateError(
                        .unknownKey,
                        "keypath '\(Diagnostics.quote(whole))' not found in entity \(name): it has no property '\(Diagnostics.quote(component))'"
                    )
                }
            }
        }
    }
}
