import Foundation
import ModelFiles

/// Keyed archives, compiled models (`.mom`) and Xcode 3 models (`elements`): a binary property list, its `$objects`
/// graph, the model and the predicates archived in it, and the archive read as a Transformable value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    if let (model, _) = try? ModelLoader.readArchivedModel(bytes) {
        _ = model.entityVersionHashes
        // An archive may hold strings XML cannot: writing them is refused, never a crash.
        _ = try? XcodeModelWriter.contents(of: model)
    }
    _ = try? SecureUnarchiveFromData().value(from: bytes)
    _ = try? ArchivedPredicate.decode(bytes)
    return 0
}
