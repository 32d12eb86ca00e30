import Foundation
import ModelFiles

/// Keyed archives and compiled models (`.mom`): a binary property list, its `$objects` graph, the model and the
/// predicates archived in it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    if let model = try? ModelLoader.readCompiledModel(bytes) {
        _ = model.entityVersionHashes
        _ = XcodeModelWriter.contents(of: model)
    }
    _ = try? ArchivedPredicate.decode(bytes)
    return 0
}
