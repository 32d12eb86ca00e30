/// What happens to the destination of a relationship when its source object is deleted.
public enum DeleteRule: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Nothing: the destination keeps pointing at the deleted object (you fix the graph yourself).
    case noAction = 0
    /// The inverse relationship of each destination object is cleared.
    case nullify = 1
    /// The destination objects are deleted too.
    case cascade = 2
    /// The delete fails (at save) while there are destination objects.
    case deny = 3

    /// The name Xcode writes in `deletionRule`.
    public var xcodeName: String {
        switch self {
        case .noAction: "No Action"
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        }
    }

    /// Finds the rule for an Xcode `deletionRule` string.
    /// - Parameter xcodeName: `Nullify`, `Cascade`, `Deny` or `No Action`.
    public init?(xcodeName: String) {
        switch xcodeName {
        case "No Action", "NoAction": self = .noAction
        case "Nullify": self = .nullify
        case "Cascade": self = .cascade
        case "Deny": self = .deny
        default: return nil
        }
    }
}

/// A relationship from one entity to another: to-one, to-many, or ordered to-many.
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name, unique among the entity's properties.
    public var name: String
    /// The name of the destination entity.
    public var destinationEntityName: String
    /// The name of the inverse relationship on the destination entity, if any.
    public var inverseName: String?
    /// Whether the relationship holds many objects (a set, or an ordered set when ``isOrdered``).
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// The least number of objects (0 = no minimum).
    public var minCount: Int
    /// The most objects (0 = unbounded); 1 for a to-one relationship.
    public var maxCount: Int
    /// Whether the model file gave the unbounded maximum as -1 (`NSUIntegerMax`) instead of 0: the same meaning,
    /// but a different version hash, so it is kept.
    public var writesUnboundedAsMinusOne = false
    /// What deleting the source does to the destination.
    public var deleteRule: DeleteRule
    /// Whether the relationship may be nil (to-one) or empty (to-many).
    public var isOptional: Bool
    /// Whether the relationship is kept in memory only.
    public var isTransient: Bool
    /// Whether an index is requested on the foreign key.
    public var isIndexed: Bool
    /// Free-form key/value pairs.
    public var userInfo: [String: String]
    /// A string mixed into the version hash.
    public var versionHashModifier: String?
    /// The previous name, for lightweight migration.
    public var renamingIdentifier: String?

    /// Creates a relationship. A to-one relationship always has `maxCount` 1.
    /// - Parameters: See the properties of the same names; `name` and `destination` are required, and `toMany` makes
    ///   a to-many relationship.
    public init(
        name: String, destination: String, inverse: String? = nil, toMany: Bool = false, ordered: Bool = false,
        minCount: Int = 0, maxCount: Int? = nil, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
        isTransient: Bool = false, isIndexed: Bool = false, userInfo: [String: String] = [:],
        versionHashModifier: String? = nil, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToMany = toMany
        self.isOrdered = toMany && ordered
        self.minCount = minCount
        self.maxCount = toMany ? max(maxCount ?? 0, 0) : 1
        self.writesUnboundedAsMinusOne = toMany && (maxCount ?? 0) < 0
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.userInfo = userInfo
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
    }
}
