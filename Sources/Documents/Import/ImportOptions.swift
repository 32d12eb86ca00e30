import Foundation
import ObjectGraph

/// What an import is told: the entity for sources that do not name one, a mapping, and where to report progress.
public struct ImportOptions: Sendable {
    /// The entity of a source that holds one entity's records (CSV, TSV, a top-level array); `nil` to take the
    /// file's base name.
    public var entity: String?
    /// A mapping for sources whose names differ from the model's.
    public var mapping: ImportMapping?
    /// The format of every source (`nil`: by extension, then content).
    public var format: ImportFormat?
    /// Called now and then while reading (at most a few times a second).
    public var progress: (@Sendable (ImportProgress) -> Void)?

    /// Creates options.
    /// - Parameters:
    ///   - entity: the entity of a CSV or TSV file, or of a top-level array (default: the file's base name).
    ///   - mapping: names for sources that differ from the model's.
    ///   - format: the format of every source (default: by extension, then content).
    ///   - progress: hears how far the import has come, about four times a second.
    public init(
        entity: String? = nil, mapping: ImportMapping? = nil, format: ImportFormat? = nil,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) {
        self.entity = entity
        self.mapping = mapping
        self.format = format
        self.progress = progress
    }
}
