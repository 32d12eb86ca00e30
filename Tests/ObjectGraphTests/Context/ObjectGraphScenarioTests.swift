import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

struct DeleteRuleTests {
    @Test func cascadeDeletesTheEmployees() throws {
        let context = try Company.context(departmentRule: .cascade)
        let sales = try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try Company.department("IT", staff: ["Cid"], in: context)
        try context.save()
        context.delete(sales)
        context.processPendingChanges()
        #expect(context.deletedObjects.count == 3)
        try context.save()
        #expect(try Company.names(context, "Employee") == ["Cid"])
        #expect(try Company.names(context, "Department") == ["IT"])
    }

    @Test func nullifyKeepsTheEmployeesWithoutDepartment() throws {
        let context = try Company.context(departmentRule: .nullify)
        let sales = try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        let ann = try #require(
            context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Ann'")))
                .first)
        #expect(try ann.object(forKey: "department") === sales)
        context.delete(sales)
        try context.save()
        #expect(try Company.names(context, "Employee") == ["Ann", "Bob"])
        #expect(try ann.object(forKey: "department") == nil)
        // Another context reads the nullified relationship from the store.
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let stored = try other.fetch(FetchRequest(entityName: "Employee"))
        #expect(try stored.allSatisfy { try $0.object(forKey: "department") == nil })
    }

    @Test func denyFailsTheSaveAndChangesNothing() throws {
        let context = try Company.context(departmentRule: .deny)
        let sales = try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        context.delete(sales)
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.validationErrors.map(\.code) == [.deleteDenied])
        #expect(error.validationErrors.first?.key == "employees")
        // Nothing reached the store.
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try Company.names(other, "Department") == ["Sales"])
        // Removing the employees first makes the delete legal.
        context.rollback()
        for employee in try sales.objects(forKey: "employees") { context.delete(employee) }
        context.delete(sales)
        try context.save()
        #expect(try Company.names(other, "Department") == [])
    }

    @Test func noActionLeavesTheInverseAlone() throws {
        let context = try Company.context(departmentRule: .noAction)
        let sales = try Company.department("Sales", staff: ["Ann"], in: context)
        let ann = try sales.objects(forKey: "employees")[0]
        context.delete(sales)
        context.processPendingChanges()
        #expect(try ann.object(forKey: "department") === sales)
    }

    /// Deleting an object reads only the relationships a rule acts on: a No Action or Deny to-many is left as the
    /// store gave it (a save's check reads a Deny one).
    @Test(arguments: [DeleteRule.noAction, .deny])
    func aDeleteLeavesUnreadWhatItsRulesDoNotTouch(rule: DeleteRule) throws {
        let context = try Company.context(departmentRule: rule)
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        let sales = try #require(try other.fetch(FetchRequest(entityName: "Department")).first)
        let slot = try #require(sales.entity.relationshipIndex["employees"])
        other.delete(sales)
        other.processPendingChanges()
        if case .toMany = sales.relationshipSlots[slot] { Issue.record("employees was read by the delete") }
        #expect(sales.loadedRelationshipCount(slot) == 1)
    }

    /// Deleting many members of unordered to-many relationships (the employees of two departments, in turns) takes
    /// them out of each relationship at the end of the event: every one leaves, each observer hears of each, the
    /// departments are changed, undo brings every member back, and a save stores the departments empty.
    @Test func deletedMembersLeaveTheirGroupsTogether() throws {
        let context = try Company.context(departmentRule: .nullify)
        context.undoManager = UndoManager()
        let sales = try Company.department("Sales", staff: ["Ann", "Bob", "Cy"], in: context)
        let it = try Company.department("IT", staff: ["Dee", "Eve"], in: context)
        try context.save()
        let staff = try Company.names(context, "Employee")
        #expect(staff == ["Ann", "Bob", "Cy", "Dee", "Eve"])
        var heard: [String] = []
        let token = sales.observe("employees") { change in heard.append(change.key) }
        // In turns: Sales, IT, Sales, IT, Sales (the last group tried first, then the table).
        let employees = try context.fetch(
            FetchRequest(entityName: "Employee", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
        for name in ["Ann", "Dee", "Bob", "Eve", "Cy"] {
            context.delete(try #require(employees.first { try $0.attributeValue(forKey: "name") == .string(name) }))
        }
        context.processPendingChanges()
        #expect(try sales.objects(forKey: "employees").isEmpty)
        #expect(try it.objects(forKey: "employees").isEmpty)
        #expect(heard.count == 3)
        #expect(context.updatedObjects.contains { $0 === sales } && context.updatedObjects.contains { $0 === it })
        #expect(try Set(sales.changedValues().keys) == ["employees"])
        context.undo()
        #expect(!context.hasChanges)
        #expect(
            try Set(sales.objects(forKey: "employees").map { try $0.attributeValue(forKey: "name") })
                == [.string("Ann"), .string("Bob"), .string("Cy")])
        #expect(try it.objects(forKey: "employees").count == 2)
        context.redo()
        try context.save()
        token.cancel()
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try Company.names(other, "Employee").isEmpty)
        let stored = try other.fetch(FetchRequest(entityName: "Department"))
        #expect(stored.count == 2)
        #expect(try stored.allSatisfy { try $0.objects(forKey: "employees").isEmpty })
    }

    @Test func undoingADeleteRestoresTheGraph() throws {
        let context = try Company.context(departmentRule: .cascade)
        let sales = try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        context.delete(sales)
        context.processPendingChanges()
        #expect(context.deletedObjects.count == 3)
        context.undo()
        #expect(context.deletedObjects.isEmpty)
        #expect(!context.hasChanges)
        #expect(try sales.objects(forKey: "employees").count == 2)
        #expect(try sales.objects(forKey: "employees").allSatisfy { try $0.object(forKey: "department") === sales })
    }
}

struct ValidationTests {
    /// A save right after validateForSave does not check again what was just checked, but anything changed in
    /// between is checked.
    @Test func aChangeAfterValidateForSaveIsStillValidated() throws {
        let context = try Company.context()
        let department = try context.insertNewObject(forEntityName: "Department")
        try department.setValue(.string("Research"), forKey: "name")
        try context.validateForSave()
        try department.setValue(.null, forKey: "name")
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.validationErrors.map(\.code) == [.required])
        try department.setValue(.string("Research"), forKey: "name")
        try context.validateForSave()
        try context.save()
        #expect(!department.objectID.isTemporary)
    }

    @Test func everyFailureIsReportedAndNothingIsSaved() throws {
        let context = try Company.context()
        let nameless = try context.insertNewObject(forEntityName: "Employee")
        try nameless.setAttributeValue(.integer32(-5), forKey: "salary")
        try nameless.setValue(.string("not an email"), forKey: "email")
        let department = try context.insertNewObject(forEntityName: "Department")
        _ = department
        let error = try #require(throws: ContextError.self) { try context.save() }
        let codes = Set(error.validationErrors.map(\.code))
        #expect(codes == [.required, .belowMinimum, .patternMismatch])
        #expect(error.validationErrors.count == 4)  // Employee.name, salary, email; Department.name
        #expect(error.description.contains("Employee.salary"))
        #expect(context.insertedObjects.count == 2)
        #expect(nameless.objectID.isTemporary)
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try other.count(for: FetchRequest(entityName: "Employee")) == 0)
    }

    final class StrictEmployee: ManagedObject {
        override func validateValue(_ value: PredicateValue, forKey key: String) throws(ObjectValidationError) {
            if key == "name", case .string(let s) = value, s.lowercased() == "root" {
                throw ObjectValidationError(.custom, entityName: "Employee", key: key, "reserved name")
            }
        }
        override func validateForInsert() throws(ObjectValidationError) {
            if (try? attributeValue(forKey: "salary")) == .integer32(13) {
                throw ObjectValidationError(.custom, entityName: "Employee", "unlucky salary")
            }
        }
    }

    @Test func customValidatorsRun() throws {
        let context = try Company.context()
        context.persistentStoreCoordinator.registerClass(StrictEmployee.self, forEntityName: "Employee")
        let employee = try context.insertNewObject(forEntityName: "Employee")
        #expect(employee is StrictEmployee)
        try employee.setValue(.string("root"), forKey: "name")
        try employee.setAttributeValue(.integer32(13), forKey: "salary")
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.validationErrors.map(\.message).sorted() == ["reserved name", "unlucky salary"])
    }
}

struct PendingChangesFetchTests {
    @Test func fetchSeesUnsavedInsertsAndMissesUnsavedDeletes() throws {
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann", "Bob", "Cid"], in: context)
        try context.save()
        let bob = try #require(
            context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Bob'")))
                .first)
        context.delete(bob)
        let dee = try context.insertNewObject(forEntityName: "Employee")
        try dee.setValue(.string("Dee"), forKey: "name")
        #expect(try Company.names(context, "Employee") == ["Ann", "Cid", "Dee"])
        // Changed objects are judged by their current values.
        let ann = try #require(
            context.fetch(FetchRequest(entityName: "Employee", predicate: try ObjectPredicate(format: "name == 'Ann'")))
                .first)
        try ann.setValue(.string("Zoe"), forKey: "name")
        let request = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "name BEGINSWITH 'A'"))
        #expect(try context.fetch(request).isEmpty)
        var ignoring = request
        ignoring.includesPendingChanges = false
        #expect(try context.fetch(ignoring).count == 1)
        #expect(try Company.names(context, "Employee") == ["Cid", "Dee", "Zoe"])
        // Another context sees only what was saved.
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try Company.names(other, "Employee") == ["Ann", "Bob", "Cid"])
    }

    @Test func fetchesAreUniqued() throws {
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann"], in: context)
        try context.save()
        let first = try context.fetch(FetchRequest(entityName: "Employee"))[0]
        let second = try context.fetch(FetchRequest(entityName: "Employee"))[0]
        #expect(first === second)
        #expect(try context.object(with: first.objectID) === first)
        #expect(try context.existingObject(with: first.objectID) === first)
        #expect(try first.object(forKey: "department")?.objects(forKey: "employees").first === first)
    }
}
