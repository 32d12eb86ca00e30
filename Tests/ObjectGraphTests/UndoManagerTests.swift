import ObjectGraph
import Testing

final class Counter {
    var value = 0
    let undoManager: UndoManager
    init(_ undoManager: UndoManager) { self.undoManager = undoManager }

    func add(_ amount: Int) {
        value += amount
        undoManager.registerUndo(withTarget: self) { $0.add(-amount) }
    }
}

struct UndoManagerTests {
    @Test func undoAndRedoAGroup() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.add(5)
        counter.add(2)
        manager.endEvent()
        #expect(manager.canUndo && !manager.canRedo)
        manager.undo()
        #expect(counter.value == 0)
        #expect(manager.canRedo && !manager.canUndo)
        manager.redo()
        #expect(counter.value == 7)
    }

    @Test func groupingByEventMakesOneStepPerEvent() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.add(1)
        manager.endEvent()
        counter.add(10)
        counter.add(100)
        manager.endEvent()
        manager.undo()
        #expect(counter.value == 1)
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func nestedGroupsUndoAsOne() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter(manager)
        manager.beginUndoGrouping()
        counter.add(1)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        counter.add(2)
        manager.endUndoGrouping()
        counter.add(4)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(counter.value == 0)
        manager.redo()
        #expect(counter.value == 7)
    }

    @Test func aNewChangeClearsRedo() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.add(1)
        manager.endEvent()
        manager.undo()
        #expect(manager.canRedo)
        counter.add(3)
        manager.endEvent()
        #expect(!manager.canRedo)
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func levelsLimitTheHistory() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let counter = Counter(manager)
        for amount in [1, 10, 100] {
            counter.add(amount)
            manager.endEvent()
        }
        manager.undo()
        manager.undo()
        #expect(!manager.canUndo)
        #expect(counter.value == 1)
    }

    @Test func actionNamesAndStates() {
        let manager = UndoManager()
        let counter = Counter(manager)
        var seenUndoing = false
        counter.add(1)
        manager.setActionName("Add One")
        manager.endEvent()
        #expect(manager.undoActionName == "Add One")
        manager.registerUndo(withTarget: counter) { _ in seenUndoing = manager.isUndoing }
        manager.endEvent()
        manager.undo()
        #expect(seenUndoing)
        manager.undo()
        #expect(manager.redoActionName == "Add One")
        #expect(!manager.isUndoing && !manager.isRedoing)
    }

    @Test func disablingRegistrationAndRemovingActions() {
        let manager = UndoManager()
        let counter = Counter(manager)
        manager.disableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        counter.add(1)
        manager.enableUndoRegistration()
        manager.endEvent()
        #expect(!manager.canUndo)
        counter.add(2)
        manager.endEvent()
        let other = Counter(manager)
        other.add(3)
        manager.endEvent()
        manager.removeAllActions(withTarget: other)
        manager.undo()
        #expect(counter.value == 1)
        #expect(other.value == 3)
        counter.add(5)
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func undoNestedGroupDiscardsTheOpenGroup() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter(manager)
        manager.beginUndoGrouping()
        counter.add(4)
        manager.undoNestedGroup()
        #expect(counter.value == 0)
        #expect(!manager.canRedo)
    }
}

/// The point in the history a document saved at: tokens that come back on undo and redo, and never repeat for a
/// different change.
struct UndoStateTokenTests {
    @Test func undoAndRedoReturnToTheSameTokens() {
        let manager = UndoManager()
        let counter = Counter(manager)
        let start = manager.stateToken
        counter.add(1)
        manager.endEvent()
        let saved = manager.stateToken
        #expect(saved != start)
        manager.undo()
        #expect(manager.stateToken == start)
        manager.redo()
        #expect(manager.stateToken == saved)
    }

    @Test func aDifferentChangeAfterUndoIsANewPoint() {
        // Save after one change, undo it, make another: a count of changes would read zero here.
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.add(1)
        manager.endEvent()
        let saved = manager.stateToken
        manager.undo()
        counter.add(2)
        manager.endEvent()
        #expect(manager.stateToken != saved)
        manager.undo()
        #expect(manager.stateToken != saved)
    }

    @Test func trimmingAndClearingNeverReturnToAnOldToken() {
        let manager = UndoManager()
        manager.levelsOfUndo = 1
        let counter = Counter(manager)
        let start = manager.stateToken
        counter.add(1)
        manager.endEvent()
        counter.add(1)
        manager.endEvent()
        manager.undo()
        // The first change is still applied: the history's bottom is not the start.
        #expect(manager.stateToken != start)
        let before = manager.stateToken
        manager.removeAllActions()
        #expect(manager.stateToken != before && manager.stateToken != start)
    }

    @Test func changesAreReportedAsDoneUndoneRedoneAndCleared() {
        let manager = UndoManager()
        var seen: [UndoManager.Change] = []
        manager.onChange = { seen.append($0) }
        let counter = Counter(manager)
        counter.add(1)
        manager.setActionName("Add")
        manager.endEvent()
        manager.undo()
        manager.redo()
        manager.removeAllActions()
        #expect(seen == [.done("Add"), .undone("Add"), .redone("Add"), .cleared])
    }
}
