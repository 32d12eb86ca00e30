import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// Finds the model a path stands for: a model file in any form, or the model a document of any type carries
/// (embedded, `Z_MODELCACHE`, or inferred from an Apple XML store).
enum ModelSource {
    static func load(_ path: String) throws -> LoadedModel {
        if path == StandardStreams.dash {
            // A document (or a model file) on standard input.
            let url = try StandardStreams.documentURL(path)
            guard let type = DocumentStack.detectType(url) else { return try ModelLoader.load(from: url) }
            return try carried(by: url, type: type, name: "<stdin>")
        }
        let url = URL(fileURLWithPath: path)
        let kind = try FileKind(path: path)
        guard kind != .missing else { throw ModelFileError(.notFound, path: path, "no such file or directory") }
        let isDirectory = kind == .directory
        if isDirectory, !isModel(path) {
            // A document package (UIManagedDocument's layout): the model its store carries.
            let store = DocumentPackage.storeURL(in: url)
            if try FileKind(path: store.path) == .regularFile, let type = DocumentStack.detectType(store) {
                return try carried(by: store, type: type, name: path)
            }
        }
        guard !isDirectory, !isModel(path), let type = DocumentStack.detectType(url) else {
            return try ModelLoader.load(from: url)
        }
        return try carried(by: url, type: type, name: path)
    }

    /// The model a document carries (embedded, `Z_MODELCACHE`, or inferred), its warnings naming the document.
    private static func carried(by url: URL, type: String, name: String) throws -> LoadedModel {
        let (model, source, warnings) = try DocumentStack.chooseModel(for: url, type: type, given: nil)
        return LoadedModel(
            model: model, format: source == "Z_MODELCACHE" ? .modelCache : .contents, path: name,
            warnings: warnings.map { "\(name): \($0)" })
    }

    /// Whether a path names a model rather than a document: by its extension, or a file of no document type (an
    /// Xcode `contents` file under any name).
    static func isModel(_ path: String) -> Bool {
        let url = URL(fileURLWithPath: path)
        if ["xcdatamodeld", "xcdatamodel", "momd", "mom"].contains(url.pathExtension.lowercased())
            || url.lastPathComponent == "contents"
        {
            return true
        }
        // An Xcode `contents` file under another name: text whose root element is <model>. Not a readable regular
        // file: not a model either, and opening it as a document reports why.
        guard let head = FileKind.head(url, count: 4_096) else { return false }
        if let root = rootElement(head) { return root == "model" }
        return DocumentStack.detectType(url) == nil
    }

    /// The name of the first element of XML text (after the prolog, comments and a document type), or `nil` when the
    /// bytes do not start as XML.
    static func rootElement(_ head: Data) -> String? {
        var text = Substring(String(decoding: head, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop { $0.isWhitespace }
            guard text.hasPrefix("<") else { return nil }
            if text.hasPrefix("<?") || text.hasPrefix("<!") {
                guard let end = text.firstIndex(of: ">") else { return nil }
                text = text[text.index(after: end)...]
                continue
            }
            return String(text.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
        }
    }
}
