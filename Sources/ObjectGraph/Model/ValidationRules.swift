/// Validation rules of an attribute, checked when its object is validated (at save).
public struct ValidationRules: Sendable, Hashable {
    /// The smallest allowed value, for numbers and dates.
    public var minimumValue: AttributeValue?
    /// The largest allowed value, for numbers and dates.
    public var maximumValue: AttributeValue?
    /// The shortest allowed string, in characters.
    public var minimumLength: Int?
    /// The longest allowed string, in characters.
    public var maximumLength: Int?
    /// An ICU regular expression a string value must match as a whole.
    public var regularExpression: String?

    /// Creates rules; every rule is optional.
    /// - Parameters:
    ///   - minimumValue: the smallest value allowed (numbers and dates).
    ///   - maximumValue: the largest value allowed.
    ///   - minimumLength: the fewest characters (strings) or bytes (binary data).
    ///   - maximumLength: the most characters or bytes.
    ///   - regularExpression: a pattern a string must match whole.
    public init(
        minimumValue: AttributeValue? = nil, maximumValue: AttributeValue? = nil, minimumLength: Int? = nil,
        maximumLength: Int? = nil, regularExpression: String? = nil
    ) {
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.regularExpression = regularExpression
    }

    /// Whether there are no rules.
    public var isEmpty: Bool {
        minimumValue == nil && maximumValue == nil && minimumLength == nil && maximumLength == nil
            && regularExpression == nil
    }
}
