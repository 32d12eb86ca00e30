import Foundation
import ObjectGraph
import Synchronization

/// A batch of an import's rows being written to the store on another thread while the next batch is read: reading
/// and parsing take one core, SQLite the other. The coordinator serialises every use of the store, so the only
/// ordering to keep is that nothing reads the store before the batch is in: ``wait()`` before that.
final class BackgroundInsert: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Mutex<StoreError?>(nil)

    private init() {}

    /// Starts writing `snapshots` (new objects with permanent IDs) through `coordinator`.
    /// - Parameters:
    ///   - snapshots: the rows.
    ///   - coordinator: the coordinator of the import's store.
    /// - Returns: the write, to wait for.
    static func start(_ snapshots: [ObjectSnapshot], into coordinator: PersistentStoreCoordinator) -> BackgroundInsert {
        let write = BackgroundInsert()
        DispatchQueue.global(qos: .userInitiated).async {
            do throws(StoreError) {
                try coordinator.insert(snapshots)
            } catch {
                write.failure.withLock { $0 = error }
            }
            write.finished.signal()
        }
        return write
    }

    /// Waits until the batch is written (call once).
    /// - Returns: why writing it failed, if it did (nothing of it is then in the store).
    func wait() -> StoreError? {
        finished.wait()
        return failure.withLock { $0 }
    }
}
