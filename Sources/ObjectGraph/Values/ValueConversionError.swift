import Foundation

/// Why a value could not be converted to another attribute type without loss.
public struct ValueConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value that was to be converted.
    public var value: AttributeValue
    /// The type it was to become.
    public var targetType: AttributeType
    /// What went wrong.
    public var reason: String

    /// A readable description, as printed in messages.
    public var description: String {
        "cannot convert \(value.debugText) to \(targetType.xcodeName): \(reason)"
    }
}
