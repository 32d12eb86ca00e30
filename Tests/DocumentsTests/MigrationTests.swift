import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// Lightweight (inferred) migration with made-up models that exercise each rule, in every store type.
@Suite struct MigrationTests {
    static let version1 = """
        <entity name="Author" representedClassName="Author">
            <attribute name="name" attributeType="String"/>
            <attribute name="born" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
            <attribute name="nickname" optional="YES" attributeType="String"/>
            <attribute name="rating" optional="YES" attributeType="Float" usesScalarValueType="YES"/>
            <attribute name="shelfMark" optional="YES" attributeType="String"/>
            <attribute name="notes" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" attributeType="String"/>
            <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
        </entity>
        <entity name="Shelf" representedClassName="Shelf">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
        </entity>
        <entity name="Scratch" representedClassName="Scratch">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    /// Version 2: Author renamed Writer (renaming identifier); `born` widened to Integer 64; `rating` Float → Double;
    /// `nickname` renamed `alias`; `shelfMark` optional → required with a default; `notes` removed; new optional
    /// `email`, new `country` with a default; Book `author` renamed `writer`; Shelf `items` (to-many) kept and
    /// Book `shelf` made to-many `shelves` (to-one → to-many, renamed); Scratch removed; Tag added.
    static let version2 = """
        <entity name="Writer" representedClassName="Writer" elementID="Author">
            <attribute name="name" attributeType="String"/>
            <attribute name="born" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="alias" optional="YES" attributeType="String" elementID="nickname"/>
            <attribute name="rating" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="shelfMark" attributeType="String" defaultValueString="unshelved"/>
            <attribute name="email" optional="YES" attributeType="String"/>
            <attribute name="country" attributeType="String" defaultValueString="NZ"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="writer" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" attributeType="String"/>
            <attribute name="pages" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Writer" inverseName="books" inverseEntity="Writer" elementID="author"/>
            <relationship name="shelves" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf" elementID="shelf"/>
        </entity>
        <entity name="Shelf" representedClassName="Shelf">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelves" inverseEntity="Book"/>
        </entity>
        <entity name="Tag" representedClassName="Tag">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """

    static let objects:
        [(entity: String, key: Int64, values: [String: AttributeValue], links: [String: (String, Int64)])] =
            [
                (
                    "Author", 1,
                    [
                        "name": .string("Le Guin"), "born": .integer16(1929), "nickname": .string("Ursula"),
                        "rating": .float(4.5), "notes": .string("dropped"),
                    ], [:]
                ),
                ("Author", 2, ["name": .string("Tolstoy"), "shelfMark": .string("T-1"), "rating": .float(0.1)], [:]),
                (
                    "Book", 1, ["title": .string("Earthsea"), "pages": .integer32(200)],
                    ["author": ("Author", 1), "shelf": ("Shelf", 3)]
                ),
                (
                    "Book", 2, ["title": .string("War and Peace"), "pages": .integer32(1225)],
                    ["author": ("Author", 2), "shelf": ("Shelf", 3)]
                ),
                ("Book", 5, ["title": .string("The Dispossessed")], ["author": ("Author", 1)]),
                ("Shelf", 3, ["label": .string("Fiction")], [:]),
                ("Scratch", 1, ["text": .string("gone")], [:]),
            ]

    /// Both model versions, and a store of `type` written with version 1 holding ``objects``, with its bytes.
    static func versionOneStore(type: String) throws -> (
        old: ManagedObjectModel, new: ManagedObjectModel, folder: URL, source: URL, before: Data
    ) {
        let old = try MigrationSupport.model(version1)
        let new = try MigrationSupport.model(version2)
        let folder = try Fixtures.temporaryDirectory()
        let source = folder.appendingPathComponent("library.store")
        try MigrationSupport.writeStore(old, type: type, at: source, objects: objects)
        return (old, new, folder, source, try Data(contentsOf: source))
    }

    @Test(arguments: ["SQLite", "XML", "Binary"])
    func lightweightMigrationKeepsEveryValueThatSurvives(type: String) throws {
        let (old, new, folder, source, before) = try Self.versionOneStore(type: type)
        let mapping = try MappingModel.inferred(from: old, to: new)
        #expect(
            mapping.entityMappings.map {
                "\($0.kind.rawValue) \($0.sourceEntityName ?? "-")→\($0.destinationEntityName ?? "-")"
            }
                == [
                    "Transform Book→Book", "Transform Shelf→Shelf", "Add -→Tag", "Transform Author→Writer",
                    "Remove Scratch→-",
                ])

        let coordinator = PersistentStoreCoordinator(model: old)
        let store = try coordinator.addPersistentStore(type: type, url: source, options: ["readOnly": "YES"])
        let output = folder.appendingPathComponent("migrated.store")
        let result = try coordinator.migratePersistentStore(
            store, with: MigrationManager(sourceModel: old, destinationModel: new, mapping: mapping), to: output,
            type: type)
        store.close()
        #expect(result.dropped == ["Scratch": 1])
        #expect(try Data(contentsOf: source) == before)

        // The store numbered the objects when it was written; each keeps its number through the migration.
        let original = try MigrationSupport.contents(of: source)
        func key(_ entity: String, _ attribute: String, _ value: String) throws -> String {
            let found = original.filter { $0.key.hasPrefix(entity + "/") && $0.value[attribute] == "\"\(value)\"" }
            try #require(found.count == 1)
            return String(try #require(found.first).key.dropFirst(entity.count + 1))
        }
        let leGuin = "Writer/" + (try key("Author", "name", "Le Guin"))
        let tolstoy = "Writer/" + (try key("Author", "name", "Tolstoy"))
        let earthsea = "Book/" + (try key("Book", "title", "Earthsea"))
        let war = "Book/" + (try key("Book", "title", "War and Peace"))
        let dispossessed = "Book/" + (try key("Book", "title", "The Dispossessed"))
        let fiction = "Shelf/" + (try key("Shelf", "label", "Fiction"))
        func list(_ items: String...) -> String { "[" + items.sorted().joined(separator: ",") + "]" }

        let migrated = try MigrationSupport.contents(of: output)
        #expect(
            migrated[leGuin] == [
                "name": "\"Le Guin\"", "born": "1929", "alias": "\"Ursula\"", "rating": "4.5",
                "shelfMark": "\"unshelved\"", "email": "nil", "country": "\"NZ\"",
                "books": list(earthsea, dispossessed),
            ])
        #expect(migrated[tolstoy]?["shelfMark"] == "\"T-1\"")
        #expect(migrated[tolstoy]?["rating"] == "\(Double(Float(0.1)))")
        #expect(
            migrated[earthsea] == [
                "title": "\"Earthsea\"", "pages": "200", "writer": leGuin, "shelves": list(fiction),
            ])
        #expect(migrated[dispossessed]?["shelves"] == "[]")
        #expect(migrated[fiction] == ["label": "\"Fiction\"", "items": list(earthsea, war)])
        #expect(migrated.keys.sorted() == [earthsea, war, dispossessed, fiction, leGuin, tolstoy].sorted())

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: output)
        let sourceMetadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: source)
        #expect(metadata["NSStoreUUID"] == sourceMetadata["NSStoreUUID"])
        guard case .dictionary(let hashes)? = metadata["NSStoreModelVersionHashes"] else {
            Issue.record("no version hashes")
            return
        }
        #expect(hashes == new.entityVersionHashes.mapValues { .data($0) })
    }

    /// Each change inference can't make, alone, refused with the entity, property and reason.
    @Test(arguments: [
        (#"<attribute name="isbn" attributeType="String"/>"#, "Book", "isbn", "new, required and has no default"),
        (
            #"<attribute name="pages" attributeType="Integer 32" usesScalarValueType="YES"/>"#, "Book", "pages",
            "becomes required and has no default"
        ),
        (
            #"<attribute name="pages" optional="YES" attributeType="String"/>"#, "Book", "pages",
            "changes type from Integer 32 to String"
        ),
        (
            #"<attribute name="pages" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>"#, "Book",
            "pages",
            "changes type from Integer 32 to Integer 16"
        ),
        (
            #"<relationship name="editor" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf"/>"#, "Book",
            "editor",
            "new required relationship"
        ),
    ])
    func changesInferenceCantMakeAreRefused(property: String, entity: String, name: String, reason: String) throws {
        let old = try MigrationSupport.model(
            """
            <entity name="Book" representedClassName="Book">
                <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            </entity>
            <entity name="Shelf" representedClassName="Shelf"/>
            """)
        let new = try MigrationSupport.model(
            """
            <entity name="Book" representedClassName="Book">
                \(property.contains("\"pages\"") ? property : #"<attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>"# + property)
            </entity>
            <entity name="Shelf" representedClassName="Shelf"/>
            """)
        #expect(throws: MigrationError.self) { try MappingModel.inferred(from: old, to: new) }
        let problems = MappingModel.inferenceProblems(from: old, to: new)
        #expect(problems.count == 1)
        #expect(problems.first?.entity == entity)
        #expect(problems.first?.property == name)
        #expect(problems.first?.reason.contains(reason) == true, "\(problems)")
    }

    @Test func toManyBecomingToOneAndAnEntityBecomingAbstractAreRefused() throws {
        let old = try MigrationSupport.model(
            """
            <entity name="A" representedClassName="A">
                <relationship name="bs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="B"/>
            </entity>
            <entity name="B" representedClassName="B"/>
            """)
        let new = try MigrationSupport.model(
            """
            <entity name="A" representedClassName="A">
                <relationship name="bs" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B"/>
            </entity>
            <entity name="B" representedClassName="B" isAbstract="YES"/>
            """)
        let problems = MappingModel.inferenceProblems(from: old, to: new).map(\.description)
        #expect(problems.count == 2)
        #expect(problems.contains { $0.hasPrefix("A.bs: changes from to-many to to-one") })
        #expect(problems.contains { $0.hasPrefix("B: becomes abstract") })
    }

    /// A value that does not fit at run time (a mapping narrowing a number) stops the migration with the object
    /// named, and leaves the original byte-identical and no output behind — in place too.
    @Test(arguments: ["SQLite", "XML", "Binary"])
    func aFailedMigrationLeavesTheOriginalByteIdentical(type: String) throws {
        let (old, new, folder, source, before) = try Self.versionOneStore(type: type)
        var mapping = try MappingModel.inferred(from: old, to: new)
        let index = try #require(mapping.entityMappings.firstIndex { $0.destinationEntityName == "Book" })
        let pages = try #require(mapping.entityMappings[index].attributeMappings.firstIndex { $0.name == "pages" })
        mapping.entityMappings[index].attributeMappings[pages].valueExpression = try ObjectExpression(
            format: "$source.pages * 10000000000000000000")
        let coordinator = PersistentStoreCoordinator(model: old)
        let store = try coordinator.addPersistentStore(type: type, url: source, options: ["readOnly": "YES"])
        let manager = MigrationManager(sourceModel: old, destinationModel: new, mapping: mapping)
        let error = try #require(throws: MigrationError.self) {
            try coordinator.migratePersistentStore(store, with: manager, to: source, type: type)
        }
        #expect(error.code == .invalidObject)
        #expect(
            error.problems.contains { $0.entity == "Book" && $0.property == "pages" && $0.reason.contains("/Book/p") })
        store.close()
        #expect(try Data(contentsOf: source) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["library.store"])
    }
}
