import CSQLite
import Documents
import Foundation
import ModelFiles
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing
import XMLStore

/// Apple's SQLite stores: every one opens, reading never changes it, and every object survives conversion.
struct SQLiteFixtureTests {
    static let stores = Fixtures.realFiles(in: "sqlite", suffix: ".sqlite")
    static let withModelCache = [
        "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_1.2.0.sqlite",
        "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_1.2.0_empty.sqlite",
        "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_2.0.0_empty.sqlite",
        "sqlite/richardpiazza__XCServerCoreData__Tests__XCServerCoreData_2.0.1.sqlite",
        "sqlite/carekit-apple__CareKit__SampleStore2.0.sqlite", "sqlite/carekit-apple__CareKit__SampleStore2.1.sqlite",
        "sqlite/bignerdranch__CoreDataStack__Sample_Model__Deprecated__TestModel.sqlite",
    ]

    @Test(.needsRealFixtures, arguments: stores)
    func everyStoreOpensAndCountsMatchTheTables(path: String) throws {
        let copy = try Fixtures.copySQLiteStore(path)
        let file = try SQLiteStoreFile(url: copy)
        // Counts equal what the tables hold.
        var total: Int64 = 0
        for (entity, count) in file.entityCounts { total += Int64(count); _ = entity }
        var tableRows: Int64 = 0
        for statement in try schemaStatements(copy)
        where statement.hasPrefix("CREATE TABLE Z") && !statement.hasPrefix("CREATE TABLE Z_") {
            let table = statement.dropFirst("CREATE TABLE ".count).prefix { $0 != " " && $0 != "(" }
            tableRows += try scalar(copy, "SELECT COUNT(*) FROM \(table)")
        }
        #expect(total == tableRows)
        #expect(file.metadata["NSStoreType"]?.string == "SQLite")
    }

    @Test(.needsRealFixtures, arguments: withModelCache)
    func dumpShowsEveryObjectAndValueAndNothingChanges(path: String) throws {
        let copy = try Fixtures.copySQLiteStore(path)
        let directory = copy.deletingLastPathComponent()
        let before = try Data(contentsOf: copy)
        let listing = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let document = try DocumentStack.open(copy)
        #expect(document.modelSource == "Z_MODELCACHE")
        var objects = 0
        var values = 0
        for entity in document.model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try document.context.fetch(request) {
                objects += 1
                for attribute in object.entity.attributes
                where try !object.attributeValue(forKey: attribute.name).isNull {
                    values += 1
                }
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        _ = try object.objects(forKey: relationship.name)
                    } else {
                        _ = try object.object(forKey: relationship.name)
                    }
                }
            }
        }
        // Reading changed nothing (checked before the queries below open the file themselves).
        #expect(try Data(contentsOf: copy) == before)
        let after = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(after == listing, "before: \(listing), after: \(after)")
        // What the tables hold: rows, and non-null attribute columns.
        var rows: Int64 = 0
        var cells: Int64 = 0
        for root in document.model.entities where root.parentName == nil {
            let table = "Z" + root.name.uppercased()
            rows += try scalar(copy, "SELECT COUNT(*) FROM \(table)")
            var columns = Set<String>()
            for name in document.model.entityAndDescendants(of: root.name) {
                for attribute in document.model.allAttributes(of: name) where !attribute.isTransient {
                    columns.insert("Z" + attribute.name.uppercased())
                }
            }
            for column in columns { cells += try scalar(copy, "SELECT COUNT(\(column)) FROM \(table)") }
        }
        #expect(Int64(objects) == rows)
        #expect(Int64(values) == cells)
    }

    @Test(.needsRealFixtures, arguments: withModelCache)
    func conversionToXMLAndBackKeepsEveryObject(path: String) throws {
        let copy = try Fixtures.copySQLiteStore(path)
        let directory = copy.deletingLastPathComponent()
        let original = try DocumentStack.open(copy)
        let expected = try Self.describe(original.context)
        try DocumentStack.convert(
            original, to: directory.appendingPathComponent("out.xml"), type: XMLStore.typeName, force: false)
        let xml = try DocumentStack.open(directory.appendingPathComponent("out.xml"))
        #expect(try Self.describe(xml.context) == expected)
        try DocumentStack.convert(
            xml, to: directory.appendingPathComponent("back.sqlite"), type: SQLiteStore.typeName, force: false)
        let back = try DocumentStack.open(directory.appendingPathComponent("back.sqlite"))
        #expect(back.modelSource == "embedded")
        #expect(try Self.describe(back.context) == expected)
    }

    /// Every object by entity with its values and the entities of its destinations (keys change in conversion).
    static func describe(_ context: ManagedObjectContext) throws -> [String] {
        var lines: [String] = []
        for entity in context.model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = [entity.name]
                for a in object.entity.attributes {
                    parts.append("\(a.name)=\(try object.attributeValue(forKey: a.name).debugText)")
                }
                for r in object.entity.relationships {
                    let destinations =
                        r.isToMany
                        ? try object.objects(forKey: r.name) : try object.object(forKey: r.name).map { [$0] } ?? []
                    parts.append("\(r.name)=\(destinations.count)")
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }
}
