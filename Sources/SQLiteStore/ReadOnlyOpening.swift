import CSQLite
import Foundation
import ModelFiles
import Synchronization

/// Opens a SQLite store to read it without changing anything: not the file, not its `-wal`, and not its folder.
///
/// - A store in rollback-journal mode is opened in place with SQLite's `mode=ro`.
/// - A store in WAL mode with both its `-wal` and `-shm` files present is opened in place with `mode=ro`: the database
///   and the `-wal` are never written. Its `-shm` index is SQLite's shared memory: a reader that shares it as every
///   reader does rebuilds it when no process has the store open (an index left by a process that is gone, or copied
///   from another machine). With `indexReadOnly` (``SQLiteStore/walIndexReadOnlyOption``, or the process's default
///   ``SQLiteStore/readsMapWALIndexReadOnly``, which `docutil` sets) the index is mapped read-only (`readonly_shm=1`)
///   and such an index is rebuilt in memory instead: the `-shm` is never written either. A writer that has the store
///   open keeps its index valid, and the reader shares it, taking only read locks. But SQLite gives a process's
///   connections to one file one index, read-only when the first of them mapped it so: while such a reader is open,
///   a connection opened in the same process to write that file cannot write.
/// - A WAL-mode store without a `-wal` file holds everything in the main file: it is opened with `immutable=1`,
///   so SQLite creates no `-wal` or `-shm` beside it.
/// - A `-wal` file without its `-shm`, with `indexReadOnly`: no process has the store open (a writer keeps its
///   `-shm`), and it is read in place with its index in memory (SQLite's `unix-none` file system, in exclusive
///   locking mode), creating nothing beside it.
/// - Only when SQLite cannot read the store in place without writing — a `-wal` file without its `-shm` otherwise
///   (SQLite would have to create the `-shm`, in a folder that may be read-only or that we must not change), or a hot
///   rollback journal — are the database and its `-wal`/`-journal` copied to a private scratch folder
///   (`$TMPDIR/docutil-<pid>-<random>`) and read there. The folder is removed when the store is released, on
///   SIGINT/SIGTERM/SIGHUP/SIGQUIT (when the signal handlers are installed, as `docutil` does), and by the next
///   run that makes one if the process was killed outright.
enum ReadOnlyOpening {
    static let scratchPrefix = "docutil"

    /// The process's default for ``open(_:indexReadOnly:)`` (``SQLiteStore/readsMapWALIndexReadOnly``).
    static let indexReadOnlyByDefault = Atomic<Bool>(false)

    /// Opens `path` read-only; returns the connection and the scratch folder used, if any.
    /// - Parameter indexReadOnly: whether a WAL store's `-shm` is mapped read-only (nil: the process's default).
    static func open(_ path: String, indexReadOnly: Bool? = nil) throws(SQLiteStoreError) -> (SQLiteDatabase, URL?) {
        let indexReadOnly = indexReadOnly ?? indexReadOnlyByDefault.load(ordering: .relaxed)
        let wal = path + "-wal"
        let shm = path + "-shm"
        let journal = path + "-journal"
        let hasWAL = isRegularFile(wal)
        let hasSHM = isRegularFile(shm)
        let walMode = try Self.isWALMode(path)
        if walMode && !hasWAL {
            let database = try SQLiteDatabase(path: path, readOnly: true, parameters: [("immutable", "1")])
            try probe(database)
            return (database, nil)
        }
        if (!walMode || hasSHM) && !isRegularFile(journal),
            let database = try inPlace(
                path, walMode && indexReadOnly ? [("mode", "ro"), ("readonly_shm", "1")] : [("mode", "ro")])
        {
            return (database, nil)
        }
        // A `-wal` without its index: no process has the store open (a writer keeps the `-shm`). Read in place with
        // the index in memory — SQLite's `unix-none` file system (no shared memory) in exclusive locking mode, set
        // before the first read — so that nothing is created beside it and nothing copied.
        if walMode && hasWAL && !hasSHM && indexReadOnly && !isRegularFile(journal),
            let database = try inPlace(
                path, [("mode", "ro"), ("vfs", "unix-none")], first: "PRAGMA locking_mode = EXCLUSIVE")
        {
            return (database, nil)
        }
        return try openCopy(path, with: hasWAL ? [wal] : (isRegularFile(journal) ? [journal] : []))
    }

    /// The store opened in place with `parameters` (and `first` run before anything is read) and its schema read, or
    /// `nil` when SQLite cannot read it so (an unwritable `-shm`, say: the caller reads a private copy instead).
    /// - Throws: ``SQLiteStoreError`` for any other failure.
    private static func inPlace(_ path: String, _ parameters: [(String, String)], first: String? = nil)
        throws(SQLiteStoreError) -> SQLiteDatabase?
    {
        let database = try SQLiteDatabase(path: path, readOnly: true, parameters: parameters)
        do {
            if let first { try database.execute(first) }
            try probe(database)
            return database
        } catch {
            database.close()
            guard error.code == .io else { throw error }
            return nil
        }
    }

    /// Reads the whole schema once, so that an open that cannot read fails here, not in the middle of a fetch.
    static func probe(_ database: SQLiteDatabase) throws(SQLiteStoreError) {
        _ = try database.query("SELECT count(*) FROM sqlite_master")
    }

    static func isRegularFile(_ path: String) -> Bool {
        (try? FileKind(path: path)) == .regularFile
    }

    /// Whether the header says the database is in WAL mode (file format versions 2 at offsets 18 and 19).
    static func isWALMode(_ path: String) throws(SQLiteStoreError) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SQLiteStoreError(.io, path: path, "cannot open for reading")
        }
        defer { try? handle.close() }
        let header: Data
        do {
            header = try handle.read(upToCount: 20) ?? Data()
        } catch {
            throw SQLiteStoreError(.io, path: path, "cannot read: \(error.localizedDescription)")
        }
        guard header.count == 20, header.starts(with: Data("SQLite format 3\0".utf8)) else {
            throw SQLiteStoreError(.notAStore, path: path, "not a SQLite database (no 'SQLite format 3' header)")
        }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }

    /// Copies the database and its side file to a scratch folder and opens the copy there.
    static func openCopy(_ path: String, with sideFiles: [String]) throws(SQLiteStoreError) -> (SQLiteDatabase, URL) {
        // (Folders of killed processes are swept when one is next made: see `ScratchFolders.make(prefix:)`.)
        let folder: URL
        do {
            folder = try ScratchFolders.make(prefix: scratchPrefix)
        } catch {
            throw SQLiteStoreError(.io, path: path, error.message)
        }
        do throws(SQLiteStoreError) {
            let copy = folder.appendingPathComponent("store.sqlite")
            do {
                try FileManager.default.copyItem(atPath: path, toPath: copy.path)
                for side in sideFiles {
                    let suffix = side.hasSuffix("-wal") ? "-wal" : "-journal"
                    try FileManager.default.copyItem(atPath: side, toPath: copy.path + suffix)
                }
            } catch {
                throw SQLiteStoreError(
                    .io, path: path, "cannot copy the store to read it: \(error.localizedDescription)")
            }
            let database = try SQLiteDatabase(path: copy.path, readOnly: false)
            try probe(database)
            return (database, folder)
        } catch {
            ScratchFolders.remove(folder)
            throw error
        }
    }
}
