import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// An object filled from values something else keeps (the row cache, an atomic store's objects) borrows their buffer,
/// and a save's snapshot of an object borrows the object's: each side must still see only its own state. A change
/// made in one context never reaches the stored values, another context's objects or the next save's snapshot
/// before it is saved, and relationships survive the object taking its own copy.
struct BorrowedValuesTests {
    static let storeTypes = ["InMemory", IncrementalTestStore.typeName]

    static func stack(_ type: String) throws -> PersistentStoreCoordinator {
        IncrementalTestStore.register()
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        try coordinator.addPersistentStore(type: type)
        return coordinator
    }

    static func employees(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(
            FetchRequest(entityName: "Employee", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
    }

    /// Each employee as "name salary department".
    static func describe(_ context: ManagedObjectContext) throws -> [String] {
        try employees(context).map { employee in
            let department = try employee.object(forKey: "department")
            let salary = try employee.attributeValue(forKey: "salary")
            guard case .integer32(let amount) = salary else { return "salary \(salary)" }
            return [
                try employee.attributeValue(forKey: "name").stringValue ?? "-", "\(amount)",
                try department?.attributeValue(forKey: "name").stringValue ?? "-",
            ].joined(separator: " ")
        }
    }

    @Test(arguments: storeTypes) func aChangeStaysInItsObjectUntilItIsSaved(type: String) throws {
        let coordinator = try Self.stack(type)
        let first = ManagedObjectContext(coordinator: coordinator)
        try Company.department("Sales", staff: ["Ann", "Bob"], in: first)
        try Company.department("Tech", staff: ["Cy"], in: first)
        try first.save()
        let stored = ["Ann 1000 Sales", "Bob 1000 Sales", "Cy 1000 Tech"]
        #expect(try Self.describe(ManagedObjectContext(coordinator: coordinator)) == stored)

        // The saved objects' values went to the store without a copy: changing them (unsaved) changes nothing stored.
        let ann = try #require(try Self.employees(first).first)
        try ann.setAttributeValue(.string("Ann B"), forKey: "name")
        try ann.setAttributeValue(.integer32(2000), forKey: "salary")
        #expect(try Self.describe(first).first == "Ann B 2000 Sales")
        let second = ManagedObjectContext(coordinator: coordinator)
        #expect(try Self.describe(second) == stored)

        // Objects filled from the same stored values, changed in another context: each sees its own.
        let bob = try #require(try Self.employees(second).dropFirst().first)
        try bob.setAttributeValue(.integer32(3000), forKey: "salary")
        let tech = try #require(
            try second.fetch(
                FetchRequest(entityName: "Department", predicate: ObjectPredicate(format: "name == 'Tech'"))
            )
            .first)
        try bob.setObject(tech, forKey: "department")
        #expect(try Self.describe(second)[1] == "Bob 3000 Tech")
        #expect(try Self.describe(first)[1] == "Bob 1000 Sales")
        #expect(try Self.describe(ManagedObjectContext(coordinator: coordinator)) == stored)

        // Rolled back: the values saved, read again; relationships as they were.
        first.rollback()
        #expect(try Self.describe(first) == stored)

        try second.save()
        let saved = ["Ann 1000 Sales", "Bob 3000 Tech", "Cy 1000 Tech"]
        #expect(try Self.describe(ManagedObjectContext(coordinator: coordinator)) == saved)
        // A change after a save (the saved snapshot shares the object's buffer until then) stays unsaved.
        try bob.setAttributeValue(.string("Bo"), forKey: "name")
        #expect(try Self.describe(ManagedObjectContext(coordinator: coordinator)) == saved)
        try second.save()
        #expect(
            try Self.describe(ManagedObjectContext(coordinator: coordinator))
                == ["Ann 1000 Sales", "Bo 3000 Tech", "Cy 1000 Tech"])
    }

    @Test(arguments: storeTypes) func anObjectThatGoesLetsGoOfWhatItPointedTo(type: String) throws {
        let coordinator = try Self.stack(type)
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
            try context.save()
        }
        weak var department: ManagedObject?
        weak var employee: ManagedObject?
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            let found = try Self.employees(context)
            // The to-one resolved: the employee's relationship slot holds the department (in a buffer the stored
            // values own).
            department = try found[0].object(forKey: "department")
            employee = found[0]
            #expect(department != nil)
        }
        // The coordinator (and what it keeps of the rows) lives on; the objects do not.
        #expect(employee == nil)
        #expect(department == nil)
        #expect(
            try Self.describe(ManagedObjectContext(coordinator: coordinator)) == ["Ann 1000 Sales", "Bob 1000 Sales"])
    }

    @Test func anObjectChangedAfterItsSaveKeepsItsRelationships() throws {
        let coordinator = try Self.stack("InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let sales = try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        // The department's buffer is the saved snapshot's; a change takes a copy and moves its relationships along.
        let ann = try #require(try Self.employees(context).first)
        try sales.setObject(ann, forKey: "manager")
        try sales.setAttributeValue(.string("Sales EU"), forKey: "name")
        #expect(try sales.object(forKey: "manager") === ann)
        #expect(try sales.objects(forKey: "employees").count == 2)
        try context.save()
        let fresh = ManagedObjectContext(coordinator: coordinator)
        let read = try #require(try fresh.fetch(FetchRequest(entityName: "Department")).first)
        #expect(try read.attributeValue(forKey: "name") == .string("Sales EU"))
        #expect(try read.object(forKey: "manager")?.attributeValue(forKey: "name") == .string("Ann"))
        #expect(try read.objects(forKey: "employees").count == 2)
    }
}
