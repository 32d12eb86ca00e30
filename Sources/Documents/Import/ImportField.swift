import Foundation

/// A named value of a record (a JSON member, a dictionary entry, a column).
public struct ImportField: Sendable {
    /// The key as it appears in the source.
    public var name: String
    /// Its value, with its place in the source.
    public var node: ImportNode

    /// A field of a record.
    /// - Parameters:
    ///   - name: The key as it appears in the source.
    ///   - node: Its value, with its place.
    public init(name: String, node: ImportNode) {
        self.name = name
        self.node = node
    }
}
