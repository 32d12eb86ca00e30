import Foundation

/// A value and where it was read.
public struct ImportNode: Sendable {
    /// The value.
    public var value: ImportValue
    /// Where it is in its source, for messages.
    public var place: ImportPlace

    /// A value read from a source.
    /// - Parameters:
    ///   - value: The value.
    ///   - place: Where it is in its source.
    public init(_ value: ImportValue, at place: ImportPlace) {
        self.value = value
        self.place = place
    }
}
