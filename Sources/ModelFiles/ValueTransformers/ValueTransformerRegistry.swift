import Foundation
import Synchronization

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
