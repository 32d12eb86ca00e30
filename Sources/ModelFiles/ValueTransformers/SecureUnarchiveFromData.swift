public import Foundation
public import ObjectGraph

/// Core Data's default transformer (`NSSecureUnarchiveFromData`), reversed: the root of a keyed archive of
/// `NSArray`, `NSDictionary`, `NSSet`, `NSString`, `NSNumber`, `NSDate`, `NSData`, `NSURL`, `NSUUID`,
/// `NSDecimalNumber` and `NSNull`. An archive of any other class is not read (an error).
public struct SecureUnarchiveFromData: StoredValueTransformer {
    /// The transformer.
    public init() {}

    /// The archive's root object.
    /// - Parameter data: a keyed archive.
    /// - Returns: its root object, sets as arrays and `NSNull` as `PropertyList.null`.
    /// - Throws: ``ModelFileError`` for bytes that are not a keyed archive of those classes.
    public func value(from data: Data) throws -> PropertyList {
        try KeyedArchiveReader.rootObject(of: data)
    }
}
