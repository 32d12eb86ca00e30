import BinaryStore
import Foundation
import FuzzSupport
import ObjectGraph

/// The binary store reader: the input is the body of a store (uncompressed); the header, lengths and CRC-32 are
/// made right around it, so that mutations reach the parser instead of stopping at the checksum. An input that
/// starts with "Z" is a compressed store instead: eight bytes of recorded plain length (little-endian, any value),
/// then the zlib stream as it is.
let file = FuzzSupport.scratchFile("store.binary")

func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
    }
    return ~crc
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let compressed = input.count >= 9 && input[0] == UInt8(ascii: "Z")
    let body = compressed ? Array(input[9...]) : input
    let plainLength =
        compressed ? (1..<9).reduce(UInt64(0)) { $0 | UInt64(input[$1]) << (8 * UInt64($1 - 1)) } : UInt64(body.count)
    var bytes: [UInt8] = Array("DUBSTORE".utf8) + [1, 0, compressed ? 1 : 0, 0, 0, 0, 0, 0] + body
    let crc = crc32(bytes)
    withUnsafeBytes(of: plainLength.littleEndian) { bytes += $0 }
    withUnsafeBytes(of: UInt64(body.count).littleEndian) { bytes += $0 }
    withUnsafeBytes(of: crc.littleEndian) { bytes += $0 }
    bytes += Array("DUBEND01".utf8)
    bytes.withUnsafeBytes { FuzzSupport.write($0, to: file) }
    guard let read = try? BinaryStoreFile(url: file) else { return 0 }
    var models = [FuzzSupport.model]
    if let carried = try? read.model() { models.append(carried) }
    for model in models {
        _ = try? read.snapshots(model: model, storeIdentifier: "S")
        let coordinator = PersistentStoreCoordinator(model: model)
        guard (try? coordinator.add(BinaryStore(description: StoreDescription(type: "Binary", url: file)))) != nil
        else { continue }
        FuzzSupport.readEverything(ManagedObjectContext(coordinator: coordinator))
        if let store = coordinator.persistentStores.first { FuzzSupport.checkCopies(of: store, in: coordinator) }
    }
    return 0
}
