public import Foundation
import Synchronization

/// Reads the bytes a Transformable attribute stores into the value they stand for, to show it (the reverse
/// direction of Core Data's `ValueTransformer`, found by the model's `valueTransformerName`).
public protocol StoredValueTransformer: Sendable {
    /// The value the stored bytes stand for, as a property list.
    /// - Parameter data: the bytes the store holds.
    /// - Returns: the value.
    /// - Throws: any error when the bytes are not what the transformer reads; the value is then shown as bytes.
    func value(from data: Data) throws -> PropertyList
}

/// The transformers known by name: Core Data's secure unarchiver built in, and any an app registers.
public enum ValueTransformerRegistry {
    private static let registered = Mutex<[String: any StoredValueTransformer]>([:])

    /// The names Core Data's keyed-archive transformers go by. A Transformable attribute without a transformer
    /// name uses one of them too.
    public static let keyedArchiveNames: Set<String> = [
        "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformerName", "NSKeyedUnarchiveFromData",
        "NSKeyedUnarchiveFromDataTransformerName",
    ]

    /// Registers an app's transformer under the name its model gives (`valueTransformerName`), replacing any
    /// other of that name.
    /// - Parameters:
    ///   - transformer: the transformer.
    ///   - name: the name.
    public static func register(_ transformer: any StoredValueTransformer, forName name: String) {
        registered.withLock { $0[name] = transformer }
    }

    /// The transformer for a name: a registered one, else the built-in keyed-archive reader for Core Data's names
    /// and for none; `nil` for an app's transformer that is not registered.
    /// - Parameter name: the attribute's `valueTransformerName`.
    /// - Returns: the transformer, or `nil`.
    public static func transformer(forName name: String?) -> (any StoredValueTransformer)? {
        let key = name ?? ""
        if let found = registered.withLock({ $0[key] }) { return found }
        if key.isEmpty || keyedArchiveNames.contains(key) { return SecureUnarchiveFromData() }
        return nil
    }
}

/// Core Data's default transformer (`NSSecureUnarchiveFromData`), reversed: the root of a keyed archive of
/// `NSArray`, `NSDictionary`, `NSSet`, `NSString`, `NSNumber`, `NSDate`, `NSData`, `NSURL`, `NSUUID`,
/// `NSDecimalNumber` and `NSNull`. An archive of any other class is not read (an error).
public struct SecureUnarchiveFromData: StoredValueTransformer {
    /// The transformer.
    public init() {}

    /// The archive's root object.
    /// - Parameter data: a keyed archive.
    /// - Returns: its root object, sets as arrays and `NSNull` as ``PropertyList/null``.
    /// - Throws: ``ModelFileError`` for bytes that are not a keyed archive of those classes.
    public func value(from data: Data) throws -> PropertyList {
        try KeyedArchiveReader.rootObject(of: data)
    }
}
