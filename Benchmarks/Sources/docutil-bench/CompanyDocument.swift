import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// The company document of the speed issue: PEOPLE people (default 100,000) with 10 attributes each, a to-one
/// department, a to-one manager (a Manager, a sub-entity of Person) and a many-to-many `friends` (three each),
/// written as a new SQLite document. `docutil-bench company OUT.sqlite` makes it for `Benchmarks/cli-bench`.
enum CompanyDocument {
    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Department" representedClassName="Department" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="people" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="department" inverseEntity="Person"/>
            </entity>
            <entity name="Person" representedClassName="Person" syncable="YES">
                <attribute name="id" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="email" optional="YES" attributeType="String"/>
                <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="salary" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="bonus" optional="YES" attributeType="Decimal" defaultValueString="0"/>
                <attribute name="joined" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="active" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="badge" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="photo" optional="YES" attributeType="Binary"/>
                <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="people" inverseEntity="Department"/>
                <relationship name="manager" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Manager" inverseName="reports" inverseEntity="Manager"/>
                <relationship name="friends" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
            </entity>
            <entity name="Manager" representedClassName="Manager" parentEntity="Person" syncable="YES">
                <attribute name="level" optional="YES" attributeType="Integer 16" defaultValueString="1" usesScalarValueType="YES"/>
                <relationship name="reports" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="manager" inverseEntity="Person"/>
            </entity>
        </model>
        """

    /// `docutil-bench company OUT.sqlite`: writes the document (and `OUT`'s folder gets `Company.xcdatamodel`).
    static func make(_ output: URL) throws {
        let people = Int(ProcessInfo.processInfo.environment["PEOPLE"] ?? "") ?? 100_000
        let folder = output.deletingLastPathComponent().appendingPathComponent("Company.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(model.utf8).write(to: folder.appendingPathComponent("contents"))
        let loaded = try ModelLoader.load(from: folder)
        let document = try PersistentDocument(
            creatingAt: output, ofType: .sqlite, model: loaded.model, program: "docutil-bench")
        let context = document.managedObjectContext
        context.undoManager = nil
        var departments: [ManagedObject] = []
        for d in 0..<50 {
            let department = try context.insertNewObject(forEntityName: "Department")
            try department.setAttributeValue(.string("Department \(d)"), forKey: "name")
            departments.append(department)
        }
        var managers: [ManagedObject] = []
        var everyone: [ManagedObject] = []
        everyone.reserveCapacity(people)
        for i in 0..<people {
            let person = try context.insertNewObject(forEntityName: i % 100 == 0 ? "Manager" : "Person")
            try person.setAttributeValue(.integer64(Int64(i)), forKey: "id")
            try person.setAttributeValue(.string("Person \(i)"), forKey: "name")
            try person.setAttributeValue(.string("p\(i)@example.com"), forKey: "email")
            try person.setAttributeValue(.integer16(Int16(20 + i % 45)), forKey: "age")
            try person.setAttributeValue(.double(30_000 + Double(i % 70_000)), forKey: "salary")
            try person.setAttributeValue(.decimal(Decimal(i % 1000) / 10), forKey: "bonus")
            try person.setAttributeValue(
                .date(Date(timeIntervalSinceReferenceDate: Double(i) * 3600)), forKey: "joined")
            try person.setAttributeValue(.boolean(i % 3 != 0), forKey: "active")
            try person.setAttributeValue(.uuid(UUID()), forKey: "badge")
            if i % 10 == 0 {
                try person.setAttributeValue(.binary(Data(repeating: UInt8(i % 256), count: 64)), forKey: "photo")
            }
            try person.setObject(departments[i % departments.count], forKey: "department")
            if person.entity.name == "Manager" {
                managers.append(person)
            } else if let manager = managers.last {
                try person.setObject(manager, forKey: "manager")
            }
            everyone.append(person)
        }
        for (i, person) in everyone.enumerated() {
            let friends = try person.mutableObjects(forKey: "friends")
            for step in [1, 7, 31] where i + step < everyone.count { try friends.add(everyone[i + step]) }
        }
        try document.save()
        try document.close()
    }
}
