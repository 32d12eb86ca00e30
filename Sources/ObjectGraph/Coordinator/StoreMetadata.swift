/// The metadata keys every store writes, as Core Data does: the store's type and UUID and the model's version
/// hashes, digest, checksum and version identifiers, over whatever else the store's metadata already holds.
public enum StoreMetadata {
    /// Our metadata key for the model a store carries (Xcode `contents` XML), in every store type we write.
    public static let modelKey = "DocutilStoreModel"

    /// The value of `NSPersistenceFrameworkVersion` our stores record.
    public static let frameworkVersion: Int64 = 1345

    /// `previous` with the standard keys set for a store of `type` written with `model`.
    /// - Parameters:
    ///   - model: the model the store is written with.
    ///   - type: the store type.
    ///   - uuid: the store's UUID.
    ///   - previous: the metadata so far (app keys are kept).
    ///   - frameworkVersion: whether to write `NSPersistenceFrameworkVersion`.
    /// - Returns: the metadata to write.
    public static func standard(
        for model: ManagedObjectModel, type: String, uuid: String, previous: [String: PropertyList],
        frameworkVersion: Bool = true
    ) -> [String: PropertyList] {
        var metadata = previous
        metadata["NSStoreType"] = .string(type)
        metadata["NSStoreUUID"] = .string(uuid)
        if frameworkVersion { metadata["NSPersistenceFrameworkVersion"] = .integer(Self.frameworkVersion) }
        metadata["NSStoreModelVersionHashes"] = .dictionary(model.entityVersionHashes.mapValues { .data($0) })
        metadata["NSStoreModelVersionHashesVersion"] = .integer(3)
        metadata["NSStoreModelVersionHashesDigest"] = .string(model.versionHashesDigest)
        metadata["NSStoreModelVersionChecksumKey"] = .string(model.versionChecksum)
        metadata["NSStoreModelVersionIdentifiers"] = .array(
            (model.versionIdentifiers.isEmpty ? [""] : model.versionIdentifiers).map { .string($0) })
        return metadata
    }
}
