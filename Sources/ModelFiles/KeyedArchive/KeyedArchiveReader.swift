public import Foundation
public import ObjectGraph

/// The plain objects of an `NSKeyedArchiver` archive (an old Cocoa app's document file) as a property list:
/// `NSString`, `NSNumber`, `NSDate`, `NSData`, `NSArray`, `NSSet`, `NSOrderedSet`, `NSDictionary` (and their
/// mutable forms), `NSNull`, `NSUUID`, `NSURL` and `NSDecimalNumber`.
public enum KeyedArchiveReader {
    /// How deeply containers may nest (an archive may hold cycles; they end here with an error).
    public static let maximumDepth = 256

    /// Whether a property list is a keyed archive (`$archiver = NSKeyedArchiver`).
    /// - Parameter plist: a property list.
    /// - Returns: `true` for a keyed archive.
    public static func isKeyedArchive(_ plist: PropertyList) -> Bool {
        plist["$archiver"]?.string == "NSKeyedArchiver"
    }

    /// The archive's root object as a property list: sets become arrays, `NSNull` becomes `PropertyList.null`.
    /// - Parameter data: the archive's bytes (a binary or XML property list).
    /// - Returns: the root object.
    /// - Throws: ``ModelFileError`` naming the archived object (`$objects[N]`) of a class it does not know, or a
    ///   broken reference.
    public static func rootObject(of data: Data) throws(ModelFileError) -> PropertyList {
        let archive = try KeyedArchive(data: data)
        return try plain(archive, .uid(archive.rootUID), depth: 0)
    }

    private static func plain(_ archive: KeyedArchive, _ value: PropertyList, depth: Int) throws(ModelFileError)
        -> PropertyList
    {
        guard let (uid, object) = try archive.resolve(value) else { return .null }
        guard depth < maximumDepth else {
            throw archive.fail(uid ?? -1, "containers nest deeper than \(maximumDepth) levels (a cycle?)")
        }
        guard case .dictionary = object, let className = archive.className(of: object) else { return object }
        switch className {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            var items: [PropertyList] = []
            for item in try archive.array(value) { items.append(try plain(archive, item, depth: depth + 1)) }
            return .array(items)
        case "NSDictionary", "NSMutableDictionary":
            var entries: [String: PropertyList] = [:]
            for (key, item) in try archive.dictionary(value) {
                entries[key] = try plain(archive, item, depth: depth + 1)
            }
            return .dictionary(entries)
        case "NSNull":
            return .null
        default:
            return try archive.scalar(value) ?? .null
        }
    }
}
