import Foundation
import ModelFiles

/// Xcode model sources (`.xcdatamodel/contents`), and writing back what they read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard let model = try? ModelLoader.readContents(bytes) else { return 0 }
    let written = XcodeModelWriter.contents(of: model)
    guard let again = try? ModelLoader.readContents(Data(written.utf8)) else {
        fatalError("a model we wrote does not read back")
    }
    _ = again.entityVersionHashes
    return 0
}
