/// An attribute of an entity: a named value of one ``AttributeType``.
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, unique among the entity's properties (inherited ones included).
    public var name: String
    /// The attribute's type.
    public var type: AttributeType
    /// Whether the value may be nil. Xcode's default for a new attribute is `true`; a `contents` file that omits
    /// `optional` means `false`.
    public var isOptional: Bool
    /// Whether the value is kept in memory only and never stored.
    public var isTransient: Bool
    /// The value a new object starts with; ``AttributeValue/null`` for none.
    public var defaultValue: AttributeValue
    /// Rules checked when an object is validated.
    public var validation: ValidationRules
    /// For a derived attribute: the expression the store computes it from (e.g. `photos.@count`).
    public var derivationExpression: String?
    /// Whether a store may keep large binary values outside its main file.
    public var allowsExternalBinaryDataStorage: Bool
    /// Whether the value is kept in persistent history when its object is deleted.
    public var preservesValueInHistoryOnDeletion: Bool
    /// For Transformable: the name of the value transformer (`nil` means the default keyed-archive transformer).
    public var valueTransformerName: String?
    /// For Transformable: the class of the transformed value (Xcode's `customClassName`).
    public var customClassName: String?
    /// For Composite: the name of the model's ``CompositeDescription`` that describes the value.
    public var compositeName: String?
    /// Whether a single-column index is requested (older models; newer ones use fetch indexes).
    public var isIndexed: Bool
    /// Free-form key/value pairs.
    public var userInfo: [String: String]
    /// A string mixed into the version hash to force a new version without other changes.
    public var versionHashModifier: String?
    /// The previous name, for lightweight migration (Xcode's `elementID`).
    public var renamingIdentifier: String?

    /// Creates an attribute.
    /// - Parameters: See the properties of the same names; `name` and `type` are required.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
        defaultValue: AttributeValue = .null, validation: ValidationRules = ValidationRules(),
        derivationExpression: String? = nil, allowsExternalBinaryDataStorage: Bool = false,
        preservesValueInHistoryOnDeletion: Bool = false, valueTransformerName: String? = nil,
        customClassName: String? = nil, compositeName: String? = nil, isIndexed: Bool = false,
        userInfo: [String: String] = [:], versionHashModifier: String? = nil, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.validation = validation
        self.derivationExpression = derivationExpression
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.valueTransformerName = valueTransformerName
        self.customClassName = customClassName
        self.compositeName = compositeName
        self.isIndexed = isIndexed
        self.userInfo = userInfo
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
    }

    /// Whether the attribute is derived from other values by the store.
    public var isDerived: Bool { derivationExpression != nil }
}
