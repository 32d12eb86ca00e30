public import Foundation

/// Version hashes, computed with Core Data's byte recipe (see `VERSION-HASHES.md` in the shared notes).
///
/// A store records the hash of every entity of the model it was written with; a model whose hashes equal a
/// store's can open it without migration. The recipe reproduces every hash Apple recorded in our fixtures. Inputs
/// no fixture exercises (a version hash modifier, transient or abstract flags set, ordered to-many relationships,
/// external binary storage, several uniqueness constraints) follow the most likely encoding and are marked
/// unverified there.
extension ManagedObjectModel {
    /// The version hash of every entity, by entity name (32 bytes each).
    public var entityVersionHashes: [String: Data] {
        var result: [String: Data] = [:]
        for entity in entities { result[entity.name] = versionHash(ofEntity: entity.name) }
        return result
    }

    /// The 32-byte version hash of one entity, or `nil` for an unknown entity.
    ///
    /// SHA-256 over: the name; one byte for isAbstract; the parent's hash (if any); the hashes of every attribute
    /// and relationship that is not transient, inherited ones included, sorted by name; the entity's own uniqueness
    /// constraints, each its names joined with `.`; the version hash modifier (unverified).
    /// - Parameter name: the entity's name.
    /// - Returns: the hash.
    public func versionHash(ofEntity name: String) -> Data? {
        guard let entity = entity(named: name) else { return nil }
        var bytes = Array(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.parentName, let parentHash = versionHash(ofEntity: parent) {
            bytes += parentHash
        }
        // Transient properties are not stored, and leave the entity's hash alone (CoreDataPlus's SampleModel).
        var propertyHashes: [(String, Data)] = []
        for attribute in allAttributes(of: name) where !attribute.isTransient {
            propertyHashes.append((attribute.name, Self.versionHash(of: attribute)))
        }
        for relationship in allRelationships(of: name) where !relationship.isTransient {
            propertyHashes.append((relationship.name, Self.versionHash(of: relationship)))
        }
        propertyHashes.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        for (_, hash) in propertyHashes { bytes += hash }
        // A compound constraint's names are joined with "." (`firstName.lastName`); several constraints follow one
        // another (unverified).
        for constraint in entity.uniquenessConstraints {
            bytes += Array(constraint.joined(separator: ".").utf8)
        }
        if let modifier = entity.versionHashModifier { bytes += Array(modifier.utf8) }
        return SHA2.sha256(bytes)
    }

    /// The 32-byte version hash of an attribute: SHA-256 over the property base digest, the type code, and a byte 1
    /// when it preserves its value in persistent history after deletion.
    /// - Parameter attribute: the attribute.
    /// - Returns: the hash.
    public static func versionHash(of attribute: AttributeDescription) -> Data {
        var bytes = Array(
            propertyBaseDigest(
                name: attribute.name, isOptional: attribute.isOptional, isTransient: attribute.isTransient,
                modifier: attribute.versionHashModifier))
        bytes += littleEndian(attribute.type.rawValue)
        // Preserving the value in persistent history after deletion adds one byte (CoreDataPlus's SampleModel).
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        return SHA2.sha256(bytes)
    }

    /// The 32-byte version hash of a relationship: SHA-256 over the property base digest, the destination and
    /// inverse names, maxCount and minCount, and the bytes 01 00 when it is an ordered to-many.
    /// - Parameter relationship: the relationship.
    /// - Returns: the hash.
    public static func versionHash(of relationship: RelationshipDescription) -> Data {
        var bytes = Array(
            propertyBaseDigest(
                name: relationship.name, isOptional: relationship.isOptional, isTransient: relationship.isTransient,
                modifier: relationship.versionHashModifier))
        bytes += Array(relationship.destinationEntityName.utf8)
        bytes += Array((relationship.inverseName ?? "").utf8)
        // A maximum of -1 (unbounded, in some compiled models) is 0xFFFFFFFF, as stored, not 0.
        bytes += littleEndian(
            relationship.writesUnboundedAsMinusOne ? UInt32.max : UInt32(truncatingIfNeeded: relationship.maxCount))
        bytes += littleEndian(UInt32(truncatingIfNeeded: relationship.minCount))
        // An ordered to-many adds the bytes 01 00 (DuckDuckGo's Bookmarks stores).
        if relationship.isOrdered && relationship.isToMany { bytes += [1, 0] }
        return SHA2.sha256(bytes)
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's name and hash, in name order.
    public var versionHashesDigest: String {
        var bytes: [UInt8] = []
        let hashes = entityVersionHashes
        for (name, hash) in hashes.sorted(by: { Self.codePointOrder($0.key, $1.key) }) {
            bytes += Array(name.utf8)
            bytes += hash
        }
        return SHA2.sha512(bytes).base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity hashes in entity-name order.
    public var versionChecksum: String {
        let hashes = entityVersionHashes
        var bytes: [UInt8] = []
        for (_, hash) in hashes.sorted(by: { Self.codePointOrder($0.key, $1.key) }) { bytes += hash }
        return SHA2.sha256(bytes).base64EncodedString()
    }

    /// SHA-256 over the name, the optional and transient bytes, and the version hash modifier (its UTF-8 bytes: an
    /// attribute's, seen in DuckDuckGo's Bookmarks stores; a relationship's taken to be the same).
    private static func propertyBaseDigest(name: String, isOptional: Bool, isTransient: Bool, modifier: String?)
        -> Data
    {
        SHA2.sha256(Array(name.utf8) + [isOptional ? 1 : 0, isTransient ? 1 : 0] + Array((modifier ?? "").utf8))
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// Orders strings by their UTF-8 bytes (code-point order), as Core Data orders names in hashes.
    /// - Parameters:
    ///   - a: one string.
    ///   - b: the other.
    /// - Returns: whether `a` sorts first.
    public static func codePointOrder(_ a: String, _ b: String) -> Bool {
        Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }
}
