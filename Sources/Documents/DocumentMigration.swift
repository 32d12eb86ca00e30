public import Foundation
import ModelFiles
public import ObjectGraph
import XMLStore

/// Migrates documents of every store type to another version of their model: finds the model a document was
/// written with, takes a mapping (an Xcode mapping model, or one inferred as lightweight migration does), runs it,
/// and writes the result in place or to a new file — never half a file, and the original is left byte-identical
/// when anything fails.
public enum DocumentMigration {
    /// Migrates a document to the current version of a model.
    /// - Parameters:
    ///   - document: the document (a store file or a document package).
    ///   - modelURL: the model to migrate to (any form; its current version is the destination, and every version is
    ///     a candidate for the model the document was written with).
    ///   - mappingURL: an Xcode mapping model (`.xcmappingmodel`); `nil` to infer one.
    ///   - output: the file to write; `nil` for in place.
    ///   - type: the store type to write (`xml`, `binary`, `sqlite`); `nil` for the output's extension or the
    ///     document's own type.
    ///   - force: replace an existing `output`.
    ///   - dryRun: run the migration in memory and report it, writing nothing.
    ///   - policies: the app's migration policies, by the class names the mapping model gives.
    /// - Returns: the report.
    /// - Throws: ``DocumentError``: `badData` (65) when no mapping can be inferred and none is given, or objects
    ///   can't be migrated (each reason listed); `noInput` for a missing document or model; `cannotCreate` for an
    ///   output that exists without `force`; `io` when writing fails.
    public static func migrate(
        _ document: URL, model modelURL: URL, mapping mappingURL: URL? = nil, output: URL? = nil,
        type: String? = nil, force: Bool = false, dryRun: Bool = false,
        policies: [String: any EntityMigrationPolicy] = [:]
    ) throws(DocumentError) -> MigrationReport {
        DocumentStack.registerStoreTypes()
        let url = try DocumentPackage.storeFile(of: document).url
        try DocumentStack.requireDocumentFile(url)
        guard let storeType = DocumentStack.detectType(url) else {
            throw DocumentError(.badData, "\(url.path): not a document of any known type (XML, binary or SQLite store)")
        }
        let versions: [LoadedModel]
        let destination: ManagedObjectModel
        do {
            versions = try ModelLoader.loadVersions(from: modelURL)
            destination = try ModelLoader.load(from: modelURL).model
        } catch {
            throw DocumentError(error)
        }
        var outputType = storeType
        if let output {
            if let type {
                guard let named = DocumentStack.type(forName: type, url: output) else {
                    throw DocumentError(.refused, "unknown store type '\(type)' (xml, binary or sqlite)")
                }
                outputType = named
            } else {
                // The output's extension, else the document's own type.
                outputType = DocumentStack.type(forName: nil, url: output) ?? storeType
            }
            try DocumentStack.checkOutput(output, force: force)
        } else if let type {
            guard let named = DocumentStack.type(forName: type, url: url), named == storeType else {
                throw DocumentError(
                    .refused, "a migration in place keeps the store type (\(storeType)); give --out to write another")
            }
        }
        var mappingFile: MappingModelFile?
        if let mappingURL {
            mappingFile = try readMapping(mappingURL)
        }
        let recorded = try WrittenModel.recordedHashes(of: url, type: storeType)
        let written = try WrittenModel.find(
            for: url, type: storeType, recorded: recorded, current: destination, currentRecorded: nil,
            versions: versions, modelName: modelURL.lastPathComponent, mappingSource: mappingFile?.sourceModel)
        let source: ManagedObjectModel
        let sourceDescription: String
        let warnings: [String]
        switch written {
        case .current:
            return MigrationReport(
                sourceModelDescription: "the model given", plan: ["the document already uses this model"],
                result: nil, warnings: [], alreadyCurrent: true, output: nil)
        case .unknown:
            throw DocumentError(
                .badData,
                "\(url.path): none of the versions of \(modelURL.lastPathComponent) has the document's version hashes, and the document carries no model; give the model it was written with"
            )
        case .other(let model, let description, let found):
            (source, sourceDescription, warnings) = (model, description, found)
        }
        // A migration in place holds the document's lock, as an open for writing does.
        let lock =
            output == nil && !dryRun
            ? try DocumentLock.acquire(for: SafeReplacement.destination(for: document), program: "docutil migrate")
            : nil
        defer { lock?.release() }
        var report = try run(
            url, type: storeType, source: source, destination: destination, mappingFile: mappingFile,
            output: output, outputType: outputType, dryRun: dryRun, policies: policies)
        report.sourceModelDescription = sourceDescription
        report.warnings = warnings + report.warnings
        return report
    }

    /// Migrates a document being opened with a model it was not written with, in place, under its lock: what opening
    /// with ``DocumentMigrationOptions/migrates`` does.
    static func migrateInPlace(
        _ document: URL, storeURL: URL, type: String, source: ManagedObjectModel, sourceDescription: String,
        destination: ManagedObjectModel, options: DocumentMigrationOptions, program: String, locked: Bool = false
    ) throws(DocumentError) -> MigrationReport {
        let mappingFile = try options.mappingModel.map { (url) throws(DocumentError) in try readMapping(url) }
        let lock =
            locked ? nil : try DocumentLock.acquire(for: SafeReplacement.destination(for: document), program: program)
        defer { lock?.release() }
        var report = try run(
            storeURL, type: type, source: source, destination: destination, mappingFile: mappingFile, output: nil,
            outputType: type, dryRun: false, policies: options.policies,
            hint:
                "opening it with this model migrates it first: give a mapping model for changes inference can't make (docutil open --mapping-model), or read it with the model it was written with (--no-migrate, --read-only)"
        )
        report.sourceModelDescription = sourceDescription
        return report
    }

    static func readMapping(_ url: URL) throws(DocumentError) -> MappingModelFile {
        do {
            return try MappingModelFile(url: url)
        } catch {
            throw DocumentError(error)
        }
    }

    /// Runs a migration from `source` to `destination`: an Xcode mapping model, else one inferred.
    static func run(
        _ url: URL, type storeType: String, source: ManagedObjectModel, destination: ManagedObjectModel,
        mappingFile: MappingModelFile?, output: URL?, outputType: String, dryRun: Bool,
        policies: [String: any EntityMigrationPolicy],
        hint: String = "give a mapping model with --mapping for changes inference can't make"
    ) throws(DocumentError) -> MigrationReport {
        let mapping: MappingModel
        if let mappingFile {
            mapping = mappingFile.resolved(with: source)
        } else {
            do throws(MigrationError) {
                mapping = try MappingModel.inferred(from: source, to: destination)
            } catch {
                throw DocumentError(
                    .badData,
                    "\(url.path): \(error.description)\n(\(hint))"
                )
            }
        }
        let manager = MigrationManager(
            sourceModel: source, destinationModel: destination, mapping: mapping, policies: policies)
        let coordinator = PersistentStoreCoordinator(model: source)
        let store: any PersistentStore
        do {
            store = try coordinator.addPersistentStore(type: storeType, url: url, options: ["readOnly": "YES"])
        } catch {
            throw DocumentError(error)
        }
        defer { store.close() }
        let result: MigrationResult
        let target = (output ?? url).resolvingSymlinksInPath()
        do {
            if dryRun {
                result = try coordinator.migratedObjects(of: store, with: manager)
            } else {
                result = try coordinator.migratePersistentStore(store, with: manager, to: target, type: outputType)
            }
        } catch let error as MigrationError {
            throw DocumentError(.badData, "\(url.path): \(error.description)")
        } catch let error as StoreError {
            throw DocumentError(error.code == .io ? .io : DocumentError(error).code, error.description)
        } catch {
            throw DocumentError(.io, "\(url.path): \(error)")
        }
        let mappingWarnings = (mappingFile?.warnings ?? []).map {
            "the mapping model \(mappingFile?.url.path ?? ""): \($0)"
        }
        return MigrationReport(
            sourceModelDescription: "",
            plan: MigrationPlanText.lines(mapping: mapping, source: source, destination: destination, result: result),
            result: result, warnings: mappingWarnings + result.warnings, alreadyCurrent: false,
            output: dryRun ? nil : target)
    }
}

/// The text of a migration plan.
enum MigrationPlanText {
    static func lines(
        mapping: MappingModel, source: ManagedObjectModel, destination: ManagedObjectModel, result: MigrationResult
    ) -> [String] {
        var lines: [String] = []
        for entityMapping in mapping.entityMappings {
            let made = result.counts[entityMapping.name] ?? 0
            switch entityMapping.kind {
            case .add:
                lines.append("\(entityMapping.destinationEntityName ?? "?"): new entity (no objects)")
                continue
            case .remove:
                let name = entityMapping.sourceEntityName ?? "?"
                lines.append("\(name): removed (\(result.dropped[name] ?? 0) objects dropped)")
                continue
            case .copy, .transform, .custom:
                break
            }
            let sourceName = entityMapping.sourceEntityName ?? "?"
            let destinationName = entityMapping.destinationEntityName ?? "?"
            var head =
                "\(sourceName) → \(destinationName) (\(entityMapping.kind.rawValue.lowercased()), mapping \(entityMapping.name)): \(made) objects"
            if let dropped = result.dropped[sourceName], dropped > 0 { head += ", \(dropped) not migrated" }
            if let policy = entityMapping.migrationPolicyClassName { head += ", policy \(policy)" }
            lines.append(head)
            var used: Set<String> = []
            for property in entityMapping.attributeMappings {
                let attribute = destination.allAttributes(of: destinationName).first { $0.name == property.name }
                if let expression = property.valueExpression {
                    if case .keyPath(.variable("source"), let path) = expression, path.count == 1 {
                        used.insert(path[0])
                        lines.append(
                            path[0] == property.name
                                ? "  \(property.name) ← kept" : "  \(property.name) ← \(path[0]) (renamed)")
                    } else {
                        lines.append("  \(property.name) ← \(expression)")
                    }
                } else if let value = attribute?.defaultValue, !value.isNull {
                    lines.append("  \(property.name) ← default \(value.literalText) (new)")
                } else {
                    lines.append("  \(property.name) ← nil (new)")
                }
            }
            for property in entityMapping.relationshipMappings {
                if let expression = property.valueExpression {
                    if case .methodCall(_, _, let arguments) = expression, arguments.count == 2,
                        case .constant(.string(let name)) = arguments[0]
                    {
                        used.insert(name)
                        if case .keyPath(.variable("source"), let path) = arguments[1], path.count == 1 {
                            used.insert(path[0])
                        }
                    }
                    lines.append("  \(property.name) ← \(expression)")
                } else {
                    lines.append("  \(property.name) ← none (new)")
                }
            }
            let sourceProperties =
                source.allAttributes(of: sourceName).filter { !$0.isTransient }.map(\.name)
                + source.allRelationships(of: sourceName).filter { !$0.isTransient }.map(\.name)
            for name in sourceProperties.sorted() where !used.contains(name) {
                lines.append("  \(sourceName).\(name): dropped")
            }
        }
        return lines
    }
}
