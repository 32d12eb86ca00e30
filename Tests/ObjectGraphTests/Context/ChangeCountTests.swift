import Foundation
import ObjectGraph
import TestSupport
import Testing

/// `hasChanges`, the change counts and the change generation: exact, and constant time.
struct ChangeCountTests {
    @Test func anObjectInsertedThenDeletedIsNoChange() throws {
        let context = try Company.context()
        #expect(!context.hasChanges)
        let department = try context.insertNewObject(forEntityName: "Department")
        context.processPendingChanges()
        #expect(context.hasChanges)
        #expect(context.changeCounts == (1, 0, 0))
        context.delete(department)
        context.processPendingChanges()
        #expect(!context.hasChanges)
        #expect(context.changeCounts == (0, 0, 0))
        context.undo()
        #expect(context.hasChanges)
        #expect(context.changeCounts == (1, 0, 0))
    }

    @Test func countsFollowUpdatesDeletesAndSaves() throws {
        let context = try Company.context()
        try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
        try context.save()
        #expect(!context.hasChanges)
        let staff = try context.fetch(FetchRequest(entityName: "Employee"))
        try staff[0].setAttributeValue(.integer32(5), forKey: "salary")
        context.processPendingChanges()
        context.delete(staff[1])
        context.processPendingChanges()
        #expect(context.changeCounts.updated >= 1)
        #expect(context.changeCounts.deleted == 1)
        context.undo()
        #expect(context.changeCounts.deleted == 0)
        #expect(context.changeCounts.updated == 1)
        // Changing the value back is no change, though it is an event.
        let generation = context.changeGeneration
        try staff[0].setAttributeValue(.integer32(1000), forKey: "salary")
        context.processPendingChanges()
        #expect(context.changeGeneration != generation)
        #expect(!context.hasChanges)
    }

    @Test func temporaryIDsAreShortNumbersThatReadBack() throws {
        let context = try Company.context()
        let a = try context.insertNewObject(forEntityName: "Employee")
        let b = try context.insertNewObject(forEntityName: "Employee")
        let (x, y) = (try #require(a.objectID.temporaryIdentifier), try #require(b.objectID.temporaryIdentifier))
        #expect(y > x)
        #expect(a.objectID.uriString == "x-coredata:///Employee/t\(x)")
        #expect(ManagedObjectID(uriRepresentation: a.objectID.uriRepresentation) == a.objectID)
        #expect(ManagedObjectID(uriRepresentation: try #require(URL(string: "x-coredata:///Employee/t0"))) == nil)
    }
}
