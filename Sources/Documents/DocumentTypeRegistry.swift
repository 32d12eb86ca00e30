import BinaryStore
public import Foundation
import ObjectGraph
import SQLiteStore
import Synchronization
import XMLStore

/// The document types an app knows: the three file store types, the built-in import formats (CSV, TSV, JSON,
/// property lists, keyed archives, plain SQLite databases — ``ImportFormat``), and any it registers.
public enum DocumentTypeRegistry {
    private static let registry = Mutex<[DocumentType]>(
        [.xml, .binary, .sqlite] + ImportFormat.allCases.map(\.documentType))

    /// Registers a type (replacing one of the same name).
    /// - Parameter type: the type.
    public static func register(_ type: DocumentType) {
        registry.withLock { types in
            types.removeAll { $0.name.lowercased() == type.name.lowercased() }
            types.append(type)
        }
    }

    /// Every registered type, the built-in ones first.
    public static var types: [DocumentType] {
        DocumentStack.registerStoreTypes()
        return registry.withLock { $0 }
    }

    /// The type with this name (case does not matter).
    /// - Parameter name: the type's name.
    /// - Returns: the type, or `nil` when none is registered under that name.
    public static func type(named name: String) -> DocumentType? {
        types.first { $0.name.lowercased() == name.lowercased() }
    }

    /// The type of an existing file: by its contents first, then by its extension; `nil` when neither tells.
    /// - Parameter url: the file.
    /// - Returns: the type, or `nil`.
    public static func type(of url: URL) -> DocumentType? {
        let all = types
        if let found = all.first(where: { $0.recognizes?(url) ?? false }) { return found }
        return type(forExtensionOf: url)
    }

    /// The type a file name's extension stands for.
    /// - Parameter url: the file name.
    /// - Returns: the type, or `nil` for an extension no type claims.
    public static func type(forExtensionOf url: URL) -> DocumentType? {
        let ext = url.pathExtension.lowercased()
        guard !ext.isEmpty else { return nil }
        return types.first { $0.fileExtensions.contains(ext) }
    }

    /// The type named by `name` (a type name or an extension, as `--type` takes), else the one `url`'s extension
    /// stands for.
    /// - Parameters:
    ///   - name: a type name or an extension, or `nil`.
    ///   - url: a file whose extension names the type, or `nil`.
    /// - Returns: the type, or `nil`.
    public static func type(forName name: String?, url: URL?) -> DocumentType? {
        if let name {
            return type(named: name) ?? types.first { $0.fileExtensions.contains(name.lowercased()) }
        }
        return url.flatMap(type(forExtensionOf:))
    }
}
