public import Foundation
public import ObjectGraph

/// Loads models from every form Xcode and Core Data write: `.xcdatamodeld` bundles, `.xcdatamodel` directories, bare
/// `contents` files, compiled `.momd` bundles and `.mom` files, and `Z_MODELCACHE` blobs.
public enum ModelLoader {
    /// Loads the model at `url`, choosing the reader by what the path is and by the file's first bytes.
    ///
    /// For an `.xcdatamodeld` the current version is the one `.xccurrentversion` names; without that file, the only
    /// version (several versions and no current one is an error naming them). For a `.momd` the current version is
    /// the one `VersionInfo.plist` names, else the only `.mom`.
    /// - Parameter url: the model (`.xcdatamodeld`, `.xcdatamodel`, `contents`, `elements`, `.momd`, `.mom`).
    /// - Returns: the model, its format and version, and the version hashes the file records.
    /// - Throws: ``ModelFileError``: `notFound` for a missing path, `unsupported` for Xcode 3 models, `malformed` or
    ///   `invalidModel` with the file and place for bad input.
    public static func load(from url: URL) throws(ModelFileError) -> LoadedModel {
        let path = url.path
        let kind = try FileKind(path: path)
        switch kind {
        case .missing: throw ModelFileError(.notFound, path: path, "no such file or directory")
        case .regularFile, .directory: break
        default:
            throw ModelFileError(
                .notFound, path: path, "is \(kind.article), not a model file or folder; it is not read")
        }
        if kind == .directory {
            switch url.pathExtension {
            case "xcdatamodeld": return try loadXcodeBundle(url)
            case "xcdatamodel": return try loadXcodeModel(url, versionName: nil)
            case "momd": return try loadCompiledBundle(url)
            default:
                if FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path) {
                    return try loadXcodeModel(url, versionName: nil)
                }
                throw ModelFileError(
                    .unrecognizedFormat, path: path,
                    "a directory that is not a model (.xcdatamodeld, .xcdatamodel or .momd)")
            }
        }
        let data = try read(url)
        if LegacyModelReader.isLegacyModel(data) {
            return try wrap(path) { () throws(ModelFileError) in
                let (model, warnings) = try LegacyModelReader.read(data)
                return LoadedModel(
                    model: model, format: .xcodeModel, path: path, warnings: Self.legacyNote + warnings)
            }
        }
        if data.starts(with: Array("bplist".utf8)) {
            // A .momd's list of versions is a property list too, but no model. (A list that cannot be read is left
            // to the reading below, which names what is wrong with it.)
            if Self.isVersionList(data) {
                throw ModelFileError(
                    .unrecognizedFormat, path: path,
                    "the version list of a compiled model bundle (VersionInfo.plist), not a model: open the .momd")
            }
            return try wrap(path) { () throws(ModelFileError) in
                var reader = CompiledModelReader(archive: try KeyedArchive(data: data))
                let model = try reader.read()
                return LoadedModel(model: model, format: .compiledModel, path: path, warnings: reader.warnings)
            }
        }
        if looksLikeXML(data) {
            return try wrap(path) { () throws(ModelFileError) in
                LoadedModel(model: try XcodeModelReader.read(data), format: .contents, path: path, warnings: [])
            }
        }
        if data.starts(with: Array("momv2".utf8)) {
            // Xcode writes one beside each version's .mom in a .momd; its layout is not documented.
            throw ModelFileError(
                .unrecognizedFormat, path: path,
                "an optimized compiled model (.omo), which is not read: open the .mom beside it, or the .momd")
        }
        throw ModelFileError(
            .unrecognizedFormat, path: path,
            "not a model: expected Xcode 'contents' XML or a compiled .mom (binary property list)")
    }

    /// Whether `data` is a property list with the version hashes of a `.momd`'s `VersionInfo.plist`.
    private static func isVersionList(_ data: Data) -> Bool {
        do {
            guard case .dictionary(let entries) = try PropertyList.read(data) else { return false }
            return entries["NSManagedObjectModel_VersionHashes"] != nil
        } catch {
            return false
        }
    }

    /// Loads every version of a model: each `.xcdatamodel` of an `.xcdatamodeld`, each `.mom` of a `.momd` (with the
    /// hashes `VersionInfo.plist` records for it), or the one model of any other form. What finding the model a
    /// store was written with needs.
    /// - Parameter url: a model in any form ``load(from:)`` reads.
    /// - Returns: the versions, sorted by version name; the current one is among them.
    /// - Throws: ``ModelFileError`` when the path is missing or a version can't be read (named).
    public static func loadVersions(from url: URL) throws(ModelFileError) -> [LoadedModel] {
        let kind = try FileKind(path: url.path)
        guard kind == .directory, ["xcdatamodeld", "momd"].contains(url.pathExtension) else {
            return [try load(from: url)]
        }
        if url.pathExtension == "xcdatamodeld" {
            var versions: [LoadedModel] = []
            for name in try listing(url).filter({ $0.hasSuffix(".xcdatamodel") }).sorted() {
                versions.append(
                    try loadXcodeModel(
                        url.appendingPathComponent(name), versionName: String(name.dropLast(".xcdatamodel".count))))
            }
            if versions.isEmpty {
                throw ModelFileError(.malformed, path: url.path, "the bundle contains no .xcdatamodel version")
            }
            return versions
        }
        let infoURL = url.appendingPathComponent("VersionInfo.plist")
        var info: PropertyList?
        if FileManager.default.fileExists(atPath: infoURL.path) {
            info = try wrap(infoURL.path) { () throws(ModelFileError) in try PropertyList.read(try read(infoURL)) }
        }
        var versions: [LoadedModel] = []
        for file in try listing(url).filter({ $0.hasSuffix(".mom") }).sorted() {
            let name = String(file.dropLast(4))
            var loaded = try load(from: url.appendingPathComponent(file))
            loaded.format = .compiledBundle
            loaded.versionName = name
            if let hashes = info?["NSManagedObjectModel_VersionHashes"]?[name]?.dictionary {
                loaded.recordedVersionHashes = hashes.compactMapValues(\.data)
            }
            versions.append(loaded)
        }
        if versions.isEmpty { throw ModelFileError(.malformed, path: url.path, "the bundle contains no .mom file") }
        return versions
    }

    /// Decodes a model from a `Z_MODELCACHE` blob: raw DEFLATE of a keyed archive of the model.
    /// - Parameters:
    ///   - blob: the column's bytes.
    ///   - source: the store's path, for messages.
    /// - Returns: the model, with the version hashes the archive records.
    /// - Throws: ``ModelFileError`` `malformed` when the bytes do not inflate or decode to a model.
    public static func loadModelCache(_ blob: Data, source: String) throws(ModelFileError) -> LoadedModel {
        try wrap(source) { () throws(ModelFileError) in
            let archive = try KeyedArchive(data: try Inflate.raw(blob))
            var reader = CompiledModelReader(archive: archive)
            let model = try reader.read()
            return LoadedModel(model: model, format: .modelCache, path: source, warnings: reader.warnings)
        }
    }

    /// Reads a model from `contents` XML bytes.
    /// - Parameter data: the bytes of a `contents` file.
    /// - Returns: the model.
    /// - Throws: ``ModelFileError`` `malformed` or `invalidModel`, with the line.
    public static func readContents(_ data: Data) throws(ModelFileError) -> ManagedObjectModel {
        try XcodeModelReader.read(data)
    }

    /// What a model read from Xcode 3's format says.
    static let legacyNote = [
        "read from Xcode 3's 'elements' archive (fetch request templates and configurations are not carried over)"
    ]

    /// Reads a model from the bytes of an archived model: Xcode 3's `elements` archive (as mapping models carry
    /// copies of their models), or a compiled `.mom`.
    /// - Parameter data: the archive.
    /// - Returns: the model, and what was not read of it.
    /// - Throws: ``ModelFileError`` for bytes that are neither.
    public static func readArchivedModel(_ data: Data) throws(ModelFileError) -> (
        model: ManagedObjectModel, warnings: [String]
    ) {
        if LegacyModelReader.isLegacyModel(data) { return try LegacyModelReader.read(data) }
        var reader = CompiledModelReader(archive: try KeyedArchive(data: data))
        return (try reader.read(), reader.warnings)
    }

    /// Reads a model from compiled `.mom` bytes.
    /// - Parameter data: the bytes of a `.mom` file.
    /// - Returns: the model.
    /// - Throws: ``ModelFileError`` `malformed` naming the archived object that cannot be read.
    public static func readCompiledModel(_ data: Data) throws(ModelFileError) -> ManagedObjectModel {
        var reader = CompiledModelReader(archive: try KeyedArchive(data: data))
        return try reader.read()
    }

    /// Writes `model` as an unversioned `.xcdatamodel` directory (holding its `contents` file) at `url`.
    /// - Parameters:
    ///   - model: the model.
    ///   - url: the `.xcdatamodel` folder to create.
    /// - Throws: ``ModelFileError`` `io` when it cannot be written, `unsupported` when a string of the model holds a
    ///   character XML cannot hold.
    public static func writeXcodeModel(_ model: ManagedObjectModel, to url: URL) throws(ModelFileError) {
        let text = try XcodeModelWriter.contents(of: model)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data(text.utf8).write(
                to: url.appendingPathComponent("contents"), options: .atomic)
        } catch {
            throw ModelFileError(.io, path: url.path, "cannot write the model: \(error.localizedDescription)")
        }
    }

    // MARK: - Forms

    private static func loadXcodeBundle(_ url: URL) throws(ModelFileError) -> LoadedModel {
        let versions = try listing(url).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        let currentFile = url.appendingPathComponent(".xccurrentversion")
        var current: String?
        if FileManager.default.fileExists(atPath: currentFile.path) {
            let plist = try wrap(currentFile.path) { () throws(ModelFileError) in
                try PropertyList.read(try read(currentFile))
            }
            guard let name = plist["_XCCurrentVersionName"]?.string, !name.isEmpty else {
                throw ModelFileError(.malformed, path: currentFile.path, "no _XCCurrentVersionName entry")
            }
            guard versions.contains(name) else {
                throw ModelFileError(
                    .malformed, path: currentFile.path,
                    "names version '\(name)', which the bundle does not contain (it has: \(versions.joined(separator: ", ")))"
                )
            }
            current = name
        } else if versions.count == 1 {
            current = versions[0]
        } else if versions.isEmpty {
            throw ModelFileError(.malformed, path: url.path, "the bundle contains no .xcdatamodel version")
        } else {
            throw ModelFileError(
                .malformed, path: url.path,
                "several versions and no .xccurrentversion to choose one: \(versions.joined(separator: ", "))")
        }
        let name = current!
        return try loadXcodeModel(
            url.appendingPathComponent(name), versionName: String(name.dropLast(".xcdatamodel".count)))
    }

    private static func loadXcodeModel(_ url: URL, versionName: String?) throws(ModelFileError) -> LoadedModel {
        let contents = url.appendingPathComponent("contents")
        if !FileManager.default.fileExists(atPath: contents.path) {
            let elements = url.appendingPathComponent("elements")
            if FileManager.default.fileExists(atPath: elements.path) {
                let data = try read(elements)
                return try wrap(elements.path) { () throws(ModelFileError) in
                    let (model, warnings) = try LegacyModelReader.read(data)
                    return LoadedModel(
                        model: model, format: versionName == nil ? .xcodeModel : .xcodeBundle, path: elements.path,
                        versionName: versionName, warnings: Self.legacyNote + warnings)
                }
            }
            throw ModelFileError(.malformed, path: url.path, "the model directory has no 'contents' file")
        }
        let data = try read(contents)
        return try wrap(contents.path) { () throws(ModelFileError) in
            LoadedModel(
                model: try XcodeModelReader.read(data), format: versionName == nil ? .xcodeModel : .xcodeBundle,
                path: contents.path, versionName: versionName, warnings: [])
        }
    }

    private static func loadCompiledBundle(_ url: URL) throws(ModelFileError) -> LoadedModel {
        let moms = try listing(url).filter { $0.hasSuffix(".mom") }.sorted()
        let infoURL = url.appendingPathComponent("VersionInfo.plist")
        var info: PropertyList?
        if FileManager.default.fileExists(atPath: infoURL.path) {
            info = try wrap(infoURL.path) { () throws(ModelFileError) in try PropertyList.read(try read(infoURL)) }
        }
        let name: String
        if let current = info?["NSManagedObjectModel_CurrentVersionName"]?.string {
            guard moms.contains(current + ".mom") else {
                throw ModelFileError(
                    .malformed, path: infoURL.path, "names version '\(current)', but there is no \(current).mom")
            }
            name = current
        } else if moms.count == 1 {
            name = String(moms[0].dropLast(4))
        } else if moms.isEmpty {
            throw ModelFileError(.malformed, path: url.path, "the bundle contains no .mom file")
        } else {
            throw ModelFileError(
                .malformed, path: url.path,
                "several versions and no current version in VersionInfo.plist: \(moms.joined(separator: ", "))")
        }
        var loaded = try load(from: url.appendingPathComponent(name + ".mom"))
        loaded.format = .compiledBundle
        loaded.versionName = name
        if let hashes = info?["NSManagedObjectModel_VersionHashes"]?[name]?.dictionary {
            loaded.recordedVersionHashes = hashes.compactMapValues(\.data)
        }
        return loaded
    }

    // MARK: - Helpers

    static func read(_ url: URL) throws(ModelFileError) -> Data {
        try FileKind.readRegularFile(url)
    }

    private static func listing(_ url: URL) throws(ModelFileError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelFileError(.io, path: url.path, "cannot list the directory: \(error.localizedDescription)")
        }
    }

    private static func looksLikeXML(_ data: Data) -> Bool {
        var bytes = data.prefix(64)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.drop(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }).first == UInt8(ascii: "<")
    }

    private static func wrap<T>(_ path: String, _ body: () throws(ModelFileError) -> T) throws(ModelFileError) -> T {
        do {
            return try body()
        } catch {
            throw error.inFile(path)
        }
    }
}
