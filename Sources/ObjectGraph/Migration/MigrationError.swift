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
