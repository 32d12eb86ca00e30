/// What a fetch returns (Core Data's `NSFetchRequestResultType`; raw values as there).
public enum FetchResultType: Int, Sendable, Hashable, CaseIterable {
    /// Managed objects.
    case managedObject = 0
    /// Object IDs.
    case managedObjectID = 1
    /// Dictionaries of property values.
    case dictionary = 2
    /// Only a count.
    case count = 4
}
