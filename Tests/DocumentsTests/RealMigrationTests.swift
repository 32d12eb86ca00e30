import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// Migration across every consecutive pair of versions of the versioned models in the shared fixtures, and a
/// mapping-model migration of Apple's own CareKit sample store compared with the store CareKit 2.1 wrote.
@Suite(.enabled(if: Fixtures.realAvailable, "../shared/fixtures/real is absent: real-file migration tests skipped"))
struct RealMigrationTests {
    /// Each versioned model in the fixtures: the prefix of its flattened `contents` files and its versions in order.
    static let series: [(prefix: String, versions: [String])] = [
        (
            "richardpiazza__XCServerCoreData__Resources__XCServerCoreData.xcdatamodeld__",
            [
                "XCServerCoreData", "XCServerCoreData1.1.0", "XCServerCoreData1.2.0", "XCServerCoreData2.0.0",
                "XCServerCoreData2.0.1", "XCServerCoreData2.0.2", "XCServerCoreData2.0.3",
            ]
        ),
        (
            "carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__",
            ["CareKitStore2.0", "CareKitStore2.1", "CareKitStore3.0"]
        ),
        (
            "alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld__",
            ["SampleModel", "SampleModel2", "SampleModel3"]
        ),
        (
            "duckduckgo__BrowserServicesKit__Sources__Bookmarks__BookmarksModel.xcdatamodeld__",
            ["BookmarksModel", "BookmarksModel_6"]
        ),
        ("atomicbird__momcom__momcomTests__momcomTests.xcdatamodeld__", ["momcTests", "momcTests_2"]),
        ("bignerdranch__CoreDataStack__Sample_Model__Deprecated__Sample.xcdatamodeld__", ["TestModel", "TestModel_2"]),
    ]

    static var pairs: [(String, String, String)] {
        series.flatMap { prefix, versions in zip(versions, versions.dropFirst()).map { (prefix, $0, $1) } }
    }

    static func model(_ prefix: String, _ version: String) throws -> ManagedObjectModel {
        try ModelLoader.readContents(
            try Data(contentsOf: Fixtures.real("xcdatamodel/\(prefix)\(version).xcdatamodel__contents.xml")))
    }

    /// The pairs inference refuses, and why (Apple's rules; each needs a mapping model).
    static let refused: [String: [String]] = [
        "XCServerCoreData1.2.0→XCServerCoreData2.0.0": [
            "Integration.endedTime: changes type from String to Date, which is not a widening lightweight migration can make",
            "Integration.queuedDate: changes type from String to Date, which is not a widening lightweight migration can make",
            "Integration.startedTime: changes type from String to Date, which is not a widening lightweight migration can make",
        ],
        // CareKit ships a mapping model (and a policy) for this step: see mappingModelMigrationOfCareKitsSampleStore.
        "CareKitStore2.0→CareKitStore2.1": [
            "OCKCDCarePlan.uuid: is new, required and has no default value",
            "OCKCDContact.uuid: is new, required and has no default value",
            "OCKCDHealthKitLinkage.task: pointed to OCKCDTask, whose objects become OCKCDTask, not OCKCDHealthKitTask",
            "OCKCDNote.task: changes from to-many to to-one, which lightweight migration can't make",
            "OCKCDOutcome.effectiveDate: is new, required and has no default value",
            "OCKCDOutcome.endDate: is new, required and has no default value",
            "OCKCDOutcome.id: is new, required and has no default value",
            "OCKCDOutcome.startDate: is new, required and has no default value",
            "OCKCDOutcome.uuid: is new, required and has no default value",
            "OCKCDPatient.uuid: is new, required and has no default value",
            "OCKCDTask.uuid: is new, required and has no default value",
        ],
    ]

    /// A value of every attribute type, different per object.
    static func value(_ type: AttributeType, _ n: Int64) -> AttributeValue? {
        switch type {
        case .integer16: .integer16(Int16(n))
        case .integer32: .integer32(Int32(n * 1000))
        case .integer64: .integer64(n * 1_000_000_000_000)
        case .decimal: .decimal(Decimal(string: "\(n).25") ?? 0)
        case .double: .double(Double(n) + 0.5)
        case .float: .float(Float(n) + 0.25)
        case .string: .string("text \(n)")
        case .boolean: .boolean(n % 2 == 0)
        case .date: .date(Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(n)))
        case .binary, .transformable: .binary(Data([0xC0, 0xDE, UInt8(n & 0xFF)]))
        case .uuid: .uuid(UUID(uuidString: "00000000-0000-0000-0000-0000000000\(String(format: "%02d", n % 100))")!)
        case .uri: .uri(URL(string: "https://example.com/\(n)")!)
        case .undefined, .objectID, .composite: nil
        }
    }

    /// Two objects of every concrete entity with a value in every attribute, each many-to-one relationship
    /// pointing at the first object of its destination.
    static func objects(for model: ManagedObjectModel) -> [(
        entity: String, key: Int64, values: [String: AttributeValue], links: [String: (String, Int64)]
    )] {
        let concrete = model.entities.filter { !$0.isAbstract }.map(\.name).sorted()
        var keys: [String: Int64] = [:]
        var objects: [(String, Int64, [String: AttributeValue], [String: (String, Int64)])] = []
        var first: [String: (String, Int64)] = [:]
        for entity in concrete {
            for _ in 0..<2 {
                let root = model.rootEntity(of: entity)
                let key = (keys[root] ?? 0) + 1
                keys[root] = key
                if first[entity] == nil { first[entity] = (entity, key) }
                var values: [String: AttributeValue] = [:]
                for attribute in model.allAttributes(of: entity) where !attribute.isTransient && !attribute.isDerived {
                    values[attribute.name] =
                        attribute.type == .transformable
                        ? .transformable(Data([0xC0, 0xDE, UInt8(key & 0xFF)])) : value(attribute.type, key)
                }
                objects.append((entity, key, values, [:]))
            }
        }
        for index in objects.indices {
            for relationship in model.allRelationships(of: objects[index].0)
            where !relationship.isToMany && !relationship.isTransient {
                guard
                    let target = concrete.first(where: {
                        model.entity($0, isKindOf: relationship.destinationEntityName)
                    }),
                    let destination = first[target]
                else { continue }
                guard let inverse = model.inverse(of: relationship) else {
                    objects[index].3[relationship.name] = destination
                    continue
                }
                let isFirst = first[objects[index].0]?.1 == objects[index].1
                let second = objects.first { $0.0 == target && $0.1 != destination.1 }.map { ($0.0, $0.1) }
                if inverse.isToMany {
                    // Each destination object gets one owner, so a to-many with a minimum count is satisfied.
                    objects[index].3[relationship.name] = isFirst ? destination : (second ?? destination)
                } else if !relationship.isOptional, inverse.isOptional || objects[index].0 <= target {
                    // One-to-one: the first object to the first, the second to the second (to each other within an
                    // entity); the other side is set from this one.
                    if target == objects[index].0 {
                        objects[index].3[relationship.name] = isFirst ? (second ?? destination) : destination
                    } else {
                        objects[index].3[relationship.name] = isFirst ? destination : (second ?? destination)
                    }
                }
            }
        }
        return objects.map { (entity: $0.0, key: $0.1, values: $0.2, links: $0.3) }
    }

    @Test(arguments: RealMigrationTests.pairs.map { "\($0.0)|\($0.1)|\($0.2)" })
    func everyConsecutivePairOfVersionsMigrates(pair: String) throws {
        let parts = pair.split(separator: "|").map(String.init)
        let old = try Self.model(parts[0], parts[1])
        let new = try Self.model(parts[0], parts[2])
        let name = "\(parts[1])→\(parts[2])"
        let problems = MappingModel.inferenceProblems(from: old, to: new).map(\.description)
        #expect(problems == (Self.refused[name] ?? []), "\(name)")
        guard problems.isEmpty else { return }
        let mapping = try MappingModel.inferred(from: old, to: new)
        let entityNames = Dictionary(
            mapping.entityMappings.compactMap { m in
                m.sourceEntityName.flatMap { s in m.destinationEntityName.map { (s, $0) } }
            },
            uniquingKeysWith: { a, _ in a })
        func renamed(_ text: String) -> String {
            var result = text
            for (source, destination) in entityNames where source != destination {
                result = result.replacingOccurrences(of: "\(source)/p", with: "\(destination)/p")
            }
            return result
        }
        for type in ["SQLite", "XML", "Binary"] {
            let folder = try Fixtures.temporaryDirectory()
            let source = folder.appendingPathComponent("old.store")
            try MigrationSupport.writeStore(old, type: type, at: source, objects: Self.objects(for: old))
            let before = try MigrationSupport.contents(of: source)
            let coordinator = PersistentStoreCoordinator(model: old)
            let store = try coordinator.addPersistentStore(type: type, url: source, options: ["readOnly": "YES"])
            let output = folder.appendingPathComponent("new.store")
            // Made-up data can't satisfy every rule of every model (a to-many with a minimum count into a
            // hierarchy); where the source itself breaks a rule, the migration must refuse, naming only those.
            let broken = Set(
                try DocumentCheck.check(source).problems.filter {
                    $0.kind == .validation && $0.detail.contains("required")
                }.map {
                    "\($0.object.split(separator: "/").dropLast().last ?? "").\($0.key ?? "")"
                })
            let manager = MigrationManager(sourceModel: old, destinationModel: new, mapping: mapping)
            do {
                _ = try coordinator.migratePersistentStore(store, with: manager, to: output, type: type)
            } catch let error as MigrationError {
                store.close()
                #expect(!broken.isEmpty, "\(name) \(type): \(error)")
                for problem in error.problems where problem.entity != "…" {
                    #expect(
                        broken.contains("\(problem.entity).\(problem.property ?? "")"), "\(name) \(type): \(problem)")
                }
                continue
            }
            store.close()
            #expect(broken.isEmpty, "\(name) \(type): the source breaks rules the migration let through: \(broken)")
            let after = try MigrationSupport.contents(of: output)
            var compared = 0
            for entityMapping in mapping.entityMappings {
                guard let from = entityMapping.sourceEntityName, let to = entityMapping.destinationEntityName,
                    entityMapping.kind != .add, entityMapping.kind != .remove
                else { continue }
                for (key, values) in before where key.hasPrefix(from + "/p") {
                    let migrated = after[to + key.dropFirst(from.count)]
                    try #require(migrated != nil, "\(name) \(type): \(key) was not migrated")
                    for property in entityMapping.attributeMappings {
                        let attribute = try #require(new.allAttributes(of: to).first { $0.name == property.name })
                        if case .keyPath(.variable("source"), let path)? = property.valueExpression,
                            let sourceAttribute = old.allAttributes(of: from).first(where: { $0.name == path[0] })
                        {
                            if sourceAttribute.type == attribute.type {
                                #expect(
                                    migrated?[property.name] == values[path[0]],
                                    "\(name) \(type) \(key).\(property.name)")
                            } else {
                                #expect((migrated?[property.name] == "nil") == (values[path[0]] == "nil"))
                            }
                        } else {
                            let expected =
                                attribute.defaultValue.isNull
                                ? "nil" : MigrationSupport.text(PredicateValue(attribute.defaultValue))
                            #expect(
                                migrated?[property.name] == expected, "\(name) \(type) \(key).\(property.name) (new)")
                        }
                        compared += 1
                    }
                    for property in entityMapping.relationshipMappings {
                        guard case .methodCall(_, _, let arguments)? = property.valueExpression,
                            case .keyPath(_, let path) = arguments[1], let sourceValue = values[path[0]]
                        else { continue }
                        var expected = renamed(sourceValue)
                        if !expected.hasPrefix("["), migrated?[property.name]?.hasPrefix("[") == true {
                            expected = expected == "nil" ? "[]" : "[\(expected)]"
                        }
                        #expect(migrated?[property.name] == expected, "\(name) \(type) \(key).\(property.name)")
                        compared += 1
                    }
                }
            }
            #expect(compared > 0, "\(name) \(type): nothing was compared")
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: output)
            #expect(
                metadata["NSStoreModelVersionHashes"] == .dictionary(new.entityVersionHashes.mapValues { .data($0) }))
        }
    }

    /// Apple's CareKit sample store, written by CareKit 2.0, migrated to the 2.1 model with CareKit's own mapping
    /// model and no migration policy registered, compared object by object with the store CareKit 2.1 wrote for the
    /// same sample data: every value matches but those the policy (which is not run) or CareKit 2.1 itself sets.
    @Test func mappingModelMigrationOfCareKitsSampleStore() throws {
        let folder = try Fixtures.temporaryDirectory()
        let source = try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.0.sqlite")
        let model = folder.appendingPathComponent("CareKitStore2.1.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.real(
                "xcdatamodel/carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__CareKitStore2.1.xcdatamodel__contents.xml"
            ), to: model.appendingPathComponent("contents"))
        let mapping = Fixtures.real("xmlstore/carekit-apple__CareKit__2.0_2.1_Mapping.xcmappingmodel__xcmapping.xml")
        let before = try Data(contentsOf: source)
        let output = folder.appendingPathComponent("migrated.sqlite")
        let report = try DocumentMigration.migrate(source, model: model, mapping: mapping, output: output)
        #expect(try Data(contentsOf: source) == before)
        #expect(
            report.warnings.contains {
                $0.contains("CareKitStore.OCKStoreMigration2_0To2_1Policy, which is not registered")
            })
        #expect(report.result?.counts["OCKCDTaskToOCKCDTask"] == 3)
        #expect(report.result?.counts["OCKCDOutcomeToOCKCDOutcome"] == 3)
        #expect(report.result?.counts["OCKCDContactToOCKCDContact"] == 2)
        #expect(report.result?.counts["OCKCDScheduleElementToOCKCDScheduleElement"] == 4)

        let apple = try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.1.sqlite")
        let ours = try DocumentStack.open(output)
        let theirs = try DocumentStack.open(apple)
        let difference = try DocumentDiff.compare(
            ours, theirs, keys: ["OCKCDContact": "id", "OCKCDTask": "id", "OCKCDOutcome": "taskOccurrenceIndex"])
        // What the policy sets (uuid, the outcome's id and dates), what CareKit 2.1 writes itself (schemaVersion,
        // knowledge elements, a clock); nothing else differs.
        let expected: [String: Set<String>] = [
            "OCKCDContact": ["uuid", "schemaVersion", "knowledge"],
            "OCKCDTask": ["uuid", "schemaVersion", "knowledge"],
            "OCKCDOutcome": ["uuid", "schemaVersion", "knowledge", "id", "startDate", "endDate", "effectiveDate"],
        ]
        #expect(difference.onlyInA.isEmpty)
        #expect(Set(difference.onlyInB.map(\.entityName)) == ["OCKCDKnowledgeElement", "OCKCDClock"])
        #expect(difference.changed.count == 8)
        for change in difference.changed {
            let keys = Set(change.changes.map(\.key))
            #expect(keys.isSubset(of: expected[change.a.entityName] ?? []), "\(change.a): \(keys)")
        }
    }

    /// Apple's CareKit 2.0 sample store opened with the 2.1 model: read with its own model when read-only; refused
    /// (every reason) when opened to write without a mapping model; migrated in place with CareKit's.
    @Test func openingCareKitsSampleStoreWithTheNewerModel() throws {
        let source = try Fixtures.copySQLiteStore("sqlite/carekit-apple__CareKit__SampleStore2.0.sqlite")
        let modelURL = Fixtures.real(
            "xcdatamodel/carekit-apple__CareKit__CareKitStore__CareKitStore__CoreData__CareKitStore.xcdatamodeld__CareKitStore2.1.xcdatamodel__contents.xml"
        )
        let model = try ModelLoader.load(from: modelURL).model
        let before = try Data(contentsOf: source)

        let inspected = try DocumentStack.open(source, model: modelURL)
        #expect(inspected.modelSource == "written")
        #expect(inspected.warnings.contains { $0.contains("the document's own model (Z_MODELCACHE)") })
        #expect(try inspected.context.count(for: FetchRequest(entityName: "OCKCDTask")) == 3)
        inspected.store.close()

        let error = try #require(throws: DocumentError.self) {
            try PersistentDocument(contentsOf: source, model: model)
        }
        #expect(error.code == .badData)
        #expect(error.message.contains("OCKCDNote.task: changes from to-many to to-one"))
        #expect(try Data(contentsOf: source) == before)

        let mapping = Fixtures.real("xmlstore/carekit-apple__CareKit__2.0_2.1_Mapping.xcmappingmodel__xcmapping.xml")
        let document = try PersistentDocument(
            contentsOf: source, model: model, migration: DocumentMigrationOptions(mappingModel: mapping))
        #expect(document.migratedFrom == "the document's own model (Z_MODELCACHE)")
        #expect(document.warnings.contains { $0.contains("OCKStoreMigration2_0To2_1Policy, which is not registered") })
        #expect(try document.managedObjectContext.count(for: FetchRequest(entityName: "OCKCDTask")) == 3)
        #expect(try document.managedObjectContext.count(for: FetchRequest(entityName: "OCKCDOutcome")) == 3)
        try document.close()
        let reopened = try PersistentDocument(contentsOf: source, model: model)
        #expect(reopened.migratedFrom == nil)
        #expect(reopened.modelSource == "given")
        try reopened.close()
    }

    static let coreDataPlusPrefix = "alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld__"
    static let coreDataPlusMapping = Fixtures.real(
        "xmlstore/alemar11__CoreDataPlus__Tests__Resources__SampleModel__MappingModels__V2toV3.xcmappingmodel__xcmapping.xml"
    )

    /// A folder with CoreDataPlus's SampleModel3 as an `.xcdatamodel`, and its SampleModel2 (the version a store is
    /// written with before migrating with ``coreDataPlusMapping``).
    static func coreDataPlusModels() throws -> (folder: URL, old: ManagedObjectModel, new: URL) {
        let folder = try Fixtures.temporaryDirectory()
        let model = folder.appendingPathComponent("SampleModel3.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.real("xcdatamodel/\(coreDataPlusPrefix)SampleModel3.xcdatamodel__contents.xml"),
            to: model.appendingPathComponent("contents"))
        return (folder, try Self.model(coreDataPlusPrefix, "SampleModel2"), model)
    }

    /// CoreDataPlus's V2→V3 mapping model with the SampleModel2 and SampleModel3 versions it was made for, on a
    /// SampleModel2 store in each store type: checked object by object (its policy, which makes Maker objects from
    /// the cars' maker names, is not registered: the default behaviour runs, and Maker stays empty).
    @Test(arguments: ["SQLite", "XML", "Binary"])
    func mappingModelMigrationOfCoreDataPlusSampleModel(type: String) throws {
        let (folder, old, model) = try Self.coreDataPlusModels()
        let source = folder.appendingPathComponent("old.store")
        try MigrationSupport.writeStore(old, type: type, at: source, objects: Self.objects(for: old))
        let mapping = Self.coreDataPlusMapping
        let before = try MigrationSupport.contents(of: source)
        let output = folder.appendingPathComponent("new.store")
        let report = try DocumentMigration.migrate(source, model: model, mapping: mapping, output: output)
        #expect(report.sourceModelDescription == "the mapping model's source model")
        #expect(
            report.warnings.contains {
                $0.contains(
                    "names the migration policy class REPLACE_AT_RUNTIME.V2to3MakerPolicy, which is not registered")
            })
        let after = try MigrationSupport.contents(of: output)
        #expect(Set(after.keys) == Set(before.keys))
        for (uri, old) in before {
            let new = try #require(after[uri])
            let entity = String(uri.prefix { $0 != "/" })
            for (key, value) in old where key != "maker" {
                #expect(new[key] == value, "\(uri).\(key)")
            }
            if entity == "Person" {
                // previousCars ← the destinations of the person's cars.
                #expect(new["previousCars"] == old["cars"], "\(uri)")
            } else {
                // Every car: previousOwners ← its owner (through PersonToPerson); maker dropped; createdBy new.
                #expect(new["maker"] == nil)
                #expect(new["previousOwners"] == "[\(old["owner"] ?? "")]", "\(uri)")
                #expect(new["createdBy"] == "nil", "\(uri)")
            }
        }
        #expect(!after.keys.contains { $0.hasPrefix("Maker/") })
    }

    /// CoreDataPlus's V2→V3 policy, written for docutil: one Maker per maker name, each car's createdBy set to it
    /// (the inverse, Maker.cars, is completed by the migration).
    struct MakerPolicy: EntityMigrationPolicy {
        func destinationValues(
            for source: MigrationSourceObject, mapping: EntityMapping, proposed: [String: AttributeValue]
        ) throws -> [[String: AttributeValue]] { [proposed] }

        func createRelationships(
            for source: MigrationSourceObject, mapping: EntityMapping, in destination: MigrationDestination
        ) throws {
            guard case .string(let name) = try source.predicateValue(forKey: "maker") else { return }
            let maker =
                try destination.objects(entityName: "Maker", whereKey: "name", equals: .string(name)).first
                ?? destination.insert(entityName: "Maker", values: ["name": .string(name)])
            for car in destination.objectsMadeFromSource { try destination.link(car, "createdBy", to: maker) }
        }
    }

    @Test func aRegisteredPolicyMakesObjectsOfAnotherEntity() throws {
        let (folder, old, model) = try Self.coreDataPlusModels()
        let source = folder.appendingPathComponent("old.sqlite")
        var objects = Self.objects(for: old)
        // Two cars share a maker: one Maker object for both.
        for index in objects.indices where objects[index].entity == "SportCar" {
            objects[index].values["maker"] = .string("Ferrari")
        }
        try MigrationSupport.writeStore(old, type: "SQLite", at: source, objects: objects)
        let mapping = Self.coreDataPlusMapping
        let output = folder.appendingPathComponent("new.sqlite")
        let report = try DocumentMigration.migrate(
            source, model: model, mapping: mapping, output: output,
            policies: ["REPLACE_AT_RUNTIME.V2to3MakerPolicy": MakerPolicy()])
        #expect(!report.warnings.contains { $0.contains("not registered") })
        let before = try MigrationSupport.contents(of: source)
        let after = try MigrationSupport.contents(of: output)
        let makers = after.filter { $0.key.hasPrefix("Maker/") }
        let cars = before.filter { !$0.key.hasPrefix("Person/") }
        #expect(makers.count == Set(cars.values.compactMap { $0["maker"] }).count)
        for (uri, old) in cars {
            let created = try #require(after[uri]?["createdBy"])
            let maker = try #require(makers[created], "\(uri) → \(created)")
            #expect(maker["name"] == old["maker"], "\(uri)")
            #expect(maker["cars"]?.contains(uri) == true, "\(uri)")
        }
    }
}
