public import Foundation

/// Writing to a child that has already exited must not kill the test process.
///
/// A child that fails early (bad arguments, unreadable input) closes its standard input before the test has
/// written all of it. By default that write raises `SIGPIPE`, whose default action ends the whole test run;
/// with the signal ignored the write fails with `EPIPE` instead, and the test goes on to check the child's
/// exit status and messages.
public enum BrokenPipe {
    private static let ignored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Ignores `SIGPIPE` in this process (once; later calls do nothing).
    public static func ignore() { ignored }

    /// Writes `data` to `handle`, reporting whether the reader took all of it. A reader that has gone away is
    /// not an error here: the child's own exit status says why it stopped reading.
    @discardableResult
    public static func write(_ data: Data, to handle: FileHandle) -> Bool {
        ignore()
        do {
            try handle.write(contentsOf: data)
            return true
        } catch {
            return false
        }
    }
}
