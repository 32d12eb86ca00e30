public import Foundation
public import ModelFiles
public import ObjectGraph

/// What an XML store file says about itself, read without adding it to a coordinator: its UUID, metadata, the model
/// it carries (ours embed one) or one inferred from its contents, and object counts.
public struct XMLStoreFile: Sendable {
    /// The file.
    public let url: URL
    /// The store's UUID, when the file records one.
    public let uuid: String?
    /// The store's metadata.
    public let metadata: [String: PropertyList]
    /// Objects per entity type as written (upper-cased).
    public let countsByType: [String: Int]
    let raw: RawXMLStore

    /// Reads the whole file (as libxml2 goes: the file's bytes are never held whole).
    /// - Parameter url: the store file.
    /// - Throws: `StoreError` naming the file and line of what cannot be read.
    public init(url: URL) throws(StoreError) {
        let raw = try XMLStoreReader(path: url.path).read(file: url)
        self.url = url
        uuid = raw.uuid
        metadata = raw.metadata
        countsByType = raw.objects.reduce(into: [:]) { $0[$1.type, default: 0] += 1 }
        self.raw = raw
    }

    /// The store's UUID and metadata, read from the `<databaseInfo>` at the top of the file without reading the
    /// objects (what opening a document needs before it loads the store).
    /// - Parameter url: the store file.
    /// - Returns: the UUID (when the file has one) and the metadata.
    /// - Throws: `StoreError` when the header cannot be read.
    public static func header(url: URL) throws(StoreError) -> (uuid: String?, metadata: [String: PropertyList]) {
        var reader = XMLStoreReader(path: url.path)
        reader.headerOnly = true
        // Read from the file, which is left at the end of `<databaseInfo>`: the objects are not read.
        let raw = try reader.read(file: url)
        return (raw.uuid, raw.metadata)
    }

    /// The bytes of a store file (a regular file only).
    static func contents(of url: URL) throws(StoreError) -> Data {
        do {
            return try FileKind.readRegularFile(url)
        } catch {
            throw StoreError(reading: error, path: url.path)
        }
    }

    /// The model a store's metadata carries (written there by docutil), if any.
    /// - Parameter metadata: the store's metadata.
    /// - Returns: the model, or `nil` when the metadata carries none.
    /// - Throws: `ModelFileError` when the model is there but cannot be read.
    public static func embeddedModel(in metadata: [String: PropertyList]) throws(ModelFileError) -> ManagedObjectModel?
    {
        guard case .string(let contents)? = metadata[XMLStore.modelMetadataKey] else { return nil }
        return try ModelLoader.readContents(Data(contents.utf8))
    }

    /// The model written into the file by docutil, if any.
    /// - Returns: the model, or `nil`.
    /// - Throws: `ModelFileError` when the model is there but cannot be read.
    public func embeddedModel() throws(ModelFileError) -> ManagedObjectModel? {
        guard case .string(let contents)? = metadata[XMLStore.modelMetadataKey] else { return nil }
        return try ModelLoader.readContents(Data(contents.utf8))
    }

    /// A model worked out from the typed contents (for Apple's files, which carry no model).
    /// - Returns: entities, attributes (typed by their values) and relationships as the file uses them.
    /// - Throws: `StoreError` when the contents contradict each other (one attribute with two types).
    public func inferredModel() throws(StoreError) -> ManagedObjectModel {
        try XMLModelInference.infer(raw)
    }

    /// Whether a file starts like an XML store: an XML prolog (or none) and a `<database>` root.
    /// - Parameter url: the file.
    /// - Returns: `true` when it looks like an XML store.
    public static func looksLikeXMLStore(_ url: URL) -> Bool {
        guard let bytes = FileKind.head(url, count: 512) else { return false }
        let head = String(decoding: bytes, as: UTF8.self)
        return head.hasPrefix("<?xml") && head.contains("<database>") || head.hasPrefix("<database>")
    }

    /// The `<UUID>` from the start of the file, without parsing all of it.
    static func peekUUID(_ url: URL) -> String? {
        guard let bytes = FileKind.head(url, count: 1024) else { return nil }
        let head = String(decoding: bytes, as: UTF8.self)
        guard let start = head.range(of: "<UUID>"),
            let end = head.range(of: "</UUID>", range: start.upperBound..<head.endIndex)
        else { return nil }
        let text = head[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.contains("&") else { return text }
        // As the parser reads it: the predefined entities replaced (docutil writes a UUID with `&` or `<` escaped).
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
