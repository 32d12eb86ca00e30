public import Foundation

/// A persistent-history transaction, as a store that tracks history (Apple's `NSPersistentHistoryTrackingKey`) records it: one per save.
public struct HistoryTransaction: Sendable {
    /// The transaction's number (`ATRANSACTION.Z_PK`).
    public var number: Int64
    /// When it was saved.
    public var timestamp: Date?
    /// The author recorded with it (`NSPersistentHistoryTransaction.author`).
    public var author: String?
    /// The bundle identifier of the program that saved it.
    public var bundleID: String?
    /// The name of the context that saved it.
    public var contextName: String?
    /// The name of the process that saved it.
    public var processID: String?
    /// Its changes: `insert`, `update` or `delete`, and the object.
    public var changes: [(type: String, object: ManagedObjectID)]

    /// A transaction.
    /// - Parameters:
    ///   - number: its number (`Z_PK` of `ATRANSACTION`).
    ///   - timestamp: when it was saved.
    ///   - author: the transaction author the app set.
    ///   - bundleID: the bundle that saved it.
    ///   - contextName: the name of the context that saved it.
    ///   - processID: the process that saved it.
    ///   - changes: each change's type (`insert`, `update`, `delete`) and object.
    public init(
        number: Int64, timestamp: Date?, author: String?, bundleID: String?, contextName: String?,
        processID: String?, changes: [(type: String, object: ManagedObjectID)]
    ) {
        self.number = number
        self.timestamp = timestamp
        self.author = author
        self.bundleID = bundleID
        self.contextName = contextName
        self.processID = processID
        self.changes = changes
    }
}
