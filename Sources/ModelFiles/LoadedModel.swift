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
    /// - Parameters:
    ///   - model: the model.
    ///   - format: the form it was read from.
    ///   - path: where it was read from.
    ///   - versionName: its version's name, if it is one of several.
    ///   - recordedVersionHashes: the version hashes the file records, if it does.
    ///   - warnings: what is worth telling the user about it.
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
