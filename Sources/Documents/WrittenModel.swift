import Foundation
import ModelFiles
import ObjectGraph

/// The model a document was written with, compared with the model it is to be read with.
enum WrittenModel {
    /// The model it is read with: the document records no version hashes, or that model's, or the model it was
    /// written with has the same entities and properties (the same version hashes, computed here).
    case current
    /// Another model: reading the document with the current one needs a migration first.
    /// - `description`: where it was found (`version 2 of Model.xcdatamodeld`, `the document's own model (…)`).
    case other(ManagedObjectModel, description: String, warnings: [String])
    /// The version hashes differ from the current model's, and neither a version given nor the document itself has
    /// the model they belong to.
    case unknown

    /// The version hashes a document's metadata records (empty when it records none).
    static func recordedHashes(of url: URL, type: String) throws(DocumentError) -> [String: Data] {
        let metadata: [String: PropertyList]
        do {
            metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        } catch {
            throw DocumentError(error)
        }
        var recorded: [String: Data] = [:]
        if case .dictionary(let hashes)? = metadata["NSStoreModelVersionHashes"] {
            for (name, value) in hashes {
                guard case .data(let hash) = value else {
                    throw DocumentError(
                        .badData, "\(url.path): the version hash of \(name) in the metadata is not data")
                }
                recorded[name] = hash
            }
        }
        return recorded
    }

    /// Finds the model a document was written with: a version (by its computed hashes, or those its `.momd`
    /// records) whose hashes are the document's, else the mapping model's source model, else the model the document
    /// carries (embedded, or its `Z_MODELCACHE`).
    /// - Parameters:
    ///   - recorded: the document's version hashes (``recordedHashes(of:type:)``).
    ///   - current: the model the document is to be read with, and the hashes its `.momd` records for it.
    ///   - versions: the versions of the model to look among; `modelName` names them in descriptions.
    static func find(
        for url: URL, type: String, recorded: [String: Data], current: ManagedObjectModel,
        currentRecorded: [String: Data]?, versions: [LoadedModel], modelName: String,
        mappingSource: ManagedObjectModel? = nil
    ) throws(DocumentError) -> WrittenModel {
        let currentHashes = current.entityVersionHashes
        if recorded.isEmpty || recorded == currentHashes || recorded == currentRecorded { return .current }
        for version in versions
        where version.model.entityVersionHashes == recorded || version.recordedVersionHashes == recorded {
            if version.model.entityVersionHashes == currentHashes { return .current }
            return .other(
                version.model, description: "version \(version.versionName ?? "?") of \(modelName)", warnings: [])
        }
        if let mappingSource, mappingSource.entityVersionHashes == recorded {
            if mappingSource.entityVersionHashes == currentHashes { return .current }
            return .other(mappingSource, description: "the mapping model's source model", warnings: [])
        }
        guard let own = try DocumentStack.carriedModel(for: url, type: type, allowingNone: true) else {
            return .unknown
        }
        let ownHashes = own.model.entityVersionHashes
        // The same entities and properties: the recorded hashes differ from those computed here by an input of
        // Apple's recipe, not by the model.
        if ownHashes == currentHashes { return .current }
        var warnings = own.warnings
        if ownHashes != recorded {
            warnings.append(
                "its own model (\(own.source)) was taken as the model it was written with; the version hashes computed from it differ from the recorded ones"
            )
        }
        return .other(own.model, description: "the document's own model (\(own.source))", warnings: warnings)
    }
}
