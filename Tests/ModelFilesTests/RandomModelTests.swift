import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// Random models with every feature an attribute, relationship and entity can have (default values and bounds of
/// every type from across its range, patterns and user info with markup and line breaks, inheritance, counts, rules,
/// renaming identifiers, hash modifiers, indexes and constraints), written as an Xcode model and read back: the same
/// model, with the same version hashes, written again byte for byte the same.
struct RandomModelTests {
    static let types: [AttributeType] = [
        .integer16, .integer32, .integer64, .double, .float, .decimal, .string, .boolean, .date, .binary, .uuid, .uri,
        .transformable,
    ]
    static let texts = [
        "plain", "a <b> & \"c\"", "line\nbreak", "tab\there", "'single'", "日本語", "😀", "]]>", "trailing ", " lead",
        "a\r\nb", "back\\slash", "{curly}", "$var", "%@",
    ]

    /// A value of `type` from across its range (nil when the type has no such value in a model).
    static func value(_ type: AttributeType, _ random: inout RandomGraph.Generator) -> AttributeValue? {
        switch type {
        case .integer16: return .integer16(Int16(truncatingIfNeeded: random.next()))
        case .integer32: return .integer32(Int32(truncatingIfNeeded: random.next()))
        case .integer64:
            return .integer64([.min, .max, 0, Int64(bitPattern: random.next())].randomElement(using: &random)!)
        case .double:
            let d = [0.1, -2.5, 1e300, 5e-324, 1.0 / 3, Double(bitPattern: random.next())].randomElement(
                using: &random)!
            return d.isNaN ? .double(0.5) : .double(d)
        case .float:
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            return .float(f.isNaN ? 0.25 : f)
        case .decimal:
            return .decimal(
                Decimal(
                    sign: Bool.random(using: &random) ? .minus : .plus,
                    exponent: Int.random(in: -10...10, using: &random),
                    significand: Decimal(Int.random(in: 0...999_999_999, using: &random))))
        case .string: return .string(texts.randomElement(using: &random)!)
        case .boolean: return .boolean(Bool.random(using: &random))
        case .date:
            return .date(
                Date(
                    timeIntervalSinceReferenceDate: Double(
                        Int.random(in: -1_000_000_000...1_000_000_000, using: &random))
                        + [0, 0.5, 0.001].randomElement(using: &random)!))
        case .uuid:
            let (a, b) = (random.next(), random.next())
            return .uuid(withUnsafeBytes(of: (a, b)) { UUID(uuid: $0.load(as: uuid_t.self)) })
        case .uri: return .uri(URL(string: "https://example.com/a?b=1&c=%20")!)
        default: return nil
        }
    }

    static func model(_ random: inout RandomGraph.Generator) throws -> ManagedObjectModel {
        let names = (0..<Int.random(in: 1...5, using: &random)).map { "Entity\($0)" }
        var entities: [EntityDescription] = []
        for (index, name) in names.enumerated() {
            var attributes: [AttributeDescription] = []
            for a in 0..<Int.random(in: 0...6, using: &random) {
                let type = types.randomElement(using: &random)!
                var attribute = AttributeDescription(name: "\(name.lowercased())Attribute\(a)", type: type)
                attribute.isOptional = Bool.random(using: &random)
                attribute.isTransient = Int.random(in: 0..<5, using: &random) == 0
                if Bool.random(using: &random), let value = value(type, &random) { attribute.defaultValue = value }
                if [.integer16, .integer32, .integer64, .double, .float, .decimal, .date].contains(type),
                    Bool.random(using: &random)
                {
                    attribute.validation.minimumValue = value(type, &random)
                    if Bool.random(using: &random) { attribute.validation.maximumValue = value(type, &random) }
                }
                if type == .string, Bool.random(using: &random) {
                    attribute.validation.minimumLength = Int.random(in: 0...3, using: &random)
                    attribute.validation.maximumLength = Int.random(in: 4...100, using: &random)
                    if Bool.random(using: &random) {
                        attribute.validation.regularExpression = ["^[a-z]+$", "a|b", "<x>&\"y\"", "\\d{2,}"]
                            .randomElement(using: &random)!
                    }
                }
                if type == .binary { attribute.allowsExternalBinaryDataStorage = Bool.random(using: &random) }
                if type == .transformable, Bool.random(using: &random) {
                    attribute.valueTransformerName = "NSSecureUnarchiveFromData"
                    attribute.customClassName = "NSArray"
                }
                attribute.isIndexed = !attribute.isTransient && Int.random(in: 0..<4, using: &random) == 0
                attribute.preservesValueInHistoryOnDeletion = Int.random(in: 0..<4, using: &random) == 0
                if Bool.random(using: &random) {
                    attribute.userInfo = [texts.randomElement(using: &random)!: texts.randomElement(using: &random)!]
                }
                if Int.random(in: 0..<4, using: &random) == 0 { attribute.renamingIdentifier = "old\(a)" }
                if Int.random(in: 0..<5, using: &random) == 0 {
                    attribute.versionHashModifier = texts.randomElement(using: &random)!
                }
                attributes.append(attribute)
            }
            var entity = EntityDescription(name: name, attributes: attributes)
            if index > 0, Int.random(in: 0..<3, using: &random) == 0 {
                entity.parentName = names[Int.random(in: 0..<index, using: &random)]
            }
            entity.isAbstract = Int.random(in: 0..<6, using: &random) == 0
            if Bool.random(using: &random) { entity.className = "\(name)Class" }
            if Int.random(in: 0..<4, using: &random) == 0 {
                entity.userInfo = [texts.randomElement(using: &random)!: texts.randomElement(using: &random)!]
            }
            if Int.random(in: 0..<5, using: &random) == 0 { entity.renamingIdentifier = "Old\(name)" }
            if Int.random(in: 0..<5, using: &random) == 0 {
                entity.versionHashModifier = texts.randomElement(using: &random)!
            }
            let stored = attributes.filter { !$0.isTransient }.map(\.name)
            if let first = stored.first, Int.random(in: 0..<3, using: &random) == 0 {
                entity.uniquenessConstraints = [[first]]
                entity.compoundIndexes = [Array(stored.prefix(2))]
            }
            entities.append(entity)
        }
        // Relationships in pairs (each with its inverse), of every shape and rule.
        for r in 0..<Int.random(in: 0...6, using: &random) {
            let a = Int.random(in: 0..<entities.count, using: &random)
            let b = Int.random(in: 0..<entities.count, using: &random)
            let forward = "link\(r)"
            let backward = "backLink\(r)"
            func make(_ name: String, to destination: Int, inverse: String) -> RelationshipDescription {
                let toMany = Bool.random(using: &random)
                var relationship = RelationshipDescription(
                    name: name, destination: entities[destination].name, inverse: inverse, toMany: toMany,
                    ordered: toMany && Bool.random(using: &random),
                    deleteRule: DeleteRule.allCases.randomElement(using: &random)!)
                if toMany, Bool.random(using: &random) {
                    relationship.minCount = Int.random(in: 0...2, using: &random)
                    relationship.maxCount = Int.random(in: 3...9, using: &random)
                }
                relationship.isOptional = Bool.random(using: &random)
                if Int.random(in: 0..<4, using: &random) == 0 { relationship.renamingIdentifier = "old\(name)" }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    relationship.userInfo = [texts.randomElement(using: &random)!: "v"]
                }
                return relationship
            }
            entities[a].relationships.append(make(forward, to: b, inverse: backward))
            entities[b].relationships.append(make(backward, to: a, inverse: forward))
        }
        return try ManagedObjectModel(entities: entities)
    }

    @Test func randomModelsComeBackFromAnXcodeModelUnchanged() throws {
        var tried = 0
        for seed in UInt64(1)...40 {
            var random = RandomGraph.Generator(state: seed &* 2_654_435_761)
            let model: ManagedObjectModel
            do {
                model = try Self.model(&random)
            } catch {
                continue  // (a random model the model itself refuses: not what this test is about)
            }
            tried += 1
            let written = try XcodeModelWriter.contents(of: model)
            let reread = try ModelLoader.readContents(Data(written.utf8))
            #expect(reread == model, "seed \(seed)")
            if reread != model {
                for (a, b) in zip(model.entities, reread.entities) where a != b {
                    for (x, y) in zip(a.attributes, b.attributes) where x != y {
                        print("seed \(seed): \(a.name).\(x.name):\n  \(x)\n  \(y)")
                    }
                    for (x, y) in zip(a.relationships, b.relationships) where x != y {
                        print("seed \(seed): \(a.name).\(x.name):\n  \(x)\n  \(y)")
                    }
                    if a.attributes == b.attributes && a.relationships == b.relationships {
                        print("seed \(seed): \(a.name):\n  \(a)\n  \(b)")
                    }
                }
            }
            #expect(reread.entityVersionHashes == model.entityVersionHashes, "seed \(seed): version hashes")
            #expect(try XcodeModelWriter.contents(of: reread) == written, "seed \(seed): written again")
        }
        #expect(tried > 20)
    }
}
