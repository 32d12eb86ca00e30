import Foundation
import ModelFiles
import ObjectGraph

/// The contents of a Core Data XML file as written, before names are matched to a model: entity types upper-cased,
/// property names lower-cased, object ids as numbers.
struct RawXMLStore: Sendable {
    struct Attribute: Sendable {
        var name: String
        var type: String
        var text: String
    }

    struct Relationship: Sendable {
        var name: String
        var type: String
        var destination: String
        var refs: [Int64]
    }

    struct Object: Sendable {
        var type: String
        var id: Int64
        var line: Int
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        /// The attribute values by the slots of the object's entity, when they were decoded as the object was read
        /// (``attributes`` then holds only members of composites, decoded with the snapshot).
        var values: SlotValues?
    }

    var uuid: String?
    var version: String?
    var nextObjectID: Int64 = 0
    var metadata: [String: PropertyList] = [:]
    var objects: [Object] = []
}
