import CSupport
public import Foundation
import Synchronization

/// Scratch folders that must not outlive the process: registered so that an interrupted run removes them too
/// (once ``installSignalHandlers()`` was called, which the command-line tool does), and found again by
/// ``sweepStale(prefix:)`` when a process was killed outright.
public enum ScratchFolders {
    /// Remembers a scratch folder for removal on SIGINT, SIGTERM, SIGHUP and SIGQUIT.
    /// - Parameter url: the folder.
    public static func register(_ url: URL) {
        _ = docutil_cleanup_register(url.path)
    }

    /// Forgets a scratch folder (after removing it).
    /// - Parameter url: the folder.
    public static func unregister(_ url: URL) {
        docutil_cleanup_unregister(url.path)
    }

    /// Installs the signal handlers that remove registered folders, then let the signal end the process.
    public static func installSignalHandlers() {
        docutil_cleanup_install_signal_handlers()
    }

    /// A new scratch folder in the temporary directory, named `<prefix>-<pid>-<random>` so that stale ones can be
    /// recognised, and registered for removal. The first one of a prefix in a process sweeps the stale folders of
    /// that prefix (``sweepStale(prefix:)``): when one is needed, not on every read (a large temporary folder took
    /// 2 ms of each command to list).
    /// - Parameter prefix: the start of the folder's name (`docutil`).
    /// - Returns: the new, empty folder.
    /// - Throws: ``ModelFileError`` `io` when it cannot be made.
    public static func make(prefix: String) throws(ModelFileError) -> URL {
        if swept.withLock({ $0.insert(prefix).inserted }) { sweepStale(prefix: prefix) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))")
        // Registered before it exists: a signal between the two would otherwise leave the folder behind (removing a
        // folder not made yet does nothing).
        register(url)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            unregister(url)
            throw ModelFileError(.io, path: url.path, "cannot create a scratch folder: \(error.localizedDescription)")
        }
        return url
    }

    /// The prefixes whose stale folders this process has swept.
    private static let swept = Mutex<Set<String>>([])

    /// Removes a scratch folder made by ``make(prefix:)``.
    /// - Parameter url: the folder.
    public static func remove(_ url: URL) {
        // Cleanup of our own scratch space: what the user gets is already written or reported; a folder that
        // cannot be removed now is swept by the next run (sweepStale).
        try? FileManager.default.removeItem(at: url)
        unregister(url)
    }

    /// The names in a folder that begin with `prefix`, read with readdir: a temporary folder can hold tens of
    /// thousands of entries, and only the few matching ones are worth more than a look at their name.
    static func entries(of folder: String, prefix: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
        var names: [String] = []
        while let entry = readdir(directory) {
            // The name is read through a pointer, up to its NUL: a record is only as long as its name needs, so
            // the whole `d_name` array is not there to copy.
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self))
            if name.hasPrefix(prefix) { names.append(name) }
        }
        return names
    }

    /// Removes scratch folders left by processes that no longer run (killed before they could clean up), and the
    /// folders of earlier versions (`docutil-<UUID>`) older than an hour. Returns how many were removed.
    /// - Parameter prefix: the start of the folders' names.
    /// - Returns: how many folders were removed.
    @discardableResult
    public static func sweepStale(prefix: String) -> Int {
        let temporary = FileManager.default.temporaryDirectory
        var removed = 0
        for name in entries(of: temporary.path, prefix: prefix + "-") {
            let rest = name.dropFirst(prefix.count + 1)
            // Names are judged before any path is made: most entries are other programs' (or tests') folders.
            let folder = { temporary.appendingPathComponent(name) }
            if UUID(uuidString: String(rest)) != nil {
                // An earlier version's folder: no process ID to check, so only old ones go. One whose date cannot be
                // read is left alone (sweeping never removes what it cannot judge).
                guard
                    let modified = (try? FileManager.default.attributesOfItem(atPath: folder().path))?[
                        .modificationDate]
                        as? Date, Date().timeIntervalSince(modified) > 3600
                else { continue }
            } else if let pid = Int32(rest.prefix { $0 != "-" }), pid > 0, rest.contains("-") {
                // A live process (or one we may not signal) keeps its folder.
                if kill(pid, 0) == 0 || errno == EPERM { continue }
            } else {
                continue
            }
            // A stale folder that cannot be removed stays for a later sweep; only the count reported changes.
            if (try? FileManager.default.removeItem(at: folder())) != nil { removed += 1 }
        }
        return removed
    }
}
