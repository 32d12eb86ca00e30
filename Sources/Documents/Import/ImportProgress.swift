public import Foundation
import ObjectGraph

/// How far an import has come.
public struct ImportProgress: Sendable {
    /// The source being read.
    public var file: URL
    /// Bytes of it read, and its size (0 when unknown).
    public var bytesRead: Int64
    /// The source's size in bytes (0 when unknown).
    public var totalBytes: Int64
    /// Records read so far, over every source.
    public var records: Int
    /// Seconds since the import started.
    public var elapsed: TimeInterval
}
