import Foundation
import ModelFiles

/// Xcode model sources (`.xcdatamodel/contents`), and writing back what they read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard let model = try? ModelLoader.readContents(bytes) else { return 0 }
    // Read from XML, the model holds no character XML cannot hold: writing it back must not fail.
    let written: String
    do {
        written = try XcodeModelWriter.contents(of: model)
    } catch {
        fatalError("a model read from XML cannot be written back: \(error)")
    }
    guard let again = try? ModelLoader.readContents(Data(written.utf8)) else {
        fatalError("a model we wrote does not read back")
    }
    _ = again.entityVersionHashes
    return 0
}
