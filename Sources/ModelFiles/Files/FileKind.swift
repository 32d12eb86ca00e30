import CSupport
public import Foundation

/// What is at a path, found without opening it: so that a FIFO, a device or a socket given as a document or a
/// model is refused at once instead of being waited on forever, and so that outputs are only ever regular files.
public enum FileKind: Sendable, Hashable {
    case missing
    case regularFile
    case directory
    case fifo
    case device
    case socket
    case symbolicLink
    case other

    /// The kind of the file at `path`; a symbolic link is followed unless `followingLinks` is false.
    /// - Parameters:
    ///   - path: the path.
    ///   - followingLinks: whether a symbolic link is followed.
    /// - Throws: ``ModelFileError`` `io` when the path cannot be examined (permissions, a loop of links).
    public init(path: String, followingLinks: Bool = true) throws(ModelFileError) {
        switch docutil_file_kind(path, followingLinks ? 1 : 0) {
        case 0: self = .missing
        case 1: self = .regularFile
        case 2: self = .directory
        case 3: self = .fifo
        case 4: self = .device
        case 5: self = .socket
        case 6: self = .symbolicLink
        case 7: self = .other
        default:
            throw ModelFileError(.io, path: path, "cannot examine: \(String(cString: strerror(errno)))")
        }
    }

    /// A word for messages: "a FIFO", "a directory"…
    public var article: String {
        switch self {
        case .missing: "missing"
        case .regularFile: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .device: "a device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .other: "not a regular file"
        }
    }

    /// Opens a regular file for reading; anything else (a FIFO, a device, a directory) is refused, checked on the open
    /// descriptor (opened without blocking, so a FIFO never waits for a writer), so what is read is what was checked.
    /// - Parameter url: the file.
    /// - Returns: the open descriptor (the caller closes it) and the file's size.
    /// - Throws: ``ModelFileError`` `notFound` for nothing or what is not a regular file, `io` when it cannot be
    ///   opened.
    public static func openRegularFile(_ url: URL) throws(ModelFileError) -> (descriptor: Int32, size: Int) {
        let path = url.path
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw ModelFileError(.notFound, path: path, "no such file") }
            throw ModelFileError(.io, path: path, "cannot open: \(String(cString: strerror(code)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ModelFileError(.io, path: path, "cannot examine: \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            let kind: FileKind =
                switch info.st_mode & S_IFMT {
                case S_IFDIR: .directory
                case S_IFIFO: .fifo
                case S_IFCHR, S_IFBLK: .device
                case S_IFSOCK: .socket
                default: .other
                }
            throw ModelFileError(.notFound, path: path, "is \(kind.article), not a regular file; it is not read")
        }
        return (fd, Int(max(0, info.st_size)))
    }

    /// Reads a whole regular file; anything else (a FIFO, a device, a directory) is refused without being opened,
    /// so reading never blocks.
    /// - Parameter url: the file.
    /// - Returns: its bytes.
    /// - Throws: ``ModelFileError`` `notFound` for nothing or what is not a regular file, `io` when reading fails.
    public static func readRegularFile(_ url: URL) throws(ModelFileError) -> Data {
        let path = url.path
        let (fd, size) = try openRegularFile(url)
        defer { close(fd) }
        var data = Data(count: size)
        var filled = 0
        // The size fstat gave is read into a buffer of that size; only a file that grew meanwhile makes it grow (a
        // buffer grown past the end to find it would be kept, up to twice the file, for as long as the data lives).
        var probe = [UInt8](repeating: 0, count: 4096)
        while true {
            let count: Int
            if filled < data.count {
                count = data.withUnsafeMutableBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return read(fd, base + filled, raw.count - filled)
                }
            } else {
                count = probe.withUnsafeMutableBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return read(fd, base, raw.count)
                }
                if count > 0 { data.append(contentsOf: probe[..<count]) }
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ModelFileError(.io, path: path, "cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        return data
    }

    /// The first `count` bytes of a regular file, or `nil` when the path is not a readable regular file (for
    /// telling file types apart: it never opens a FIFO or a device).
    /// - Parameters:
    ///   - url: the file.
    ///   - count: how many bytes.
    /// - Returns: up to `count` bytes, or `nil`.
    public static func head(_ url: URL, count: Int) -> Data? {
        guard (try? FileKind(path: url.path)) == .regularFile, let handle = try? FileHandle(forReadingFrom: url) else {
            return nil
        }
        defer { try? handle.close() }
        // A read that fails tells nothing about the type: no bytes, so no type is recognised from them (opening
        // the file then reports the error).
        return try? handle.read(upToCount: count) ?? Data()
    }

    /// Checks that `path` is an existing regular file, the only thing a document or a store file can be.
    /// - Parameter path: the path.
    /// - Throws: ``ModelFileError`` `notFound` when nothing is there or it is not a regular file (exit status 66:
    ///   no input that can be read).
    public static func requireRegularFile(_ path: String) throws(ModelFileError) {
        let kind = try FileKind(path: path)
        switch kind {
        case .regularFile: return
        case .missing: throw ModelFileError(.notFound, path: path, "no such file")
        default:
            throw ModelFileError(.notFound, path: path, "is \(kind.article), not a regular file; it is not read")
        }
    }
}
