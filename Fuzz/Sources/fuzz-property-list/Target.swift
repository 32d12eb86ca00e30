import Foundation
import ModelFiles
import ObjectGraph

/// Binary and XML property lists (chosen by the first bytes, as the readers do).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    _ = try? PropertyList.read(bytes)
    // Both readers on every input, whatever its first bytes say.
    _ = try? PropertyList.read(Data("bplist00".utf8) + bytes.dropFirst(min(8, bytes.count)))
    return 0
}
