public import Foundation
public import ObjectGraph

/// A model read from a file, with what was learned on the way.
public struct LoadedModel: Sendable {
    /// The model.
    public var model: ManagedObjectModel
    /// The form it was read from.
    public var format: ModelFormat
    /// The file that was read (inside a bundle: the version's file).
    public var path: String
    /// For bundles: the name of the version that was loaded.
    public var versionName: String?
    /// For `.momd` bundles: the entity version hashes momc recorded in `VersionInfo.plist` for this version.
    public var recordedVersionHashes: [String: Data]?
    /// Parts that could not be read fully (the model still loaded).
    public var warnings: [String]

    /// Creates a loaded model (for a model found elsewhere, such as inside a document).
    public init(
        model: ManagedObjectModel, format: ModelFormat, path: String, versionName: String? = nil,
        recordedVersionHashes: [String: Data]? = nil, warnings: [String]
    ) {
        self.model = model
        self.format = format
        self.path = path
        self.versionName = versionName
        self.recordedVersionHashes = recordedVersionHashes
        self.warnings = warnings
    }
}
