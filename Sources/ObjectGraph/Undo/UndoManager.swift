/// Records changes so they can be undone and redone, in groups: Linux's Foundation has no `UndoManager`, so this is
/// our own, with the same model.
///
/// Actions are registered inside groups; ``undo()`` reverts the most recent top-level group, and the actions it
/// registers while undoing go to the redo stack. A new registration outside undo and redo clears the redo stack.
/// With ``groupsByEvent`` (the default) a group opens automatically at the first registration and closes when the
/// event ends — the context ends events in `processPendingChanges()`.
///
/// Not `Sendable`: an undo manager belongs to one context's isolation domain.
public final class UndoManager {
    /// One registered action.
    struct Action {
        let target: ObjectIdentifier?
        let body: () -> Void
    }

    /// A group of actions, possibly nested.
    final class Group {
        var actions: [Item] = []
        var actionName: String = ""
        /// The point in the history this group leads to when done (kept by the undo and redo groups made from it),
        /// so that ``stateToken`` reads the same after an undo and a redo.
        var serial: UInt64 = 0
        /// The enclosing open group; cleared when this group closes, so closed groups form no cycle.
        var parent: Group?
        init(parent: Group?) { self.parent = parent }
        var isEmpty: Bool {
            actions.allSatisfy {
                if case .group(let g) = $0 { return g.isEmpty }
                return false
            }
        }
    }

    enum Item {
        case action(Action)
        case group(Group)
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var openGroup: Group?
    private var openedAutomatically = false
    private var disableCount = 0
    private var state: State = .normal
    private var nextSerial: UInt64 = 1
    /// The token of the state below the bottom of the undo stack.
    private var baseToken: UInt64 = 0

    /// What happened to the history, as ``onChange`` reports it.
    public enum Change: Sendable, Hashable {
        /// A group of changes was recorded (its action name).
        case done(String)
        /// A group was undone.
        case undone(String)
        /// A group was redone.
        case redone(String)
        /// Every action was forgotten (``removeAllActions()``).
        case cleared
    }

    /// Called after each recorded, undone or redone group and after ``removeAllActions()``: how a document counts
    /// its changes (NSDocument's change count: done, undone, redone, cleared).
    public var onChange: ((Change) -> Void)?

    /// Names the point in the history the graph is at: every recorded group leads to a new token, undoing returns to
    /// the token before it, redoing to the one after. A document remembers the token at a save: the graph is at the
    /// saved point exactly when the token is that again. After a save, an undo and a different change, the token
    /// is new (a plain counter would read zero there, though the graph differs from the file).
    public var stateToken: UInt64 { undoStack.last?.serial ?? baseToken }

    private enum State {
        case normal, undoing, redoing
    }

    /// Whether a group opens automatically at the first registration of an event.
    public var groupsByEvent = true
    /// The most undo groups kept; 0 for no limit.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// Creates an empty undo manager.
    public init() {}

    // MARK: - State

    /// Whether ``undo()`` is running.
    public var isUndoing: Bool { state == .undoing }
    /// Whether ``redo()`` is running.
    public var isRedoing: Bool { state == .redoing }
    /// Whether registration is on (see ``disableUndoRegistration()``).
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }
    /// Whether there is something to undo (an open group with actions counts).
    public var canUndo: Bool { !undoStack.isEmpty || (openGroup.map { !$0.isEmpty } ?? false) }
    /// Whether there is something to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// How deeply groups are nested now.
    public var groupingLevel: Int {
        var level = 0
        var group = openGroup
        while let g = group {
            level += 1
            group = g.parent
        }
        return level
    }

    /// The action name of the group ``undo()`` would revert.
    public var undoActionName: String { undoStack.last?.actionName ?? "" }
    /// The action name of the group ``redo()`` would repeat.
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Names the current group (shown as "Undo <name>" in menus).
    /// - Parameter name: the action's name.
    public func setActionName(_ name: String) {
        if let openGroup {
            var top = openGroup
            while let parent = top.parent { top = parent }
            top.actionName = name
        } else if let last = state == .undoing ? redoStack.last : undoStack.last {
            last.actionName = name
        }
    }

    // MARK: - Groups

    /// Opens a group; groups nest.
    public func beginUndoGrouping() {
        openGroup = Group(parent: openGroup)
    }

    /// Closes the innermost open group.
    public func endUndoGrouping() {
        guard let group = openGroup else {
            preconditionFailure("endUndoGrouping() without a matching beginUndoGrouping()")
        }
        openGroup = group.parent
        group.parent = nil
        if let parent = openGroup {
            if !group.isEmpty { parent.actions.append(.group(group)) }
            return
        }
        openedAutomatically = false
        guard !group.isEmpty else { return }
        switch state {
        case .undoing: redoStack.append(group)
        case .redoing: undoStack.append(group)
        case .normal:
            group.serial = nextSerial
            nextSerial += 1
            undoStack.append(group)
            trim()
            onChange?(.done(group.actionName))
        }
    }

    /// Ends the current event: closes the group that opened automatically at its first registration.
    public func endEvent() {
        if openedAutomatically, openGroup?.parent == nil, openGroup != nil { endUndoGrouping() }
    }

    // MARK: - Registration

    /// Records `handler` to run on undo. `target` lets ``removeAllActions(withTarget:)`` find it.
    /// - Parameters:
    ///   - target: the object the action is about.
    ///   - handler: the action, given the target.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard disableCount == 0 else { return }
        if openGroup == nil {
            guard groupsByEvent || state != .normal else {
                preconditionFailure("registerUndo outside a group with groupsByEvent off")
            }
            beginUndoGrouping()
            openedAutomatically = state == .normal
        }
        if state == .normal { redoStack.removeAll() }
        let action = Action(target: ObjectIdentifier(target)) { [weak target] in
            if let target { handler(target) }
        }
        openGroup!.actions.append(.action(action))
    }

    /// Stops recording until ``enableUndoRegistration()`` (calls nest).
    public func disableUndoRegistration() { disableCount += 1 }

    /// Resumes recording.
    public func enableUndoRegistration() {
        precondition(disableCount > 0, "enableUndoRegistration() without disableUndoRegistration()")
        disableCount -= 1
    }

    // MARK: - Undo and redo

    /// Reverts the most recent group; what it registers becomes a redo group.
    public func undo() {
        endEvent()
        precondition(openGroup == nil, "undo() with a group still open; close it first")
        guard let group = undoStack.popLast() else { return }
        run(group, as: .undoing)
    }

    /// Repeats the most recently undone group.
    public func redo() {
        endEvent()
        precondition(openGroup == nil, "redo() with a group still open; close it first")
        guard let group = redoStack.popLast() else { return }
        run(group, as: .redoing)
    }

    /// Undoes the open group's actions and discards them (`undoNestedGroup` on the innermost group).
    public func undoNestedGroup() {
        guard let group = openGroup else { return undo() }
        openGroup = group.parent
        group.parent = nil
        if openGroup == nil { openedAutomatically = false }
        let saved = disableCount
        disableCount = 1
        perform(group)
        disableCount = saved
    }

    private func run(_ group: Group, as newState: State) {
        state = newState
        beginUndoGrouping()
        openGroup!.actionName = group.actionName
        perform(group)
        let name = group.actionName
        let produced = openGroup!
        // Undoing group n returns to the state before it; the redo group made here leads to n again.
        produced.serial = group.serial
        endUndoGrouping()
        produced.actionName = name
        state = .normal
        onChange?(newState == .undoing ? .undone(name) : .redone(name))
    }

    private func perform(_ group: Group) {
        for item in group.actions.reversed() {
            switch item {
            case .action(let action): action.body()
            case .group(let nested): perform(nested)
            }
        }
    }

    /// Forgets every action.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        openedAutomatically = false
        baseToken = nextSerial
        nextSerial += 1
        onChange?(.cleared)
    }

    /// Forgets the actions registered with `target`.
    /// - Parameter target: the object whose actions to forget.
    public func removeAllActions(withTarget target: AnyObject) {
        let id = ObjectIdentifier(target)
        func filter(_ group: Group) {
            group.actions = group.actions.compactMap { item in
                switch item {
                case .action(let a): return a.target == id ? nil : item
                case .group(let g):
                    filter(g)
                    return item
                }
            }
        }
        (undoStack + redoStack).forEach(filter)
        if let openGroup { filter(openGroup) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }

    private func trim() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        let dropped = undoStack.count - levelsOfUndo
        // The state below the new bottom is the one the last dropped group led to.
        baseToken = undoStack[dropped - 1].serial
        undoStack.removeFirst(dropped)
    }
}
