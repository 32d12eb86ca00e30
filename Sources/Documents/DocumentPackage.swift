public import Foundation
import ModelFiles
import ObjectGraph

/// A document that is a folder in `UIManagedDocument`'s layout: the store at `StoreContent/persistentStore`
/// (`UIManagedDocument.persistentStoreName` is `persistentStore` by default; a SQLite store unless the app chose
/// another type), the document's metadata in `DocumentMetadata.plist` beside `StoreContent/`, and any additional
/// content the app keeps there left as it is (copied along by save as and save a copy).
///
/// The store inside is saved in place as any store file is (a SQLite store in one transaction, an XML or binary one
/// by temporary file and rename inside `StoreContent/`). A new package — save as, save a copy, the first save of a
/// new package document — is built whole in a temporary folder beside it and renamed into place, so a package is
/// never half there; an existing folder is never replaced.
public enum DocumentPackage {
    /// The folder holding the store.
    public static let storeFolder = "StoreContent"
    /// The store's file name.
    public static let storeName = "persistentStore"
    /// The document's metadata file.
    public static let metadataName = "DocumentMetadata.plist"

    /// The store file of a package folder.
    /// - Parameter package: the package folder.
    /// - Returns: `StoreContent/persistentStore` inside it.
    public static func storeURL(in package: URL) -> URL {
        package.appendingPathComponent(storeFolder).appendingPathComponent(storeName)
    }

    /// The file that holds a document's store: the store inside a package, else the document itself.
    /// - Parameter document: a document file or package folder.
    /// - Returns: the store file, and whether it is inside a package.
    /// - Throws: ``DocumentError`` `noInput` for a folder that is not a package (no `StoreContent/persistentStore`).
    public static func storeFile(of document: URL) throws(DocumentError) -> (url: URL, isPackage: Bool) {
        let kind: FileKind
        do {
            kind = try FileKind(path: document.path)
        } catch {
            throw DocumentError(.io, error.description)
        }
        guard kind == .directory else { return (document, false) }
        let store = storeURL(in: document)
        let storeKind: FileKind
        do {
            storeKind = try FileKind(path: store.path)
        } catch {
            throw DocumentError(.io, error.description)
        }
        guard storeKind == .regularFile else {
            throw DocumentError(
                .noInput,
                "\(document.path): is a folder, not a document package (no \(storeFolder)/\(storeName) in it); it is not read"
            )
        }
        return (store, true)
    }

    /// Builds a new package at `target` in a temporary folder beside it — the store written by `writeStore` into its
    /// `StoreContent/`, the metadata and additional content of `source` (a package) copied, or a new metadata file
    /// — and renames it into place. Nothing is left behind when any step fails.
    /// - Throws: ``DocumentError`` `cannotCreate` when `target` exists (a package is never replaced), or a step fails.
    static func write(
        to target: URL, copying source: URL?, writeStore: (URL) throws(DocumentError) -> Void
    ) throws(DocumentError) {
        let destination = SafeReplacement.destination(for: target)
        let exists: Bool
        do {
            exists = try FileKind(path: destination.path) != .missing
        } catch {
            throw DocumentError(.cannotCreate, error.description)
        }
        if exists {
            throw DocumentError(
                .cannotCreate, "\(target.path) exists; a document package is never replaced: choose a new name")
        }
        let temporary = SafeReplacement.temporaryURL(beside: destination)
        let manager = FileManager.default
        do throws(DocumentError) {
            do {
                try manager.createDirectory(
                    at: temporary.appendingPathComponent(storeFolder), withIntermediateDirectories: true)
            } catch {
                throw DocumentError(
                    .cannotCreate, "\(target.path): cannot create the package: \(error.localizedDescription)")
            }
            try writeStore(storeURL(in: temporary))
            do {
                if let source {
                    for name in try manager.contentsOfDirectory(atPath: source.path) where name != storeFolder {
                        try manager.copyItem(
                            at: source.appendingPathComponent(name), to: temporary.appendingPathComponent(name))
                    }
                }
                let metadata = temporary.appendingPathComponent(metadataName)
                if !manager.fileExists(atPath: metadata.path) {
                    try BinaryPropertyListWriter.data(.dictionary([:])).write(to: metadata)
                }
            } catch {
                throw DocumentError(
                    .cannotCreate, "\(target.path): cannot copy the package's contents: \(error.localizedDescription)")
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw DocumentError(
                    .cannotCreate,
                    "\(target.path): cannot move the package into place: \(String(cString: strerror(errno)))")
            }
            SafeReplacement.flushFolder(of: destination)
        } catch {
            try? manager.removeItem(at: temporary)
            throw error
        }
    }
}
