public import Foundation
public import ObjectGraph

/// Reads the bytes a Transformable attribute stores into the value they stand for, to show it (the reverse
/// direction of Core Data's `ValueTransformer`, found by the model's `valueTransformerName`).
public protocol StoredValueTransformer: Sendable {
    /// The value the stored bytes stand for, as a property list.
    /// - Parameter data: the bytes the store holds.
    /// - Returns: the value.
    /// - Throws: any error when the bytes are not what the transformer reads; the value is then shown as bytes.
    func value(from data: Data) throws -> PropertyList
}
