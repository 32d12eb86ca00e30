public import Foundation

/// One writer per document: an advisory lock (`flock`) on a lock file beside the document,
/// `.<name>.docutil-lock`, which holds the holder's process ID, host, start time and program.
///
/// The lock belongs to the open file description, so it disappears when the process dies, however it dies: a lock
/// file left behind by a killed process blocks no one (the next writer takes it over). A lock file is used rather
/// than the document itself because saving replaces the document by a rename (a new inode), which would drop a lock
/// held on the old one. Opening to read takes no lock and is never refused.
public final class DocumentLock {
    /// The lock file.
    public let url: URL
    private var descriptor: Int32

    /// The lock file of a document.
    /// - Parameter document: the document's file.
    /// - Returns: the lock file beside it.
    public static func lockFileURL(for document: URL) -> URL {
        document.deletingLastPathComponent().appendingPathComponent(".\(document.lastPathComponent).docutil-lock")
    }

    /// Takes the lock of `document`.
    /// - Parameters:
    ///   - document: the document's file.
    ///   - program: the name the lock file records.
    /// - Returns: the lock, held until ``release()``.
    /// - Throws: ``DocumentError`` `conflict` naming the holder when another process holds it; `cannotCreate` when
    ///   the lock file cannot be made (a folder without write permission: open read-only then).
    public static func acquire(for document: URL, program: String = "docutil") throws(DocumentError) -> DocumentLock {
        let url = lockFileURL(for: document)
        // Another process may remove the file between our open and our lock (when it releases): then the lock we get
        // is on a file no one else will find, so try again on the new one.
        for _ in 0..<20 {
            let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else {
                if errno == ENOENT || errno == ENOTDIR {
                    throw DocumentError(
                        .cannotCreate,
                        "\(document.path): the folder \(document.deletingLastPathComponent().path) does not exist")
                }
                throw DocumentError(
                    .cannotCreate,
                    "\(document.path): cannot create the lock file \(url.lastPathComponent): \(String(cString: strerror(errno))) (open it read-only instead)"
                )
            }
            // A reader checking who holds the lock (`docutil info`) borrows it for an instant: wait that out.
            var failure: Int32 = flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno
            var attempts = 0
            while failure == EWOULDBLOCK && attempts < 5 {
                attempts += 1
                usleep(20_000)
                failure = flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno
            }
            if failure != 0 {
                let holder = failure == EWOULDBLOCK ? readHolder(fd) : nil
                close(fd)
                if failure == EWOULDBLOCK {
                    let who = holder.map { "by \($0)" } ?? "by another process"
                    throw DocumentError(
                        .conflict,
                        "\(document.path) is open for writing \(who); open it read-only, or close it there first")
                }
                throw DocumentError(
                    .io, "\(document.path): cannot lock \(url.lastPathComponent): \(String(cString: strerror(failure)))"
                )
            }
            var held = stat()
            var named = stat()
            guard fstat(fd, &held) == 0, stat(url.path, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            else {
                close(fd)
                continue
            }
            let lock = DocumentLock(url: url, descriptor: fd)
            lock.record(program: program)
            return lock
        }
        throw DocumentError(
            .conflict, "\(document.path): the lock file keeps changing; another process is busy with it")
    }

    /// Who holds the lock of `document` now; `nil` when no one does (no lock file, or one left by a process that is
    /// gone). Takes nothing and creates nothing: the check borrows the lock for an instant, read-only.
    /// - Parameter document: the document's file.
    /// - Returns: the holder, or `nil`.
    public static func holder(of document: URL) -> LockHolder? {
        let url = lockFileURL(for: document)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return readHolder(fd) ?? LockHolder(pid: 0, host: "?", since: nil, program: "unknown")
    }

    private init(url: URL, descriptor: Int32) {
        self.url = url
        self.descriptor = descriptor
    }

    deinit {
        release()
    }

    /// Gives the lock up and removes the lock file (still holding it, so no one takes a lock on a file that is
    /// going away without seeing that it went).
    public func release() {
        guard descriptor >= 0 else { return }
        unlink(url.path)
        close(descriptor)
        descriptor = -1
    }

    /// Moves the lock to another document (after save as): the new one is taken first, then the old one released.
    /// - Parameters:
    ///   - document: the new document file.
    ///   - program: the name the lock file records.
    /// - Returns: the lock of the new document.
    /// - Throws: as ``acquire(for:program:)``; the old lock is then kept.
    public func moved(to document: URL, program: String = "docutil") throws(DocumentError) -> DocumentLock {
        if Self.lockFileURL(for: document).standardizedFileURL == url.standardizedFileURL { return self }
        let new = try Self.acquire(for: document, program: program)
        release()
        return new
    }

    private func record(program: String) {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        let text = """
            pid=\(getpid())
            host=\(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            since=\(ISO8601DateFormatter().string(from: Date()))
            program=\(program)

            """
        ftruncate(descriptor, 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    private static func readHolder(_ fd: Int32) -> LockHolder? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 1024, 0) }
        guard count > 0 else { return nil }
        var fields: [String: String] = [:]
        for line in String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let pid = fields["pid"].flatMap({ Int32($0) }) else { return nil }
        return LockHolder(
            pid: pid, host: fields["host"] ?? "?",
            since: fields["since"].flatMap { ISO8601DateFormatter().date(from: $0) },
            program: fields["program"] ?? "unknown")
    }
}
