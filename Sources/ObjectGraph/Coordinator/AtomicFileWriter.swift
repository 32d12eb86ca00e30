public import Foundation
package import Synchronization

/// Writes a whole file safely for atomic stores: the bytes go to a temporary file in the same directory, are
/// flushed to disk, and only on ``Transaction/commit()`` is the temporary file renamed over the old one — so the old
/// file survives any failure before that point, and a reader never sees half a file.
public enum AtomicFileWriter {
    /// For tests: when set, called with the destination and the number of bytes about to be written; returning
    /// `true` makes the write fail there (as a full disk would).
    package static let failureInjection = Mutex<(@Sendable (URL, Int) -> Bool)?>(nil)

    /// Writes `data` next to `url` and returns the transaction that puts it in place.
    ///
    /// A symbolic link at `url` is followed (the file it points to is replaced; the link stays). The new file takes
    /// the old one's permissions (and its owner, where the process may set it); a new file gets `permissions`.
    /// - Parameters:
    ///   - data: the file's new contents.
    ///   - url: the file to replace (or create).
    ///   - permissions: the mode of a new file.
    /// - Returns: the transaction; nothing is replaced until it commits.
    /// - Throws: ``StoreError`` `io` when the temporary file cannot be written; nothing is left behind.
    public static func prepare(_ data: Data, for url: URL, permissions: mode_t = 0o644) throws(StoreError)
        -> Transaction
    {
        let destination = SafeReplacement.destination(for: url)
        let directory = destination.deletingLastPathComponent()
        let temporary = SafeReplacement.temporaryURL(beside: destination)
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else {
            throw StoreError(.io, path: url.path, "cannot create a temporary file in \(directory.path): \(errnoText())")
        }
        var old = stat()
        if stat(destination.path, &old) == 0 {
            fchmod(fd, old.st_mode & 0o7777)
            // Only root may give a file away; for anyone else the owner is already the caller, so a refusal is moot.
            _ = fchown(fd, old.st_uid, old.st_gid)
        }
        var failed: StoreError?
        let inject = failureInjection.withLock { $0 }
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let chunk = min(1 << 20, raw.count - offset)
                if let inject, inject(url, offset + chunk) {
                    failed = StoreError(.io, path: url.path, "write failed after \(offset) bytes (injected failure)")
                    return
                }
                let written = write(fd, raw.baseAddress! + offset, chunk)
                if written < 0 {
                    if errno == EINTR { continue }
                    failed = StoreError(.io, path: url.path, "write failed: \(errnoText())")
                    return
                }
                offset += written
            }
            if fsync(fd) != 0 { failed = StoreError(.io, path: url.path, "fsync failed: \(errnoText())") }
        }
        close(fd)
        if let failed {
            unlink(temporary.path)
            throw failed
        }
        return Transaction(temporary: temporary, destination: destination)
    }

    /// A written temporary file waiting to replace the destination.
    public struct Transaction: StoreTransaction {
        let temporary: URL
        let destination: URL

        /// Renames the temporary file over the destination and flushes the directory.
        /// - Throws: ``StoreError`` `io` when the rename fails; the old file is then as it was.
        public func commit() throws(StoreError) {
            guard rename(temporary.path, destination.path) == 0 else {
                let message = errnoText()
                unlink(temporary.path)
                throw StoreError(.io, path: destination.path, "cannot move the new file into place: \(message)")
            }
            SafeReplacement.flushFolder(of: destination)
        }

        /// Deletes the temporary file; the destination is untouched.
        public func rollback() {
            unlink(temporary.path)
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
