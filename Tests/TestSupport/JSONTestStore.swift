import Foundation
public import ObjectGraph

/// A small file-backed atomic store used by the tests: JSON, written to a temporary file and renamed into place.
/// It exercises the atomic-store protocol, store migration to another type and URL, and atomic saves across stores.
public final class JSONTestStore: AtomicStore, @unchecked Sendable {
    public static let typeName = "TestJSON"
    public let description: StoreDescription
    public let identifier: String
    public var metadata: [String: PropertyList] = [:]
    /// When set, the next prepared write fails (to test all-or-nothing saves).
    public nonisolated(unsafe) static var failNextWrite = false

    public static func register() {
        StoreType.register(
            StoreType(
                name: typeName, fileExtensions: ["testjson"],
                make: { description throws(StoreError) in try JSONTestStore(description: description) },
                readMetadata: { url throws(StoreError) in
                    guard let data = try? Data(contentsOf: url),
                        let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                        let uuid = root["uuid"] as? String
                    else { throw StoreError(.corrupt, path: url.path, "not a test JSON store") }
                    return ["NSStoreType": .string(typeName), "NSStoreUUID": .string(uuid)]
                },
                recognizes: { url in
                    (try? FileHandle(forReadingFrom: url).read(upToCount: 9)).map { $0 == Data("{\"objects".utf8) }
                        ?? false
                }))
    }

    public init(description: StoreDescription) throws(StoreError) {
        guard description.url != nil else { throw StoreError(.unsupported, "a JSON store needs a URL") }
        self.description = description
        if let data = try? Data(contentsOf: description.url!),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let uuid = object["uuid"] as? String
        {
            identifier = uuid
        } else {
            identifier = description.options["storeIdentifier"] ?? UUID().uuidString
        }
    }

    public func load(model: ManagedObjectModel) throws(StoreError) -> AtomicStoreContents {
        let url = description.url!
        guard FileManager.default.fileExists(atPath: url.path) else {
            return AtomicStoreContents(identifier: identifier, metadata: ["NSStoreType": .string(Self.typeName)])
        }
        guard let data = try? Data(contentsOf: url),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let objects = root["objects"] as? [[String: Any]]
        else { throw StoreError(.corrupt, path: url.path, "not a test JSON store") }
        var snapshots: [ObjectSnapshot] = []
        func id(_ text: Any?) -> ManagedObjectID? {
            (text as? String).flatMap { URL(string: $0) }.flatMap { ManagedObjectID(uriRepresentation: $0) }
        }
        for object in objects {
            guard let objectID = id(object["id"]), let layout = model.layout(of: objectID.entityName) else { continue }
            var snapshot = ObjectSnapshot(objectID: objectID, version: (object["version"] as? Int64) ?? 1)
            let values = object["values"] as? [String: String] ?? [:]
            for attribute in layout.attributes {
                if let text = values[attribute.name] {
                    snapshot.attributes[attribute.name] = try? AttributeValue(parsing: text, as: attribute.type)
                }
            }
            let toOne = object["toOne"] as? [String: String] ?? [:]
            let toMany = object["toMany"] as? [String: [String]] ?? [:]
            for relationship in layout.relationships {
                if relationship.isToMany {
                    snapshot.toMany[relationship.name] = (toMany[relationship.name] ?? []).compactMap { id($0) }
                } else {
                    snapshot.toOne[relationship.name] = id(toOne[relationship.name])
                }
            }
            snapshots.append(snapshot)
        }
        return AtomicStoreContents(
            identifier: identifier, metadata: ["NSStoreType": .string(Self.typeName)], snapshots: snapshots)
    }

    public func prepareWrite(_ contents: AtomicStoreContents, model: ManagedObjectModel) throws(StoreError)
        -> any StoreTransaction
    {
        if Self.failNextWrite {
            Self.failNextWrite = false
            throw StoreError(.io, path: description.url?.path, "simulated write failure")
        }
        let ordered = contents.snapshots.sorted {
            ($0.objectID.entityName, $0.objectID.primaryKey) < ($1.objectID.entityName, $1.objectID.primaryKey)
        }
        let objects: [[String: Any]] = ordered.map { s in
            [
                "id": s.objectID.uriRepresentation.absoluteString, "version": s.version,
                "values": s.attributes.mapValues(\.literalText),
                "toOne": s.toOne.compactMapValues { $0?.uriRepresentation.absoluteString },
                "toMany": s.toMany.mapValues { $0.map(\.uriRepresentation.absoluteString) },
            ]
        }
        let url = description.url!
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        do {
            let data = try JSONSerialization.data(
                withJSONObject: ["uuid": contents.identifier, "objects": objects], options: [.sortedKeys])
            try data.write(to: temporary)
        } catch {
            throw StoreError(.io, path: url.path, "cannot write: \(error)")
        }
        return RenameTransaction(from: temporary, to: url)
    }

    struct RenameTransaction: StoreTransaction {
        let from: URL
        let to: URL
        func commit() throws(StoreError) {
            if rename(from.path, to.path) != 0 { throw StoreError(.io, path: to.path, "rename failed") }
        }
        func rollback() { try? FileManager.default.removeItem(at: from) }
    }
}
