/// One reason a migration cannot be inferred or cannot run: the entity, the property (when it is about one) and why.
public struct MigrationProblem: Sendable, Hashable, CustomStringConvertible {
    /// The entity (destination entity for inference, or the object's entity at run time).
    public var entity: String
    /// The property, when the problem is about one.
    public var property: String?
    /// Why.
    public var reason: String

    /// Creates a problem.
    /// - Parameters:
    ///   - entity: the entity.
    ///   - property: the property, if any.
    ///   - reason: why.
    public init(entity: String, property: String? = nil, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// `Entity.property: reason`.
    public var description: String {
        "\(entity)\(property.map { ".\($0)" } ?? ""): \(reason)"
    }
}

/// Why a migration could not be planned or run. Nothing is written when it is thrown.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Code: Sendable, Hashable {
        /// Inference cannot map the models (see ``MigrationError/problems``).
        case cannotInfer
        /// A mapping model does not fit the models (names an entity, mapping or property they lack).
        case badMapping
        /// An object could not be migrated: a value that does not fit, a required value missing, an expression
        /// that cannot be evaluated.
        case invalidObject
    }

    /// What kind of failure.
    public var code: Code
    /// Each reason, with the entity and property.
    public var problems: [MigrationProblem]

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - problems: the reasons.
    public init(_ code: Code, _ problems: [MigrationProblem]) {
        self.code = code
        self.problems = problems
    }

    /// One line per problem after a summary.
    public var description: String {
        let summary =
            switch code {
            case .cannotInfer: "no mapping can be inferred"
            case .badMapping: "the mapping model does not fit the models"
            case .invalidObject: "an object cannot be migrated"
            }
        return ([summary + ":"] + problems.map { "  \($0)" }).joined(separator: "\n")
    }
}
