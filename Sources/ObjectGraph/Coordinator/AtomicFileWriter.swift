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
        try prepare(for: url, permissions: permissions) { (sink) throws(StoreError) in try sink.write(contentsOf: data)
        }
    }

    /// Writes what `body` gives the sink next to `url`, piece by piece (a large file need not be held whole), and
    /// returns the transaction that puts it in place; on any failure the temporary file is removed and `url` is
    /// left as it was.
    /// - Parameters:
    ///   - url: the file to replace on commit.
    ///   - permissions: the mode of a new file (an existing file's mode and owner are kept).
    ///   - body: writes the bytes, in order.
    /// - Returns: the transaction.
    /// - Throws: ``StoreError`` `io` when the file cannot be written, or what `body` throws.
    package static func prepare(
        for url: URL, permissions: mode_t = 0o644, writing body: (Sink) throws(StoreError) -> Void
    ) throws(StoreError) -> Transaction {
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
        let sink = Sink(fd: fd, url: url, inject: failureInjection.withLock { $0 })
        do throws(StoreError) {
            try body(sink)
            if fsync(fd) != 0 { throw StoreError(.io, path: url.path, "fsync failed: \(errnoText())") }
        } catch {
            close(fd)
            unlink(temporary.path)
            throw error
        }
        close(fd)
        return Transaction(temporary: temporary, destination: destination)
    }

    /// Where a file being prepared is written: bytes go to the temporary file in the order given, in chunks of at
    /// most 1 MB.
    package final class Sink {
        let fd: Int32
        let url: URL
        let inject: (@Sendable (URL, Int) -> Bool)?
        /// Bytes written so far.
        private(set) var offset = 0

        init(fd: Int32, url: URL, inject: (@Sendable (URL, Int) -> Bool)?) {
            self.fd = fd
            self.url = url
            self.inject = inject
        }

        /// Appends the bytes of a buffer, an array or `Data` to the file.
        /// - Parameter bytes: the bytes.
        /// - Throws: ``StoreError`` `io` when they cannot be written.
        package func write(contentsOf bytes: some ContiguousBytes) throws(StoreError) {
            var failure: StoreError?
            bytes.withUnsafeBytes { raw in
                do throws(StoreError) {
                    try write(raw)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }

        /// Appends bytes to the file.
        /// - Parameter bytes: the bytes.
        /// - Throws: ``StoreError`` `io` when they cannot be written.
        package func write(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let chunk = Swift.min(1 << 20, bytes.count - done)
                if let inject, inject(url, offset + chunk) {
                    throw StoreError(.io, path: url.path, "write failed after \(offset) bytes (injected failure)")
                }
                let written = Foundation.write(fd, base + done, chunk)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StoreError(.io, path: url.path, "write failed: \(errnoText())")
                }
                done += written
                offset += written
            }
        }
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

    fileprivate static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
