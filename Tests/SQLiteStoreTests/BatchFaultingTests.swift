import Foundation
import ObjectGraph
import SQLiteStore
import TestSupport
import Testing

/// `fetchBatchSize` (faults that fill a batch at a time) and `relationshipKeyPathsForPrefetching`, on the SQLite
/// store where they save round trips.
struct BatchFaultingTests {
    static func store() throws -> PersistentStoreCoordinator {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("company.sqlite")
        try coordinator.addPersistentStore(type: SQLiteStore.typeName, url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Company.department("Research", staff: (0..<25).map { String(format: "E%02d", $0) }, in: context)
        try context.save()
        return coordinator
    }

    @Test func firingOneFaultFillsItsBatch() throws {
        let context = ManagedObjectContext(coordinator: try Self.store())
        var request = FetchRequest(entityName: "Employee", sortDescriptors: [ObjectSortDescriptor(keyPath: "name")])
        request.fetchBatchSize = 10
        let employees = try context.fetch(request)
        #expect(employees.count == 25)
        #expect(employees.allSatisfy { $0.isFault })
        #expect(try employees[0].attributeValue(forKey: "name") == .string("E00"))
        #expect(employees[0..<10].allSatisfy { !$0.isFault })
        #expect(employees[10...].allSatisfy { $0.isFault })
        #expect(try employees[12].attributeValue(forKey: "name") == .string("E12"))
        #expect(employees[10..<20].allSatisfy { !$0.isFault })
        #expect(employees[20...].allSatisfy { $0.isFault })
        #expect(
            try employees.map { try $0.attributeValue(forKey: "name").stringValue ?? "" }
                == (0..<25).map { String(format: "E%02d", $0) })
    }

    @Test func prefetchingFillsTheDestinations() throws {
        let coordinator = try Self.store()
        let plain = ManagedObjectContext(coordinator: coordinator)
        let withoutPrefetch = try plain.fetch(FetchRequest(entityName: "Department"))
        #expect(withoutPrefetch.count == 1)
        #expect(try withoutPrefetch[0].objects(forKey: "employees").allSatisfy { $0.isFault })

        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Department")
        request.relationshipKeyPathsForPrefetching = ["employees", "employees.department"]
        let departments = try context.fetch(request)
        let employees = try departments[0].objects(forKey: "employees")
        #expect(employees.count == 25)
        #expect(employees.allSatisfy { !$0.isFault })

        var back = FetchRequest(entityName: "Employee")
        back.relationshipKeyPathsForPrefetching = ["department"]
        let other = ManagedObjectContext(coordinator: coordinator)
        let fetched = try other.fetch(back)
        #expect(try fetched.first?.object(forKey: "department")?.isFault == false)
    }
}
