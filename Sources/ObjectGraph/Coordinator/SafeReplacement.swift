public import Foundation

/// How a file is replaced without ever being half-written: the new contents go to a temporary file in the same folder
/// (so the rename cannot cross file systems), are flushed, and are renamed over the old file; the folder is flushed
/// after. A crash before the rename leaves the old file as it was plus, at most, a temporary file named
/// `.<name>.docutil-tmp-<pid>-<random>`, which ``sweepStaleTemporaries(beside:)`` removes once its process is gone.
public enum SafeReplacement {
    /// The part of a temporary file's name that marks it as ours.
    public static let marker = ".docutil-tmp-"

    /// A new temporary path beside `destination` (nothing is created).
    /// - Parameter destination: the file a save replaces.
    /// - Returns: a path in the same folder.
    public static func temporaryURL(beside destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent)\(marker)\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    /// The file a save writes for `url`: the target of a symbolic link (the link itself is kept), also when that target
    /// does not exist yet (it is then created; the link is never replaced by a file), else `url`.
    /// - Parameter url: the path a save was given.
    /// - Returns: the file to replace.
    public static func destination(for url: URL) -> URL {
        var resolved = url.resolvingSymlinksInPath()
        // A link to a missing file is left as it is by `resolvingSymlinksInPath`: followed here, as `open` follows it
        // (a bounded number of links, as the kernel's; a loop stays a link, which the caller then finds unusable).
        for _ in 0..<40 {
            var info = stat()
            guard lstat(resolved.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { break }
            var bytes = [UInt8](repeating: 0, count: Int(PATH_MAX))
            let count = bytes.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    chars.baseAddress.map { readlink(resolved.path, $0, chars.count) } ?? -1
                }
            }
            guard count > 0 else { break }
            let target = String(decoding: bytes[..<count], as: UTF8.self)
            resolved =
                target.hasPrefix("/")
                ? URL(fileURLWithPath: target)
                : resolved.deletingLastPathComponent().appendingPathComponent(target)
            resolved = resolved.standardizedFileURL
        }
        return resolved
    }

    /// Puts `temporary` in place of `destination`: SQLite side files of the old destination go first (they would be
    /// replayed onto the new file), then the rename, then the folder is flushed.
    /// - Parameters:
    ///   - destination: the file to replace.
    ///   - temporary: the complete new file beside it.
    /// - Throws: ``StoreError`` `io` when the rename fails; `destination` is then as it was.
    public static func replace(_ destination: URL, with temporary: URL) throws(StoreError) {
        for suffix in ["-wal", "-shm", "-journal"] { unlink(destination.path + suffix) }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            removeTemporary(temporary)
            throw StoreError(.io, path: destination.path, "cannot move the new file into place: \(reason)")
        }
        flushFolder(of: destination)
    }

    /// Flushes the folder holding `url`, so that a rename in it survives a power cut.
    /// - Parameter url: a file in the folder.
    public static func flushFolder(of url: URL) {
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }

    /// Removes a temporary file and any SQLite side files made beside it.
    /// - Parameter url: the temporary file.
    public static func removeTemporary(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(url.path + suffix) }
    }

    /// Removes temporary files beside `destination` left by saves of processes that are no longer running (killed in
    /// the middle of a save). Returns how many were removed.
    /// - Parameter destination: a file saves replace.
    /// - Returns: how many were removed.
    @discardableResult
    public static func sweepStaleTemporaries(beside destination: URL) -> Int {
        let folder = destination.deletingLastPathComponent()
        let prefix = ".\(destination.lastPathComponent)\(marker)"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = Int32(rest.prefix { $0 != "-" }), pid > 0 else { continue }
            // A live process (or one we may not signal) may still be writing it.
            if pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
            let path = folder.appendingPathComponent(name).path
            if unlink(path) == 0 {
                removed += 1
            } else if errno == EISDIR || errno == EPERM,
                (try? FileManager.default.removeItem(atPath: path)) != nil
            {
                // A document package being built when its process died.
                removed += 1
            }
        }
        return removed
    }
}
