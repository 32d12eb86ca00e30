import Foundation
import ModelFiles

/// `Z_MODELCACHE` blobs: raw DEFLATE around a compiled model.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    if let loaded = try? ModelLoader.loadModelCache(bytes, source: "fuzz") {
        _ = loaded.model.entityVersionHashes
    }
    return 0
}
