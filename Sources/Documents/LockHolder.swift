public import Foundation
import ObjectGraph

/// Who holds a document open for writing.
public struct LockHolder: Sendable, Hashable, CustomStringConvertible {
    /// The holder's process ID.
    public var pid: Int32
    /// The host it runs on.
    public var host: String
    /// When it took the lock.
    public var since: Date?
    /// What it is (`docutil open`, or an app's name).
    public var program: String

    /// A readable description, as printed in messages.
    public var description: String {
        var text = "process \(pid) (\(program)) on \(host)"
        if let since { text += " since \(DateText.iso8601Seconds(since))" }
        return text
    }
}
