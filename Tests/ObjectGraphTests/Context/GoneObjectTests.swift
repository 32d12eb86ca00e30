import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Objects that leave their context (a saved deletion, an undone insert) while undo still holds them go with the
/// context, however they point at each other.
struct GoneObjectTests {
    final class Weak {
        weak var object: ManagedObject?
        init(_ object: ManagedObject) { self.object = object }
    }

    @Test func objectsThatLeftTheirContextGoWithIt() throws {
        let model = try RandomGraph.model()
        for seed in UInt64(1)...6 {
            var random = RandomGraph.Generator(state: seed &* 7919)
            var seen: [Weak] = []
            do {
                let coordinator = PersistentStoreCoordinator(model: model)
                try coordinator.addPersistentStore(type: "InMemory")
                let context = ManagedObjectContext(coordinator: coordinator)
                context.undoManager = UndoManager()
                var counter = 0
                for _ in 0..<14 {
                    try RandomGraph.edit(context, &random, counter: &counter)
                    seen += (context.registeredObjects + context.insertedObjects).map(Weak.init)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: try context.save()
                    case 1:
                        for _ in 0..<Int.random(in: 1...3, using: &random) { context.undo() }
                        if Bool.random(using: &random) { context.redo() }
                    default: break
                    }
                }
            }
            // (Counted, not shown: an object outliving its context would be reflected through links to it.)
            let kept = seen.filter { $0.object != nil }.count
            #expect(kept == 0, "seed \(seed): objects outlive their context")
        }
    }

    // Without undo nothing sets a relationship of an object out of the context again: they go when let go of, the
    // context still there.
    @Test(arguments: [false, true]) func objectsOutOfTheContextGoWithoutUndo(savedDeletion: Bool) throws {
        let context = try Company.context()
        context.undoManager = nil
        var department: Weak?
        var employee: Weak?
        do {
            let sales = try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
            department = Weak(sales)
            employee = try sales.objects(forKey: "employees").first.map(Weak.init)
            if savedDeletion {
                // A cascade: the department and its staff.
                try context.save()
                context.delete(sales)
                try context.save()
            } else {
                context.rollback()
            }
        }
        #expect(employee != nil)
        #expect(department?.object == nil)
        #expect(employee?.object == nil)
        withExtendedLifetime(context) {}
    }
}
