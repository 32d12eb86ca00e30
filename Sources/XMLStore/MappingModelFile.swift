public import Foundation
import ModelFiles
public import ObjectGraph

/// An Xcode mapping model (`.xcmappingmodel`), read from its `xcmapping.xml`: a Core Data XML store of Xcode's own
/// editing objects — one `XDDevMappingModel` carrying an archived copy of the source and destination models, an
/// `XDDevEntityMapping` per entity mapping, and an `XDDevAttributeMapping` or `XDDevRelationshipMapping` per
/// property mapping.
///
/// Learned from the files (Xcode writes no documentation of them): an entity mapping keeps `sourcename`,
/// `destinationname`, `mappingtypename` (`Undefined` when Xcode made it: a transform between the two entities, an
/// add or a remove) and `migrationpolicyclassname`; its name is `SourceToDestination`. A property mapping keeps its
/// destination property's `name` and, when its value was edited, `valueexpressiondata` (an archived
/// `NSExpression`); a relationship mapping may instead keep `sourcekeypath` and `sourcemappingname`, which stand
/// for `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", sourcemappingname,
/// sourcekeypath)`. A property mapping with no expression takes the source property of the same name when the
/// source entity has one (what Xcode shows and compiles), and is left unset otherwise: see ``resolved(with:)``.
public struct MappingModelFile: Sendable {
    /// The `xcmapping.xml` that was read.
    public let url: URL
    /// The entity mappings, in the order the file lists them.
    public let mapping: MappingModel
    /// The source model the mapping was made with (the file keeps a copy).
    public let sourceModel: ManagedObjectModel?
    /// The destination model the mapping was made with.
    public let destinationModel: ManagedObjectModel?
    /// Where Xcode found the source model when the mapping was made (for messages).
    public let sourceModelPath: String?
    /// Where Xcode found the destination model.
    public let destinationModelPath: String?
    /// Parts of the file that could not be read but are not needed to run the mapping (a copy of a model in a form
    /// docutil does not read).
    public let warnings: [String]

    /// The mapping with the property mappings Xcode left without an expression filled in for `source` (the model
    /// the store was written with): a source property of the same name is taken (`$source.name`, or the
    /// destinations of the source relationship), and a property the source lacks is left unset.
    /// - Parameter source: the model the store was written with.
    /// - Returns: the mapping to run.
    public func resolved(with source: ManagedObjectModel) -> MappingModel {
        var resolved = mapping
        for index in resolved.entityMappings.indices {
            guard let name = resolved.entityMappings[index].sourceEntityName else { continue }
            let attributes = Set(source.allAttributes(of: name).map(\.name))
            let relationships = Set(source.allRelationships(of: name).map(\.name))
            for i in resolved.entityMappings[index].attributeMappings.indices {
                let property = resolved.entityMappings[index].attributeMappings[i]
                if property.valueExpression == nil, attributes.contains(property.name) {
                    resolved.entityMappings[index].attributeMappings[i].valueExpression = PropertyMapping.sourceValue(
                        property.name)
                }
            }
            for i in resolved.entityMappings[index].relationshipMappings.indices {
                let property = resolved.entityMappings[index].relationshipMappings[i]
                if property.valueExpression == nil, relationships.contains(property.name) {
                    resolved.entityMappings[index].relationshipMappings[i].valueExpression =
                        PropertyMapping.destinationsOfSourceRelationship(property.name)
                }
            }
        }
        return resolved
    }

    /// The attributes each kind of object may have; any other is an error (never silently ignored).
    static let knownAttributes: [String: Set<String>] = [
        "XDDEVMAPPINGMODEL": ["sourcemodeldata", "destinationmodeldata", "sourcemodelpath", "destinationmodelpath"],
        "XDDEVENTITYMAPPING": [
            "name", "sourcename", "destinationname", "mappingtypename", "mappingnumber", "migrationpolicyclassname",
            "autogenerateexpression",
        ],
        "XDDEVATTRIBUTEMAPPING": ["name", "valueexpressiondata", "autogenerateexpression"],
        "XDDEVRELATIONSHIPMAPPING": [
            "name", "valueexpressiondata", "autogenerateexpression", "sourcekeypath", "sourcemappingname",
        ],
    ]

    /// Reads a mapping model.
    /// - Parameter url: an `.xcmappingmodel` folder, or the `xcmapping.xml` file in one.
    /// - Throws: `StoreError`: `notFound` for a missing file, `corrupt` for a file that is not a mapping model or
    ///   holds something docutil does not read (named, with the line), `unsupported` for a compiled mapping model
    ///   (`.cdm`).
    public init(url: URL) throws(StoreError) {
        var file = url
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            file = url.appendingPathComponent("xcmapping.xml")
        }
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw StoreError(.notFound, path: file.path, "no such file (a mapping model is an .xcmappingmodel folder)")
        }
        let contents = try XMLStoreFile.contents(of: file)
        if file.pathExtension.lowercased() == "cdm" || contents.starts(with: Data("bplist".utf8)) {
            throw StoreError(
                .unsupported, path: file.path,
                "a compiled mapping model (.cdm) is not read yet: give the Xcode .xcmappingmodel it was compiled from")
        }
        let raw = try XMLStoreReader(path: file.path).read(contents)
        self.url = file
        var reader = Reader(raw: raw, path: file.path)
        let parsed = try reader.read()
        mapping = parsed.mapping
        sourceModel = parsed.sourceModel
        destinationModel = parsed.destinationModel
        sourceModelPath = parsed.sourcePath
        destinationModelPath = parsed.destinationPath
        warnings = reader.warnings
    }

    struct Reader {
        let raw: RawXMLStore
        let path: String
        var byID: [Int64: RawXMLStore.Object] = [:]
        var warnings: [String] = []

        init(raw: RawXMLStore, path: String) {
            self.raw = raw
            self.path = path
            for object in raw.objects { byID[object.id] = object }
        }

        func fail(_ object: RawXMLStore.Object?, _ message: String) -> StoreError {
            StoreError.xml(path, line: object?.line, message)
        }

        func attributes(of object: RawXMLStore.Object) throws(StoreError) -> [String: String] {
            let known = MappingModelFile.knownAttributes[object.type] ?? []
            var result: [String: String] = [:]
            for attribute in object.attributes {
                guard known.contains(attribute.name) else {
                    throw fail(
                        object,
                        "\(object.type) attribute '\(attribute.name)' is not one docutil reads; the mapping is refused rather than run without it"
                    )
                }
                result[attribute.name] = attribute.text
            }
            return result
        }

        func data(_ text: String, of object: RawXMLStore.Object, key: String) throws(StoreError) -> Data {
            guard let data = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
                throw fail(object, "\(key) is not base64 data")
            }
            return data
        }

        /// A copy of a model the file keeps; `nil` (with a warning) when it is in a form docutil does not read — the
        /// mapping runs with the models the user gives.
        mutating func model(_ text: String?, of object: RawXMLStore.Object, key: String) throws(StoreError)
            -> ManagedObjectModel?
        {
            guard let text, !text.isEmpty else { return nil }
            let bytes = try data(text, of: object, key: key)
            do {
                let (model, notes) = try ModelLoader.readArchivedModel(bytes)
                warnings += notes.map { "line \(object.line): the copy of a model in \(key): \($0)" }
                return model
            } catch {
                warnings.append("line \(object.line): the copy of a model in \(key) was not read: \(error)")
                return nil
            }
        }

        func expression(_ text: String?, of object: RawXMLStore.Object) throws(StoreError) -> ObjectExpression? {
            guard let text, !text.isEmpty else { return nil }
            let bytes = try data(text, of: object, key: "valueexpressiondata")
            do {
                return try ArchivedPredicate.decodeExpression(bytes)
            } catch {
                throw fail(object, "valueexpressiondata: \(error)")
            }
        }

        /// The objects a to-many reference of `object` names, in the file's order.
        func children(of object: RawXMLStore.Object, _ name: String) throws(StoreError) -> [RawXMLStore.Object] {
            guard let relationship = object.relationships.first(where: { $0.name == name }) else { return [] }
            var result: [RawXMLStore.Object] = []
            for ref in relationship.refs {
                guard let child = byID[ref] else {
                    throw fail(object, "\(name) names object z\(ref), which is missing")
                }
                result.append(child)
            }
            return result
        }

        mutating func read() throws(StoreError) -> (
            mapping: MappingModel, sourceModel: ManagedObjectModel?, destinationModel: ManagedObjectModel?,
            sourcePath: String?, destinationPath: String?
        ) {
            let models = raw.objects.filter { $0.type == "XDDEVMAPPINGMODEL" }
            guard models.count == 1, let root = models.first else {
                throw fail(
                    nil, "not an Xcode mapping model: expected one XDDevMappingModel object, found \(models.count)")
            }
            for object in raw.objects where MappingModelFile.knownAttributes[object.type] == nil {
                throw fail(object, "an object of type \(object.type), which a mapping model does not hold")
            }
            let rootAttributes = try attributes(of: root)
            let sourceModel = try model(rootAttributes["sourcemodeldata"], of: root, key: "sourcemodeldata")
            let destinationModel = try model(
                rootAttributes["destinationmodeldata"], of: root, key: "destinationmodeldata")
            var entityObjects = try children(of: root, "entitymappings")
            if entityObjects.isEmpty { entityObjects = raw.objects.filter { $0.type == "XDDEVENTITYMAPPING" } }
            var mappings: [EntityMapping] = []
            for object in entityObjects {
                mappings.append(try entityMapping(object))
            }
            return (
                MappingModel(entityMappings: mappings), sourceModel, destinationModel,
                rootAttributes["sourcemodelpath"], rootAttributes["destinationmodelpath"]
            )
        }

        func entityMapping(_ object: RawXMLStore.Object) throws(StoreError) -> EntityMapping {
            let values = try attributes(of: object)
            let source = values["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
            let destination = values["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
            let kind: EntityMappingKind
            switch values["mappingtypename"] ?? "Undefined" {
            case "Undefined":
                switch (source, destination) {
                case (_?, _?): kind = .transform
                case (nil, _?): kind = .add
                case (_?, nil): kind = .remove
                case (nil, nil): throw fail(object, "an entity mapping with neither a source nor a destination entity")
                }
            case let name:
                guard let known = EntityMappingKind(rawValue: name) else {
                    throw fail(object, "mapping type '\(name)' is not one Core Data defines")
                }
                kind = known
            }
            var attributeMappings: [PropertyMapping] = []
            for child in try children(of: object, "attributemappings") {
                let values = try attributes(of: child)
                guard let name = values["name"], !name.isEmpty else {
                    throw fail(child, "an attribute mapping without a name")
                }
                attributeMappings.append(
                    PropertyMapping(
                        name: name, valueExpression: try self.expression(values["valueexpressiondata"], of: child)))
            }
            var relationshipMappings: [PropertyMapping] = []
            for child in try children(of: object, "relationshipmappings") {
                let values = try attributes(of: child)
                guard let name = values["name"], !name.isEmpty else {
                    throw fail(child, "a relationship mapping without a name")
                }
                var expression = try self.expression(values["valueexpressiondata"], of: child)
                if expression == nil, let keyPath = values["sourcekeypath"], !keyPath.isEmpty {
                    let sources: ObjectExpression
                    do {
                        sources = try ObjectExpression(format: keyPath)
                    } catch {
                        throw fail(child, "sourcekeypath '\(keyPath)': \(error)")
                    }
                    if let mappingName = values["sourcemappingname"], !mappingName.isEmpty {
                        expression = PropertyMapping.destinations(ofEntityMapping: mappingName, for: sources)
                    } else {
                        expression = sources
                    }
                }
                relationshipMappings.append(PropertyMapping(name: name, valueExpression: expression))
            }
            let policy = values["migrationpolicyclassname"].flatMap { $0.isEmpty ? nil : $0 }
            return EntityMapping(
                name: values["name"].flatMap { $0.isEmpty ? nil : $0 }, kind: kind, sourceEntityName: source,
                destinationEntityName: destination, attributeMappings: attributeMappings,
                relationshipMappings: relationshipMappings, migrationPolicyClassName: policy)
        }
    }
}
