public import Foundation
import ModelFiles
import ObjectGraph

/// An autosaved version of a document found beside it: what an earlier session had not saved when it ended
/// without saving or discarding (a crash, a kill, a power cut).
public struct AutosaveInfo: Sendable, Hashable {
    /// The sidecar file.
    public var url: URL
    /// When it was written.
    public var written: Date
    /// The process that wrote it, and where.
    public var pid: Int32
    /// The name of the machine the autosave was written on.
    public var host: String
    /// How many objects it inserts, changes and deletes.
    public var inserted: Int
    /// How many objects it changes.
    public var updated: Int
    /// How many objects it deletes.
    public var deleted: Int
}
