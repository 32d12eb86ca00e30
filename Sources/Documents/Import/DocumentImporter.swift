public import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore

/// Reads a file of a legacy format into an ``ImportTarget``: the import hook of a ``DocumentType`` that is only
/// imported. Built in: CSV, TSV, JSON (generic, and `docutil dump`'s format), property lists, keyed archives and
/// plain SQLite databases; an app registers its own with ``DocumentTypeRegistry/register(_:)``.
///
/// An importer reads as it goes (memory bounded by one record, not by the file), inserts objects with
/// ``ImportTarget/insert(_:fields:at:in:)``, reports each value it cannot use with
/// ``ImportTarget/problem(_:at:in:)`` and calls ``ImportTarget/recordRead(from:bytesRead:totalBytes:)`` after each
/// record. It throws at once only for input it cannot read on.
public protocol DocumentImporter: Sendable {
    /// Reads `url` into `target`.
    /// - Throws: ``DocumentError`` for input that cannot be read (with `FILE:LINE:COLUMN` or the key path).
    func importObjects(from url: URL, into target: ImportTarget) throws(DocumentError)
}
