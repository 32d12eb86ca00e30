/// Problems found when a model is built or checked.
///
/// A model that fails validation reports every problem at once, each naming the entity and property involved.
public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One problem in a model.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The kind of problem.
        public enum Kind: String, Sendable, Hashable {
            case duplicateEntity
            case duplicateProperty
            case unknownParent
            case inheritanceCycle
            case unknownDestination
            case unknownInverse
            case inverseMismatch
            case invalidCount
            case unknownEntityInConfiguration
            case unknownPropertyInConstraint
            case unknownEntityInFetchRequest
            case duplicateFetchRequest
            case unknownComposite
            case invalidDefaultValue
            case invalidName
        }

        /// The kind of problem.
        public var kind: Kind
        /// The entity involved, if any.
        public var entity: String?
        /// The property involved, if any.
        public var property: String?
        /// What is wrong, in words.
        public var message: String

        /// Creates a problem.
        /// - Parameters:
        ///   - kind: what kind of problem it is.
        ///   - entity: the entity it is in, if any.
        ///   - property: the property it is about, if any.
        ///   - message: what is wrong.
        public init(_ kind: Kind, entity: String? = nil, property: String? = nil, _ message: String) {
            self.kind = kind
            self.entity = entity
            self.property = property
            self.message = message
        }

        /// A readable description, as printed in messages.
        public var description: String {
            switch (entity, property) {
            case (let e?, let p?): "\(e).\(p): \(message)"
            case (let e?, nil): "\(e): \(message)"
            default: message
            }
        }
    }

    /// Every problem found.
    public var problems: [Problem]

    /// Creates an error from problems.
    /// - Parameter problems: every problem found.
    public init(problems: [Problem]) {
        self.problems = problems
    }

    /// A readable description, as printed in messages.
    public var description: String {
        if problems.count == 1 { return "invalid model: \(problems[0])" }
        return "invalid model (\(problems.count) problems):\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
