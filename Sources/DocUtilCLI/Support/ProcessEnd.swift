/// What a command leaves for the end of the process to let go of.
enum ProcessEnd {
    /// Holds a value.
    private final class Box {
        let value: Any
        init(_ value: Any) { self.value = value }
    }

    /// Keeps `value` until the process exits, so that its memory goes back with the process rather than being
    /// freed object by object when the command returns (a document read whole: about a microsecond an object, a
    /// twentieth of a `query`). Only for what needs no closing: a document opened to read (its scratch folders
    /// are removed at exit all the same).
    static func outlive(_ value: Any) {
        _ = Unmanaged.passRetained(Box(value))
    }
}
