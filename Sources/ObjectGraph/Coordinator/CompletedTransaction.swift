import Foundation

/// A transaction with nothing to do (stores that keep everything in memory).
public struct CompletedTransaction: StoreTransaction {
    /// Creates the command (the argument parser fills in its options).
    public init() {}
    /// Nothing is left to do: the work is already done.
    /// - Throws: Never.
    public func commit() throws(StoreError) {}
    /// Nothing can be undone: the work is already done.
    public func rollback() {}
}
