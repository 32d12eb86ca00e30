public import Foundation
import ObjectGraph

/// What a document remembers of its file when it opens or saves it, to tell later whether someone else changed it.
///
/// The identity (device and inode: a file replaced by a rename, as editors save, is a new inode), the size, and the
/// modification and status-change times to the nanosecond. The status-change time cannot be set by a program, so
/// a rewrite that restores the modification time is still seen. On file systems with whole-second times (FAT,
/// some network shares), where two writes in one second look alike, the contents' SHA-256 is kept too.
///
/// A SQLite document is checked differently by the document (its own connection's `data_version`, which changes
/// only when another connection commits), because SQLite rewrites the file in place and checkpoints change it
/// without changing its contents.
public struct FileFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The device the file is on.
    public var device: UInt64
    /// The file's inode number.
    public var inode: UInt64
    /// The file's size in bytes.
    public var size: Int64
    /// When the file's contents last changed.
    public var modified: timespec
    /// When the file's status (inode) last changed.
    public var statusChanged: timespec
    /// The contents' SHA-256, kept only where the file system's times are too coarse to tell writes apart.
    public var contentHash: Data?

    /// The fingerprint of the file at `url`; `nil` when there is no file there.
    /// - Parameter url: the file.
    /// - Returns: its identity, size and times, or `nil` when nothing is there.
    /// - Throws: ``DocumentError`` `io` when the file cannot be examined or (for a hash) read.
    public static func of(_ url: URL) throws(DocumentError) -> FileFingerprint? {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw DocumentError(.io, "\(url.path): cannot examine the file: \(String(cString: strerror(errno)))")
        }
        var fingerprint = FileFingerprint(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: info.st_mtim, statusChanged: info.st_ctim, contentHash: nil)
        if info.st_mtim.tv_nsec == 0 && info.st_ctim.tv_nsec == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw DocumentError(.io, "\(url.path): cannot read the file")
            }
            fingerprint.contentHash = SHA2.sha256(data)
        }
        return fingerprint
    }

    /// Whether `other` is the same file: same identity, and the same times, size and (where kept) contents.
    /// - Parameter other: a fingerprint taken earlier.
    /// - Returns: `true` when nothing about the file has changed.
    public func sameFile(as other: FileFingerprint) -> Bool {
        device == other.device && inode == other.inode
    }

    /// Whether two fingerprints describe the same file in the same state.
    /// - Parameters:
    ///   - a: one fingerprint.
    ///   - b: the other.
    /// - Returns: `true` when every field is equal.
    public static func == (a: FileFingerprint, b: FileFingerprint) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.statusChanged.tv_sec == b.statusChanged.tv_sec && a.statusChanged.tv_nsec == b.statusChanged.tv_nsec
            && a.contentHash == b.contentHash
    }

    /// Hashes what `==` compares.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(inode)
        hasher.combine(size)
        hasher.combine(modified.tv_nsec)
    }

    /// When the file was last modified.
    public var modificationDate: Date {
        Date(timeIntervalSince1970: Double(modified.tv_sec) + Double(modified.tv_nsec) / 1e9)
    }

    /// A readable description, as printed in messages.
    public var description: String {
        "inode \(inode), \(size) bytes, modified \(ISO8601DateFormatter().string(from: modificationDate))"
    }
}

extension timespec: @retroactive @unchecked Sendable {}
