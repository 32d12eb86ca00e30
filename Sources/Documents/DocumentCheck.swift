public import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore

/// Checks a document (every store type) or a model file for problems: what `docutil check` reports.
///
/// A document is opened read-only and never changed. The store checks its own file where it can (a SQLite store
/// with SQL over its tables: integrity, entity numbers, keys, references, uniqueness, external data; the XML store
/// by reporting what it could not read); an atomic store's whole graph is then checked for references to missing
/// objects, inverses that do not point back and uniqueness; every object is read, in batches, and checked against
/// the model's rules; the metadata is compared with the model.
public enum DocumentCheck {
    /// Objects read and checked at a time (then let go, so memory stays bounded by the batch).
    static let batchSize = 1_000

    /// Checks a document.
    /// - Parameters:
    ///   - url: the document (a store file, or a document package).
    ///   - modelURL: a model to check it against instead of the one it carries.
    ///   - limit: the most problems of each kind that are listed (the rest are counted).
    ///   - progress: called after each batch with the objects checked and the total.
    /// - Returns: the problems found.
    /// - Throws: ``DocumentError`` when the document cannot be read at all.
    public static func check(
        _ url: URL, model modelURL: URL? = nil, limit: Int = 1_000, progress: ((Int, Int) -> Void)? = nil
    ) throws(DocumentError) -> DocumentCheckReport {
        let opened = try DocumentStack.open(
            url, model: modelURL, readOnly: true, lenient: true, storeOptions: ["collectProblems": "YES"],
            exactModel: true)
        var report = DocumentCheckReport(problems: [], unlisted: [:], objectsChecked: 0, warnings: opened.warnings)
        var found: [StoreProblem] = metadataProblems(opened, warnings: &report.warnings)
        var covered: Set<StoreProblem.Kind> = []
        do {
            if let checkable = opened.store as? any CheckableStore {
                let result = try checkable.checkStructure(limit: limit)
                found += result.problems
                covered = result.coveredKinds
                report.unlisted.merge(result.unlisted, uniquingKeysWith: +)
            }
            if !(opened.store is any IncrementalStore) {
                let snapshots = try opened.coordinator.storedSnapshots(of: opened.store)
                found += SnapshotCheck.problems(in: snapshots, model: opened.model).filter {
                    !covered.contains($0.kind)
                }
            }
        } catch {
            throw DocumentError(error)
        }
        if !found.contains(where: { $0.kind == .sqlite }) {
            found += try ruleViolations(opened, report: &report, progress: progress)
            // A value kept as stored because its external file is missing is reported once, as external data.
            let external = Set(found.filter { $0.kind == .externalData }.map { "\($0.object) \($0.key ?? "")" })
            let values = (opened.store as? SQLiteStore)?.valueProblems ?? []
            found += values.filter { !external.contains("\($0.object) \($0.key ?? "")") }
        }
        var perKind: [StoreProblem.Kind: Int] = [:]
        for problem in Set(found).sorted() {
            let seen = perKind[problem.kind, default: 0] + 1
            perKind[problem.kind] = seen
            if seen <= limit {
                report.problems.append(problem)
            } else {
                report.unlisted[problem.kind, default: 0] += 1
            }
        }
        return report
    }

    /// Metadata that does not match the model: missing keys, a UUID other than the store's, entities the model and
    /// the version hashes disagree on, and — for a model given to check against — version hashes that differ. (A
    /// model the document carries is the one it was written with: a hash computed from it that differs from the
    /// recorded one says more about the recipe than about the file; an inferred model has nothing to compare.)
    static func metadataProblems(_ opened: OpenedDocument, warnings: inout [String]) -> [StoreProblem] {
        var carriedDiffering: [String] = []
        defer {
            if !carriedDiffering.isEmpty {
                warnings.append(
                    "the version hashes docutil computes from the document's own model (\(opened.modelSource)) differ from its metadata for \(carriedDiffering.joined(separator: ", ")) (an input of Apple's recipe this model uses that docutil does not yet reproduce)"
                )
            }
        }
        let file = opened.url.path
        var problems: [StoreProblem] = []
        let metadata = opened.store.metadata
        if let sqlite = opened.store as? SQLiteStore, let problem = sqlite.metadataProblem {
            problems.append(StoreProblem(object: file, kind: .metadata, detail: problem))
            return problems
        }
        // Apple keeps the UUID and type outside the property list (Z_METADATA.Z_UUID, the XML file's databaseInfo):
        // only the version hashes must be in it.
        for key in ["NSStoreModelVersionHashes"] where metadata[key] == nil {
            problems.append(StoreProblem(object: file, kind: .metadata, key: key, detail: "the metadata has no \(key)"))
        }
        if case .string(let uuid)? = metadata["NSStoreUUID"], uuid != opened.store.identifier {
            problems.append(
                StoreProblem(
                    object: file, kind: .metadata, key: "NSStoreUUID",
                    detail: "NSStoreUUID is \(uuid), but the store's UUID is \(opened.store.identifier)"))
        }
        guard opened.modelSource != "inferred", case .dictionary(let recorded)? = metadata["NSStoreModelVersionHashes"]
        else { return problems }
        let computed = opened.model.entityVersionHashes
        for name in Set(recorded.keys).union(computed.keys).sorted() {
            let detail: String
            switch (recorded[name], computed[name]) {
            case (nil, _?): detail = "the model's entity \(name) has no version hash in the metadata"
            case (_?, nil): detail = "the metadata has a version hash for \(name), an entity the model lacks"
            case (.data(let stored)?, let hash?):
                guard stored != hash else { continue }
                guard opened.modelSource == "given" else {
                    carriedDiffering.append(name)
                    continue
                }
                detail =
                    "the version hash of \(name) is \(stored.base64EncodedString()) in the metadata, \(hash.base64EncodedString()) in the model (\(opened.modelSource))"
            default: detail = "the version hash of \(name) in the metadata is not data"
            }
            problems.append(
                StoreProblem(object: file, kind: .metadata, key: "NSStoreModelVersionHashes", detail: detail))
        }
        return problems
    }

    /// Every object, batch by batch, against the model's rules.
    static func ruleViolations(
        _ opened: OpenedDocument, report: inout DocumentCheckReport, progress: ((Int, Int) -> Void)?
    ) throws(DocumentError) -> [StoreProblem] {
        let context = opened.context
        var problems: [StoreProblem] = []
        do {
            var ids: [ManagedObjectID] = []
            for root in opened.model.entities.filter({ $0.parentName == nil }).map(\.name).sorted() {
                ids += try context.fetchObjectIDs(FetchRequest(entityName: root))
            }
            context.reset()
            ids.sort { ($0.entityName, $0.primaryKey) < ($1.entityName, $1.primaryKey) }
            var start = 0
            while start < ids.count {
                let batch = Array(ids[start..<min(start + batchSize, ids.count)])
                let objects = try context.objects(with: batch)
                try context.prefetchToManyRelationships(of: objects)
                for object in objects {
                    for error in try context.ruleViolations(of: object) {
                        problems.append(
                            StoreProblem(
                                object.objectID, .validation, key: error.key,
                                "\(error.key.map { "\($0): " } ?? "")\(error.message)"))
                    }
                }
                context.reset()
                start += batch.count
                report.objectsChecked = start
                progress?(start, ids.count)
            }
        } catch let error as ContextError {
            if case .store(let failure) = error { throw DocumentError(failure) }
            throw DocumentError(.badData, "\(opened.url.path): \(error)")
        } catch {
            throw DocumentError(.badData, "\(opened.url.path): \(error)")
        }
        return problems
    }

    /// Checks a model file (any form): it must load and resolve, and a compiled model's entity version hashes must
    /// be the ones momc recorded in `VersionInfo.plist`.
    /// - Parameter url: the model, in any form (`.xcdatamodeld`, `.xcdatamodel`, `contents`, `.momd`, `.mom`).
    /// - Returns: the problems found (none when the model is sound).
    /// - Throws: ``DocumentError`` when the model cannot be read at all.
    public static func checkModel(_ url: URL) throws(DocumentError) -> DocumentCheckReport {
        let loaded: LoadedModel
        do {
            loaded = try ModelLoader.load(from: url)
        } catch {
            throw DocumentError(error)
        }
        var problems: [StoreProblem] = []
        var warnings = loaded.warnings
        if let recorded = loaded.recordedVersionHashes {
            let computed = loaded.model.entityVersionHashes
            for name in Set(recorded.keys).symmetricDifference(computed.keys).sorted() {
                let detail =
                    recorded[name] == nil
                    ? "the entity \(name) has no version hash in VersionInfo.plist"
                    : "VersionInfo.plist has a version hash for \(name), an entity the model lacks"
                problems.append(
                    StoreProblem(object: url.path, kind: .metadata, key: "VersionInfo.plist", detail: detail))
            }
            // momc wrote both from one model: a hash that differs says the recipe misses an input of this model.
            let differing = recorded.keys.filter { computed[$0] != nil && computed[$0] != recorded[$0] }.sorted()
            if !differing.isEmpty {
                warnings.append(
                    "the version hashes docutil computes differ from VersionInfo.plist for \(differing.joined(separator: ", ")) (an input of Apple's recipe this model uses that docutil does not yet reproduce)"
                )
            }
        }
        return DocumentCheckReport(
            problems: problems.sorted(), unlisted: [:], objectsChecked: 0, warnings: warnings)
    }
}
