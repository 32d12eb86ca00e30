public import Foundation
import ObjectGraph

/// Runs code with `AtomicFileWriter`'s failure injection set, one test at a time: the hook is one global, so a test
/// that set it while another cleared it would see no failure (tests run in parallel).
public enum FailureInjection {
    private static let lock = NSLock()

    /// Sets `inject` for the length of `body`, then clears it.
    /// - Parameters:
    ///   - inject: called with each destination and the bytes about to be written; `true` makes the write fail.
    ///   - body: the code that writes.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    @discardableResult
    public static func with<T>(_ inject: @escaping @Sendable (URL, Int) -> Bool, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        AtomicFileWriter.failureInjection.withLock { $0 = inject }
        defer { AtomicFileWriter.failureInjection.withLock { $0 = nil } }
        return try body()
    }
}
