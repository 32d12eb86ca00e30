public import Foundation
import ModelFiles
public import ObjectGraph
import XMLStore

/// What `docutil migrate` did, or would do on a dry run.
public struct MigrationReport: Sendable {
    /// Where the model the document was written with came from (`version X of M`, `the document's own model`…).
    public var sourceModelDescription: String
    /// The plan, one line per entity mapping and property: what maps to what, defaults filled, what is dropped.
    public var plan: [String]
    /// What the migration made (`nil` when the document already uses the model).
    public var result: MigrationResult?
    /// Things worth telling the user.
    public var warnings: [String]
    /// The document's version hashes already are the model's: nothing was migrated.
    public var alreadyCurrent: Bool
    /// The file written (`nil` on a dry run or when nothing was migrated).
    public var output: URL?
}

extension MigrationReport {
    /// What an open that migrated tells the user: where from, how many objects, and the migration's warnings.
    var summaryWarnings: [String] {
        let count = result?.snapshots.count ?? 0
        return ["migrated in place from \(sourceModelDescription) to the model given (\(count) object(s))"] + warnings
    }
}
