import CZlib
import Foundation
import ModelFiles
public import ObjectGraph

/// Our binary store (`"Binary"`): a compact whole-graph format, much faster to load and save than XML, with the
/// model embedded, optional zlib compression (option `"compress": "YES"`) and a CRC-32 checksum. The layout is in
/// `Docs/BinaryStoreFormat.md`. An atomic store: read whole when added, written whole (temporary file, then
/// rename) at every save.
///
/// `@unchecked Sendable`: its mutable state (`metadata`) is only touched under the coordinator's lock.
public final class BinaryStore: StreamingAtomicStore, @unchecked Sendable {
    /// The registered type name.
    public static let typeName = "Binary"
    /// The file's first bytes.
    public static let magic = Array("DUBSTORE".utf8)

    /// How the store was opened: its type, file and options.
    public let description: StoreDescription
    /// The store's UUID, which appears in the URIs of its objects.
    public let identifier: String
    /// The store's metadata: type, UUID, model version hashes and any keys an app adds; written with the next save.
    public var metadata: [String: PropertyList] = [:]

    /// Registers the `"Binary"` store type.
    public static func register() {
        StoreType.register(
            StoreType(
                name: typeName, fileExtensions: ["binary", "dubstore"],
                make: { description throws(StoreError) in try BinaryStore(description: description) },
                readMetadata: { url throws(StoreError) in try BinaryStoreFile(url: url).metadata },
                recognizes: { url in BinaryStoreFile.hasMagic(url) }))
    }

    /// Opens the store a coordinator adds (the file is read by `load(model:)`).
    /// - Parameter description: The store type, file and options.
    /// - Throws: `StoreError` when the description has no file or the file is not of this type.
    public init(description: StoreDescription) throws(StoreError) {
        guard let url = description.url else { throw StoreError(.unsupported, "a binary store needs a file URL") }
        self.description = description
        if let given = description.options["storeIdentifier"] {
            identifier = given
        } else if FileManager.default.fileExists(atPath: url.path), let file = try? BinaryStoreFile(url: url) {
            identifier = file.uuid
        } else {
            identifier = description.options["storeIdentifier"] ?? UUID().uuidString
        }
    }

    /// A binary file keeps each object's version.
    public var keepsVersions: Bool { true }

    /// Reads every object of the store (atomic stores are read whole).
    /// - Parameter model: The model the objects are read with.
    /// - Returns: The store's identifier, metadata and object snapshots.
    /// - Throws: `StoreError` naming the file and the place when the file cannot be read or a value does not fit the model.
    public func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents {
        guard let url = description.url else { throw StoreError(.unsupported, "a binary store needs a file URL") }
        guard FileManager.default.fileExists(atPath: url.path) else {
            metadata = Self.metadata(for: model, uuid: identifier, previous: [:])
            return AtomicStoreContents(identifier: identifier, metadata: metadata)
        }
        let file = try BinaryStoreFile(url: url)
        // Every object's ID names the store by its UUID: without one, no ID could be written as a URI and read back.
        guard !identifier.isEmpty else { throw StoreError(.corrupt, path: url.path, "the file records no store UUID") }
        let snapshots = try file.snapshots(model: model, storeIdentifier: identifier)
        metadata = file.metadata
        return AtomicStoreContents(identifier: identifier, metadata: file.metadata, snapshots: snapshots)
    }

    /// Encodes the whole store and prepares to put it in place; nothing on disk changes until the transaction commits.
    /// - Parameters:
    ///   - contents: every object, the metadata and the identifier to write.
    ///   - model: the model the objects belong to.
    /// - Returns: The transaction that replaces the file on commit.
    /// - Throws: `StoreError` when a value cannot be written (it is never written as something else).
    public func prepareWrite(
        _ contents: AtomicStoreContents, model: ManagedObjectModel
    ) throws(StoreError) -> any StoreTransaction {
        let newMetadata = Self.metadata(for: model, uuid: identifier, previous: metadata)
        guard let url = description.url else { throw StoreError(.unsupported, "a binary store needs a file URL") }
        var encoder = BinaryStoreEncoder(model: model)
        let compress = description.options["compress"] == "YES"
        let transaction = try AtomicFileWriter.prepare(for: url) { (sink) throws(StoreError) in
            try encoder.encode(
                snapshots: contents.snapshots, uuid: identifier, metadata: newMetadata, compress: compress, to: sink)
        }
        return Commit(transaction: transaction) { [self] in metadata = newMetadata }
    }

    /// The binary store writes objects entity by entity.
    public var streamOrder: AtomicStreamOrder { .byEntity }

    /// Writes a whole store from objects given a batch at a time, entity by entity (a copy of a large store), and
    /// prepares to put it in place; nothing on disk changes until the transaction commits. An uncompressed store is
    /// written as the objects come; a compressed one (option `"compress": "YES"`) is gathered whole first, as its
    /// body is compressed in one piece.
    /// - Parameters:
    ///   - stream: the identifier, metadata and counts, and the objects batch by batch.
    ///   - model: the model the objects belong to.
    /// - Returns: The transaction that replaces the file on commit.
    /// - Throws: `StoreError` when a value cannot be written, the objects are out of order or the stream fails.
    public func prepareWrite(_ stream: AtomicStoreStream, model: ManagedObjectModel) throws(StoreError)
        -> any StoreTransaction
    {
        guard description.options["compress"] != "YES" else {
            var snapshots: [ObjectSnapshot] = []
            snapshots.reserveCapacity(stream.count)
            while let batch = try stream.next() { snapshots += batch }
            return try prepareWrite(
                AtomicStoreContents(identifier: identifier, metadata: stream.metadata, snapshots: snapshots),
                model: model)
        }
        guard let url = description.url else { throw StoreError(.unsupported, "a binary store needs a file URL") }
        let newMetadata = Self.metadata(for: model, uuid: identifier, previous: metadata)
        var written = stream
        written.metadata = newMetadata
        var encoder = BinaryStoreEncoder(model: model)
        let transaction = try AtomicFileWriter.prepare(for: url) { (sink) throws(StoreError) in
            try encoder.encode(written, uuid: identifier, to: sink)
        }
        return Commit(transaction: transaction) { [self] in metadata = newMetadata }
    }

    struct Commit: StoreTransaction {
        let transaction: AtomicFileWriter.Transaction
        let done: () -> Void
        func commit() throws(StoreError) {
            try transaction.commit()
            done()
        }
        func rollback() { transaction.rollback() }
    }

    static func metadata(
        for model: ManagedObjectModel, uuid: String, previous: [String: PropertyList]
    ) -> [String: PropertyList] {
        StoreMetadata.standard(for: model, type: typeName, uuid: uuid, previous: previous, frameworkVersion: false)
    }
}

/// zlib's CRC-32 and compression.
enum Zlib {
    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 { crc32(start: nil, bytes) }

    /// The CRC-32 of `bytes` continued from `start` (the checksum of the bytes before them), or from nothing.
    static func crc32(start: UInt32?, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: uLong = start.map { uLong($0) } ?? CZlib.crc32(0, nil, 0)
        guard let base = bytes.baseAddress else { return UInt32(truncatingIfNeeded: crc) }
        var offset = 0
        while offset < bytes.count {
            let chunk = min(1 << 30, bytes.count - offset)
            crc = CZlib.crc32(crc, base.assumingMemoryBound(to: Bytef.self) + offset, uInt(chunk))
            offset += chunk
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// The CRC-32 of an array's bytes continued from `start`.
    static func crc32(start: UInt32?, _ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { crc32(start: start, $0) }
    }

    static func compress(_ input: [UInt8]) throws(StoreError) -> [UInt8] {
        var size = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(size))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { inp in
                compress2(out.baseAddress, &size, inp.baseAddress, uLong(inp.count), Z_BEST_SPEED)
            }
        }
        guard status == Z_OK else { throw StoreError(.io, "zlib compression failed (\(status))") }
        output.removeSubrange(Int(size)...)
        return output
    }

    /// The most bytes DEFLATE data can expand to per byte (zlib's documented limit is 1032 to 1): a recorded length
    /// beyond it cannot be true, whatever the data.
    static let maximumExpansion = 1_032

    /// Inflates a zlib stream that is to give exactly `expected` bytes. The output grows as the data inflates (never
    /// sized from the recorded length up front, which a damaged or crafted file may set to anything), and inflating
    /// stops as soon as it would pass `expected`.
    static func decompress(_ input: [UInt8], expected: Int) throws(StoreError) -> [UInt8] {
        func mismatch(_ status: Int32) -> StoreError {
            StoreError(.corrupt, "the compressed body does not inflate to its recorded length (zlib \(status))")
        }
        guard expected >= 0, expected / maximumExpansion <= input.count else {
            throw StoreError(
                .corrupt,
                "the recorded body length (\(expected) bytes) is more than \(input.count) compressed bytes can hold")
        }
        let result = Inflate.stream(input, windowBits: 15, limit: expected)
        guard result.started else { throw StoreError(.io, "zlib could not start") }
        guard result.status == Z_STREAM_END, result.output.count == expected, result.consumed == input.count else {
            throw mismatch(result.output.count > expected ? Z_DATA_ERROR : result.status)
        }
        return result.output
    }
}
