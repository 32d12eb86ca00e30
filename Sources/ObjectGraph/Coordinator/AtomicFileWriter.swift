public import Foundation
public import Synchronization

/// Writes a whole file safely for atomic stores: the bytes go to a temporary file in the same directory, are
/// flushed to disk, and only on ``Transaction/commit()`` is the temporary file renamed over the old one — so the old
/// file survives any failure before that point, and a reader never sees half a file.
public enum AtomicFileWriter {
    /// For tests: when set, called with the destination and the number of bytes about to be written; returning
    /// `true` makes the write fail there (as a full disk would).
    public static let failureInjection = Mutex<(@Sendable (URL, Int) -> Bool)?>(nil)

    /// Writes `data` next to `url` and returns the transaction that puts it in place.
    public static func prepare(_ data: Data, for url: URL) throws(StoreError) -> Transaction {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else {
            throw StoreError(.io, path: url.path, "cannot create a temporary file in \(directory.path): \(errnoText())")
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
        return Transaction(temporary: temporary, destination: url)
    }

    /// A written temporary file waiting to replace the destination.
    public struct Transaction: StoreTransaction {
        let temporary: URL
        let destination: URL

        /// Renames the temporary file over the destination and flushes the directory.
        public func commit() throws(StoreError) {
            guard rename(temporary.path, destination.path) == 0 else {
                let message = errnoText()
                unlink(temporary.path)
                throw StoreError(.io, path: destination.path, "cannot move the new file into place: \(message)")
            }
            let directory = open(destination.deletingLastPathComponent().path, O_RDONLY)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
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
