import Foundation
import Synchronization

/// Work on a store started on another thread, to be waited for: reading or writing one batch while the caller
/// deals with the previous one (an import writes a batch while it reads the next; `dump` reads the next batch
/// while it writes one). The coordinator serialises every use of a store; what the caller must keep is that
/// nothing depending on the work runs before ``wait()``.
package final class BackgroundWork<Value: Sendable>: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Value, StoreError>?>(nil)

    private init() {}

    /// Starts `work` on another thread.
    /// - Parameter work: reads or writes through a coordinator (`Sendable`); what it returns or throws is kept.
    /// - Returns: the work, to wait for.
    package static func start(_ work: @escaping @Sendable () throws(StoreError) -> Value) -> BackgroundWork {
        let started = BackgroundWork()
        DispatchQueue.global(qos: .userInitiated).async {
            let outcome: Result<Value, StoreError>
            do throws(StoreError) {
                outcome = .success(try work())
            } catch {
                outcome = .failure(error)
            }
            started.result.withLock { $0 = outcome }
            started.finished.signal()
        }
        return started
    }

    /// Waits until the work is done (call once).
    /// - Returns: what it returned, or why it failed; the work keeps no reference to it.
    package func wait() -> Result<Value, StoreError> {
        finished.wait()
        return result.withLock { kept in
            defer { kept = nil }
            return kept
        } ?? .failure(StoreError(.io, "background work ended without a result"))
    }
}
