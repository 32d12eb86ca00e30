import Foundation

/// A file read front to back in 256 KB blocks, one byte at a time, knowing the line and column of the next byte:
/// the input of the streaming importers (memory stays one block however large the file). A UTF-8 byte order mark
/// at the start is skipped. Columns count characters (UTF-8 continuation bytes do not advance them).
final class ByteInput {
    let url: URL
    private let descriptor: Int32
    private var block: [UInt8]
    private var position = 0
    private var end = 0
    private var atEOF = false
    /// The line (from 1) of the next byte.
    private(set) var line = 1
    /// The column (from 1) of the next byte.
    private(set) var column = 1
    /// Bytes consumed so far.
    private(set) var offset: Int64 = 0
    /// The file's size when opened (for progress).
    let size: Int64

    /// Opens `url` to read.
    /// - Throws: ``DocumentError`` `noInput` when it does not exist, `io` when it cannot be read or is not a
    ///   regular file.
    init(_ url: URL) throws(DocumentError) {
        self.url = url
        // Opened without blocking (a FIFO would wait for a writer), checked on the descriptor, then read normally.
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            throw DocumentError(
                code == ENOENT ? .noInput : .io, "\(url.path): cannot open: \(String(cString: strerror(code)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw DocumentError(.noInput, "\(url.path): not a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        descriptor = fd
        size = Int64(info.st_size)
        block = [UInt8](repeating: 0, count: 256 * 1024)
        if try peek() == 0xEF {
            // A UTF-8 byte order mark, if the next two bytes complete it.
            try fill(atLeast: 3)
            if end - position >= 3, block[position + 1] == 0xBB, block[position + 2] == 0xBF {
                position += 3
                offset = 3
            }
        }
    }

    deinit { close(descriptor) }

    /// Where the next byte is: `FILE:LINE:COLUMN`.
    var location: String { "\(url.path):\(line):\(column)" }

    /// The next byte without consuming it; `nil` at the end of the file.
    @inline(__always)
    func peek() throws(DocumentError) -> UInt8? {
        if position < end { return block[position] }
        try fill(atLeast: 1)
        return position < end ? block[position] : nil
    }

    /// Consumes the next byte (which ``peek()`` returned).
    @inline(__always)
    func advance() {
        let byte = block[position]
        position += 1
        offset += 1
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// The next byte, consumed; `nil` at the end.
    @inline(__always)
    func next() throws(DocumentError) -> UInt8? {
        guard let byte = try peek() else { return nil }
        advance()
        return byte
    }

    /// Consumes the bytes before the next `stop`, CR or LF (or the end of the file), appending them to `bytes`: an
    /// unquoted field of a delimited file, scanned in one pass over the buffer.
    /// - Parameters:
    ///   - stop: the separator.
    ///   - bytes: where the bytes go.
    /// - Throws: ``DocumentError`` `io` when reading fails.
    func take(until stop: UInt8, into bytes: inout [UInt8]) throws(DocumentError) {
        while true {
            if position >= end {
                try fill(atLeast: 1)
                if position >= end { return }
            }
            let start = position
            let limit = end
            var i = start
            var characters = 0
            block.withUnsafeBufferPointer { buffer in
                while i < limit {
                    let byte = buffer[i]
                    if byte == stop || byte == 0x0A || byte == 0x0D { break }
                    if byte & 0xC0 != 0x80 { characters += 1 }
                    i += 1
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<i]))
            }
            position = i
            offset += Int64(i - start)
            column += characters
            if i < limit { return }
        }
    }

    /// Reads more, keeping the unread bytes, until `count` are available or the file ends.
    private func fill(atLeast count: Int) throws(DocumentError) {
        while end - position < count && !atEOF {
            if position > 0 {
                let remaining = end - position
                if remaining > 0 {
                    block.withUnsafeMutableBufferPointer { buffer in
                        guard let base = buffer.baseAddress else { return }
                        memmove(base, base + position, remaining)
                    }
                }
                position = 0
                end = remaining
            }
            let capacity = block.count - end
            let got = block.withUnsafeMutableBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(descriptor, base + end, capacity)
            }
            if got < 0 {
                let code = errno
                if code == EINTR { continue }
                throw DocumentError(.io, "\(url.path): cannot read: \(String(cString: strerror(code)))")
            }
            if got == 0 { atEOF = true } else { end += got }
        }
    }
}
