import Documents
import Foundation

/// Standard output or standard error, written with the system's `write`: a failed write (a full disk, a closed
/// pipe's EPIPE when SIGPIPE is ignored) is an error naming the stream, never a trap or a silent loss — Foundation's
/// non-throwing `FileHandle.write(_:)` traps, and `print` drops what the stream refuses.
struct OutputFile {
    /// The file descriptor.
    let descriptor: Int32
    /// The stream's name in messages.
    let name: String

    /// Standard output: commands' results.
    static let standardOutput = OutputFile(descriptor: STDOUT_FILENO, name: "standard output")
    /// Standard error: messages.
    static let standardError = OutputFile(descriptor: STDERR_FILENO, name: "standard error")

    /// Writes all of `bytes`.
    /// - Throws: ``DocumentError`` `io` naming the stream and the system's reason.
    func write(contentsOf bytes: UnsafeRawBufferPointer) throws(DocumentError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw DocumentError(.io, "cannot write to \(name): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Writes `data`.
    /// - Throws: ``DocumentError`` `io` naming the stream.
    func write(_ data: Data) throws(DocumentError) {
        // (The closure's error is passed out by hand: `withUnsafeBytes` rethrows untyped.)
        var failure: DocumentError? = nil
        data.withUnsafeBytes { bytes in
            do throws(DocumentError) {
                try write(contentsOf: bytes)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Writes `text` as UTF-8.
    /// - Throws: ``DocumentError`` `io` naming the stream.
    func write(_ text: String) throws(DocumentError) {
        try write(Data(text.utf8))
    }

    /// Writes `text` to standard error: a message that cannot be written has nowhere left to be reported, so a
    /// failure is dropped (the exit status still says what happened).
    static func message(_ text: String) {
        do {
            try standardError.write(text)
        } catch {
            return
        }
    }
}
