import Documents
import Foundation
import ObjectGraph
import Synchronization

/// Writes objects of a document opened to read a batch at a time (`dump`, `query`): each batch's rows and to-many
/// relationships are read on another thread while the previous batch is written, and each batch is let go once
/// written, so memory stays bounded by a batch however many objects there are.
enum BatchedObjects {
    /// Objects read, written and let go at a time, out of `count`: at most a thousand, and at least eight batches
    /// when there are more than 800 objects (the first batch's read is the one no writing hides).
    static func batchSize(of count: Int) -> Int { max(100, min(1_000, count / 8)) }

    /// Writes `count` objects through `stream` to `output` (without the stream's beginning and end): `read` gives
    /// each batch's IDs and whole snapshots (positions in the output's order; called on another thread), each
    /// batch is made into objects, written and let go.
    /// - Throws: what reading or writing throws.
    static func write(
        count: Int,
        reading read:
            @escaping @Sendable (Range<Int>) throws(StoreError) -> (
                ids: [ManagedObjectID], snapshots: [ObjectSnapshot]
            ),
        of opened: OpenedDocument, through stream: inout ObjectStream, to output: OutputFile,
        progress: ProgressLine? = nil
    ) throws {
        let batchSize = Self.batchSize(of: count)
        var buffer = JSONBytes(capacity: 1 << 20)
        // A batch is let go on the reading thread, when it starts a later read: memory is then freed by the thread
        // that allocated it (freeing another thread's blocks takes its allocator's lock, which that thread wants at
        // the same moment: measured, a third more CPU time).
        typealias Batch = (ids: [ManagedObjectID], snapshots: [ObjectSnapshot])
        func readAhead(_ start: Int, releasing spent: Batch) -> BackgroundWork<Batch>? {
            guard start < count else { return nil }
            let handoff = Handoff(spent)
            let range = start..<min(start + batchSize, count)
            return BackgroundWork.start { () throws(StoreError) in
                handoff.drop()
                return try read(range)
            }
        }
        var next = readAhead(0, releasing: ([], []))
        // Nothing is closed under a read still going (an error below leaves by this).
        defer { _ = next?.wait() }
        var start = 0
        var spent: Batch = ([], [])
        while start < count, let reading = next {
            next = nil
            var read: Batch
            switch reading.wait() {
            case .success(let batch): read = batch
            case .failure(let error): throw ContextError.store(error)
            }
            let (batch, snapshots) = read
            next = readAhead(start + batch.count, releasing: spent)
            spent = ([], [])
            let objects = try opened.context.objects(with: batch, snapshots: snapshots)
            try write(objects, through: &stream, to: output, buffer: &buffer)
            opened.context.reset()
            spent = read
            read = ([], [])
            start += batch.count
            progress?.update(start, of: count)
        }
    }
}

extension BatchedObjects {
    /// Writes objects through `stream` to `output` a megabyte at a time: one batch's text can be large (a
    /// department of 20,000 people is 20,000 URIs).
    private static func write(
        _ objects: [ManagedObject], through stream: inout ObjectStream, to output: OutputFile,
        buffer: inout JSONBytes
    ) throws {
        for object in objects {
            try stream.write(CollectionOfOne(object), to: &buffer)
            if buffer.count >= 1 << 20 {
                try buffer.withUnsafeBytes { try output.write(contentsOf: $0) }
                buffer.removeAll()
            }
        }
        try buffer.withUnsafeBytes { try output.write(contentsOf: $0) }
        buffer.removeAll()
    }
}

/// A value handed to another thread to be let go there (blocks are freed by the thread that allocated them).
private final class Handoff<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: consuming Value) { self.value = Mutex(value) }

    /// Lets the value go now, on the calling thread.
    func drop() { value.withLock { $0 = nil } }
}
