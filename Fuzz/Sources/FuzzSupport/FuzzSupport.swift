public import Foundation
public import ObjectGraph

/// What every fuzz target shares: a scratch file to hand readers that take paths, and a small model.
public enum FuzzSupport {
    /// A file in memory-backed storage (`/dev/shm` when it exists) for readers that take a path.
    public static func scratchFile(_ name: String) -> URL {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return URL(fileURLWithPath: base).appendingPathComponent("docutil-fuzz-\(getpid())-\(name)")
    }

    /// Writes `bytes` to the scratch file.
    public static func write(_ bytes: UnsafeRawBufferPointer, to url: URL) {
        // The harness itself failing (not an input) must stop the run, not test nothing.
        guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else {
            fatalError("fuzz harness: cannot write the scratch file \(url.path)")
        }
    }

    /// A model with every attribute type, inheritance, to-one, to-many and ordered relationships, and a composite.
    public static let model: ManagedObjectModel = {
        let point = CompositeDescription(
            name: "Point",
            attributes: [
                AttributeDescription(name: "x", type: .double), AttributeDescription(name: "y", type: .double),
            ])
        let attributes: [AttributeDescription] = [
            .init(name: "small", type: .integer16), .init(name: "medium", type: .integer32),
            .init(name: "large", type: .integer64), .init(name: "price", type: .decimal),
            .init(name: "ratio", type: .double), .init(name: "weight", type: .float),
            .init(name: "name", type: .string), .init(name: "flag", type: .boolean),
            .init(name: "created", type: .date), .init(name: "blob", type: .binary),
            .init(name: "uuid", type: .uuid), .init(name: "link", type: .uri),
            .init(name: "where", type: .composite, compositeName: "Point"),
            .init(name: "scratch", type: .string, isTransient: true),
        ]
        let item = EntityDescription(
            name: "Item", attributes: attributes,
            relationships: [
                RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
                RelationshipDescription(
                    name: "parts", destination: "Item", inverse: "whole", toMany: true, ordered: true),
                RelationshipDescription(name: "whole", destination: "Item", inverse: "parts"),
            ])
        let special = EntityDescription(
            name: "SpecialItem", parent: "Item", attributes: [.init(name: "reason", type: .string)])
        let owner = EntityDescription(
            name: "Owner", attributes: [.init(name: "name", type: .string)],
            relationships: [RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true)]
        )
        let tag = EntityDescription(
            name: "Tag", attributes: [.init(name: "label", type: .string)],
            relationships: [RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true)])
        do {
            return try ManagedObjectModel(entities: [item, special, owner, tag], composites: [point])
        } catch {
            fatalError("the fuzz model is invalid: \(error)")
        }
    }()

    /// Reads every object of a context's stores and every value of each, as `docutil dump` does; errors are fine.
    public static func readEverything(_ context: ManagedObjectContext) {
        for entity in context.model.entities where entity.parentName == nil {
            guard let objects = try? context.fetch(FetchRequest(entityName: entity.name)) else { continue }
            for object in objects {
                for attribute in object.entity.attributes {
                    _ = try? object.attributeValue(forKey: attribute.name)
                }
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        _ = try? object.objects(forKey: relationship.name).map(\.objectID.description)
                    } else {
                        _ = try? object.object(forKey: relationship.name)?.objectID.description
                    }
                }
            }
        }
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

extension FuzzSupport {
    /// Hands control to libFuzzer with the process's arguments.
    public static func runDriver(_ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, callback)
    }
}
