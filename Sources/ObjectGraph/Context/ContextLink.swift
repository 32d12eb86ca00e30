/// How managed objects reach their context: each object holds the link strongly, the link points at the context
/// without holding it, and the context marks the link dead when it goes away, so an object outliving its context sees
/// `nil`, as with a weak reference.
///
/// Not a weak reference because a weakly referenced object gets a side table, and every retain and release of it then
/// takes the slow path: a context is retained each time an object reads its context (every tracked change), which
/// made that slow path 9% of inserting objects. Contexts are confined to one isolation domain, as are their objects,
/// so the link is only read where the context lives.
final class ContextLink {
    /// The context; only valid while ``isAlive``.
    unowned(unsafe) let context: ManagedObjectContext
    /// Whether the context still exists (its deinit clears it first).
    var isAlive = true

    init(_ context: ManagedObjectContext) {
        self.context = context
    }
}
