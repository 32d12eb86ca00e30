import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

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

    /// An inserted object takes its temporary number at once and makes its ID from it only when asked: the context
    /// finds it by that ID either way, a look-alike ID of another entity finds nothing, and a save (or an undone
    /// insert) leaves nothing registered under the number.
    @Test func anInsertedObjectMakesItsTemporaryIDWhenAsked() throws {
        let context = try Company.context()
        context.undoManager = UndoManager()
        let a = try context.insertNewObject(forEntityName: "Employee")
        let b = try context.insertNewObject(forEntityName: "Employee")
        let c = try context.insertNewObject(forEntityName: "Employee")
        for object in [a, b, c] {
            guard case .temporary = object.identity else {
                Issue.record("\(object.entityName) made its ID at insert")
                continue
            }
        }
        let numbers = [a, b, c].compactMap(\.temporaryNumber)
        #expect(numbers.count == 3 && numbers == numbers.sorted())
        // Asked for, the ID is the number's; the context finds each object by it.
        let bID = b.objectID
        #expect(bID.temporaryIdentifier == numbers[1])
        #expect(context.registeredObject(for: bID) === b)
        let aURI = try #require(URL(string: "x-coredata:///Employee/t\(numbers[0])"))
        let aID = try #require(ManagedObjectID(uriRepresentation: aURI))
        #expect(context.registeredObject(for: aID) === a)
        #expect(a.objectID == aID)
        let lookalikeURI = try #require(URL(string: "x-coredata:///Department/t\(numbers[2])"))
        let lookalike = try #require(ManagedObjectID(uriRepresentation: lookalikeURI))
        #expect(context.registeredObject(for: lookalike) == nil)
        #expect(context.registeredObjects.count == 3)

        // An undone insert leaves its number.
        context.processPendingChanges()
        context.undoManager?.removeAllActions()
        let d = try context.insertNewObject(forEntityName: "Employee")
        let dNumber = try #require(d.temporaryNumber)
        context.processPendingChanges()
        context.undo()
        #expect(context.registeredObjects.count == 3)
        #expect(context.registeredObject(for: ManagedObjectID(entityName: "Employee", temporary: dNumber)) == nil)

        for (object, name) in zip([a, b, c], ["A", "B", "C"]) {
            try object.setAttributeValue(.string(name), forKey: "name")
        }
        try context.save()
        // Permanent IDs; nothing left under the temporary ones.
        for (object, number) in zip([a, b, c], numbers) {
            #expect(!object.objectID.isTemporary)
            #expect(context.registeredObject(for: object.objectID) === object)
            #expect(context.registeredObject(for: ManagedObjectID(entityName: "Employee", temporary: number)) == nil)
        }
        #expect(context.registeredObjects.count == 3)
    }
}
