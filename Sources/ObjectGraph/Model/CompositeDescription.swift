/// A composite attribute type: a named group of attributes stored together (Xcode 15+).
public struct CompositeDescription: Sendable, Hashable {
    /// The composite's name, referred to by attributes of type ``AttributeType/composite``.
    public var name: String
    /// The member attributes.
    public var attributes: [AttributeDescription]

    /// Creates a composite.
    /// - Parameters:
    ///   - name: the composite's name.
    ///   - attributes: its members.
    public init(name: String, attributes: [AttributeDescription]) {
        self.name = name
        self.attributes = attributes
    }
}
