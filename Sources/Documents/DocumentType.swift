import BinaryStore
public import Foundation
import ObjectGraph
import SQLiteStore
import Synchronization
import XMLStore

/// A kind of document: its name, file extensions, the store type that holds it, whether documents of it can be
/// saved or only imported, and how a file of it is recognised.
///
/// The three file store types (XML, binary, SQLite) are registered by default. An app registers its own: a store
/// type it added to `StoreType`, or an import-only type (a legacy format) whose documents a
/// ``PersistentDocument`` subclass reads in ``PersistentDocument/read(from:ofType:into:)``.
public struct DocumentType: Sendable, CustomStringConvertible {
    /// The type's name (`"XML"`, `"Binary"`, `"SQLite"`, or an app's).
    public var name: String
    /// File extensions, without the dot, lowercase; the first is the one new files get.
    public var fileExtensions: [String]
    /// The store type that holds documents of this type (`StoreType` name); `nil` for a type that is only
    /// imported, whose documents open untitled and must be saved as a writable type.
    public var storeType: String?
    /// Whether documents of this type can be saved (a store type that can write).
    public var isWritable: Bool
    /// Options for the store of a document of this type (for SQLite: `journalMode`, set when the file is created).
    public var storeOptions: [String: String]
    /// Recognises a file of this type from its contents (first bytes); `nil` to go by extension only.
    public var recognizes: (@Sendable (URL) -> Bool)?
    /// For a type that is only imported: what reads its files (``PersistentDocument/read(from:ofType:into:)`` uses
    /// it unless a subclass overrides that).
    public var importer: (any DocumentImporter)?

    /// Creates a document type.
    /// - Parameters:
    ///   - name: the type's name (`"SQLite"`, `"CSV"`, an app's own).
    ///   - fileExtensions: extensions that stand for it, without the dot.
    ///   - storeType: the store type documents of it are kept in; `nil` for a type that is only imported.
    ///   - isWritable: whether documents can be saved as this type.
    ///   - storeOptions: options for its store.
    ///   - recognizes: tells the type from a file's contents (first bytes), before its extension is looked at.
    ///   - importer: reads files of the type into a document (for types that are imported).
    public init(
        name: String, fileExtensions: [String], storeType: String?, isWritable: Bool = true,
        storeOptions: [String: String] = [:], recognizes: (@Sendable (URL) -> Bool)? = nil,
        importer: (any DocumentImporter)? = nil
    ) {
        self.name = name
        self.fileExtensions = fileExtensions.map { $0.lowercased() }
        self.storeType = storeType
        self.isWritable = isWritable && storeType != nil
        self.storeOptions = storeOptions
        self.recognizes = recognizes
        self.importer = importer
    }

    /// The type's name.
    public var description: String { name }

    /// The XML store (Apple's format): `.xml`, `.storedata`.
    public static let xml = DocumentType(
        name: XMLStore.typeName, fileExtensions: ["xml", "storedata"], storeType: XMLStore.typeName,
        recognizes: { StoreType.named(XMLStore.typeName)?.recognizes?($0) ?? false })
    /// Our binary store: `.binary`, `.dubstore`, `.bin`.
    public static let binary = DocumentType(
        name: BinaryStore.typeName, fileExtensions: ["binary", "dubstore", "bin"], storeType: BinaryStore.typeName,
        recognizes: { StoreType.named(BinaryStore.typeName)?.recognizes?($0) ?? false })
    /// The SQLite store (Apple's schema): `.sqlite`, `.sqlite3`, `.db`. A new document is created in rollback
    /// (`DELETE`) journal mode, so the document is one file between saves; an existing one keeps its mode.
    public static let sqlite = DocumentType(
        name: SQLiteStore.typeName, fileExtensions: ["sqlite", "sqlite3", "db"], storeType: SQLiteStore.typeName,
        storeOptions: ["journalMode": "DELETE"], recognizes: { SQLiteStoreFile.isSQLite($0) })
}
