public import Foundation
import Synchronization

/// The identity of a managed object: its entity, its store and its key in that store.
///
/// An object inserted into a context has a temporary ID until it is saved; saving gives it a permanent ID from its
/// store. Both have a URI form: `x-coredata://<store UUID>/<Entity>/p<key>` when permanent,
/// `x-coredata:///<Entity>/t<n>` when temporary (`n` counts up from 1 in each process). IDs are immutable and `Sendable`: they are what crosses between
/// contexts and isolation domains.
public final class ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The entity of the object.
    public let entityName: String
    /// The identifier (UUID) of the store holding the object; `nil` while temporary.
    public let storeIdentifier: String?
    /// The key within the store (Core Data's `Z_PK`); 0 while temporary.
    public let primaryKey: Int64
    /// The temporary identifier, for objects not yet saved: a number unique in this process (a counter, not a random
    /// UUID: cheap to make, and short enough to type as `Entity/t3`).
    public let temporaryIdentifier: UInt64?

    private static let temporaryCounter = Atomic<UInt64>(0)

    /// A permanent ID.
    /// - Parameters:
    ///   - entityName: the object's entity.
    ///   - storeIdentifier: the UUID of its store.
    ///   - primaryKey: its key in the store.
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.primaryKey = primaryKey
        self.temporaryIdentifier = nil
    }

    /// A new temporary ID.
    /// - Parameter entityName: the entity of the object being inserted.
    public init(temporaryFor entityName: String) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.primaryKey = 0
        self.temporaryIdentifier = Self.nextTemporaryNumber()
    }

    /// The next temporary number: an object inserted by a context takes one and makes its ID from it only when asked
    /// for it (most are saved first, and never need one).
    static func nextTemporaryNumber() -> UInt64 {
        temporaryCounter.add(1, ordering: .relaxed).newValue
    }

    /// Whether the ID is temporary (the object has not been saved).
    public var isTemporary: Bool { temporaryIdentifier != nil }

    /// The URI form. The store UUID and entity name are percent-encoded, so any UUID a file holds (even one with
    /// spaces or slashes) gives a valid URI that ``init(uriRepresentation:)`` reads back.
    public var uriRepresentation: URL {
        // Every character outside the unreserved set is escaped, so this always parses; the fallback only keeps the
        // property total.
        URL(string: uriString) ?? URL(fileURLWithPath: "/")
    }

    /// The URI form as text (what ``description`` prints).
    public var uriString: String {
        if let temporaryIdentifier {
            return "x-coredata:///\(Self.escape(entityName))/t\(temporaryIdentifier)"
        }
        return "x-coredata://\(Self.escape(storeIdentifier ?? ""))/\(Self.escape(entityName))/p\(primaryKey)"
    }

    /// Reads a URI produced by ``uriRepresentation``.
    /// - Parameter uri: an `x-coredata://UUID/Entity/pN` URI (or a temporary one).
    /// - Returns: `nil` when the URI is not an object ID.
    public convenience init?(uriRepresentation uri: URL) {
        guard uri.scheme == "x-coredata" else { return nil }
        // The path and host as written (percent-encoded), split before decoding so that an encoded "/" stays inside
        // its component.
        let text = uri.absoluteString.dropFirst("x-coredata://".count)
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let entity = parts[1].removingPercentEncoding, !entity.isEmpty,
            let kind = parts[2].first
        else { return nil }
        let key = parts[2].dropFirst()
        switch kind {
        case "p":
            guard let host = parts[0].removingPercentEncoding, !host.isEmpty, let pk = Int64(key), pk > 0 else {
                return nil
            }
            self.init(entityName: entity, storeIdentifier: host, primaryKey: pk)
        case "t":
            guard parts[0].isEmpty, key.allSatisfy(\.isASCII), let number = UInt64(key), number > 0 else { return nil }
            self.init(entityName: entity, temporary: number)
        default:
            return nil
        }
    }

    /// The temporary ID with number `temporary` (one a URI names, or one an inserted object made when asked for).
    init(entityName: String, temporary: UInt64) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.primaryKey = 0
        self.temporaryIdentifier = temporary
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986: letters, digits, `-._~`).
    private static func escape(_ s: String) -> String {
        // The usual case — a UUID, an entity name — has nothing to escape.
        if s.utf8.allSatisfy(isUnreserved) { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// RFC 3986's unreserved characters: letters, digits, `-._~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Whether the two are the same.
    /// - Parameters:
    ///   - lhs: one ID.
    ///   - rhs: the other.
    /// - Returns: `true` for the same entity, store and key (or the same temporary ID).
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs === rhs
            || (lhs.primaryKey == rhs.primaryKey && lhs.temporaryIdentifier == rhs.temporaryIdentifier
                && lhs.entityName == rhs.entityName && lhs.storeIdentifier == rhs.storeIdentifier)
    }

    /// Hashes what `==` compares.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        // Keys rarely repeat across entities; leaving the name out keeps hashing cheap on hot paths.
        hasher.combine(primaryKey)
        hasher.combine(temporaryIdentifier)
    }

    /// The object's URI (`x-coredata://UUID/Entity/pN`, or a temporary one).
    public var description: String { uriString }
}

/// The store and entity of permanent IDs not made yet: shared by the objects a fetch made from keys and the snapshots a
/// store hands over by key, each of which makes its ID from it and its key when first asked for (see
/// ``ManagedObject/objectID`` and ``ObjectSnapshot/objectID``).
package final class ObjectIDPrefix: Sendable {
    /// The UUID of the store.
    package let storeIdentifier: String
    /// The entity.
    package let entityName: String

    /// Creates the prefix of a store's IDs of an entity.
    /// - Parameters:
    ///   - storeIdentifier: the store's UUID.
    ///   - entityName: the entity.
    package init(storeIdentifier: String, entityName: String) {
        self.storeIdentifier = storeIdentifier
        self.entityName = entityName
    }

    /// The ID of the object with `key`.
    package func objectID(_ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key)
    }
}
