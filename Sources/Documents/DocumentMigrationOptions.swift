public import Foundation
public import ModelFiles
public import ObjectGraph

/// What opening a document does when it was written with another version of the model it is opened with: Core
/// Data's `NSMigratePersistentStoresAutomaticallyOption` with `NSInferMappingModelAutomaticallyOption`.
///
/// The model the document was written with is found by its version hashes among ``versions`` (and the mapping
/// model's source model), else it is the model the document carries (embedded in its metadata, or its
/// `Z_MODELCACHE`). When that model has the same entities and properties as the one the document is opened with, the
/// document is read as it is, without migrating.
public struct DocumentMigrationOptions: Sendable {
    /// Migrate the document to the model, in place, before reading it (under the document's lock; the original is
    /// left byte-identical when the migration fails). Off: read the document with the model it was written with,
    /// and say so in the warnings (what read-only inspection does).
    public var migrates: Bool
    /// Versions of the model, among which the one the document was written with is looked for.
    public var versions: [LoadedModel]
    /// An Xcode mapping model (`.xcmappingmodel`) to migrate with; `nil` to infer the mapping as lightweight
    /// migration does.
    public var mappingModel: URL?
    /// The app's migration policies, by the class names the mapping model gives.
    public var policies: [String: any EntityMigrationPolicy]

    /// Options for opening documents.
    /// - Parameters:
    ///   - migrates: migrate a document written with another version of the model (in place, before reading it).
    ///   - versions: versions of the model where the one the document was written with may be found.
    ///   - mappingModel: an Xcode mapping model to migrate with, or `nil` to infer the mapping.
    ///   - policies: the app's migration policies, by class name.
    public init(
        migrates: Bool = true, versions: [LoadedModel] = [], mappingModel: URL? = nil,
        policies: [String: any EntityMigrationPolicy] = [:]
    ) {
        self.migrates = migrates
        self.versions = versions
        self.mappingModel = mappingModel
        self.policies = policies
    }

    /// Never migrate: a document written with another version of the model is read with that version.
    public static var never: DocumentMigrationOptions { DocumentMigrationOptions(migrates: false) }
}
