import Foundation
import ModelFiles
import SQLiteStore

/// Finds the model a path stands for: a model file in any form, or the model a document carries.
enum ModelSource {
    static func load(_ path: String) throws -> LoadedModel {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelFileError(.notFound, path: path, "no such file or directory")
        }
        if !isDirectory.boolValue, SQLiteStoreFile.isSQLite(url) {
            return try SQLiteStoreFile(url: url).storedModel()
        }
        return try ModelLoader.load(from: url)
    }
}
