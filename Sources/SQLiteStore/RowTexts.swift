import CSQLite

/// The bytes of the texts bound to the row a statement is about to write, kept for SQLite to read in place
/// (`SQLITE_STATIC`): bound with `SQLITE_TRANSIENT`, SQLite copies each text into memory of its own and frees the copy
/// at the next bind (about 520 instructions a text, a quarter of binding an inserted row). The bytes stay until the row's
/// statement has stepped and its bindings are cleared (``SQLiteDatabase/stepRow(_:sql:)``,
/// ``SQLiteDatabase/abandonRow(_:)``), then the space is used again.
final class RowTexts {
    // (Used by one connection's writes, one row at a time: unchecked for exclusivity, as the connection is.)
    /// The space texts are copied into now, and how much of it they use.
    @exclusivity(unchecked) private var block: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var used = 0
    /// Spaces outgrown by the current row: still bound until the row is done.
    @exclusivity(unchecked) private var retired: [UnsafeMutableRawPointer] = []

    /// The size of the space, and the most kept between rows (a row with larger texts gets a larger space, given back
    /// when the row is done).
    private static let size = 4096

    init() {
        block = UnsafeMutableRawPointer.allocate(byteCount: Self.size, alignment: 8)
        capacity = Self.size
    }

    deinit {
        block.deallocate()
        for space in retired { space.deallocate() }
    }

    /// A copy of `bytes` that stays until ``reset()``.
    func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        if capacity - used < bytes.count {
            // Texts bound earlier in the row point into the current space: it is kept until the row is done.
            retired.append(block)
            let (doubled, overflow) = capacity.multipliedReportingOverflow(by: 2)
            capacity = max(overflow ? bytes.count : doubled, bytes.count)
            block = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 8)
            used = 0
        }
        let start = block + used
        if let source = bytes.baseAddress, !bytes.isEmpty {
            start.copyMemory(from: source, byteCount: bytes.count)
        }
        used += bytes.count
        return UnsafePointer(start.assumingMemoryBound(to: CChar.self))
    }

    /// Makes the space free for the next row: only once no statement is bound to it.
    func reset() {
        used = 0
        guard !retired.isEmpty || capacity > Self.size else { return }
        for space in retired { space.deallocate() }
        retired.removeAll()
        if capacity > Self.size {
            block.deallocate()
            block = UnsafeMutableRawPointer.allocate(byteCount: Self.size, alignment: 8)
            capacity = Self.size
        }
    }
}
