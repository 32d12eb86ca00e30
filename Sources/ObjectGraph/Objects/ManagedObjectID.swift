public import Foundation

/// The identity of a managed object: its entity, its store and its key in that store.
///
/// An object inserted into a context has a temporary ID until it is saved; saving gives it a permanent ID from its
/// store. Both have a URI form: `x-coredata://<store UUID>/<Entity>/p<key>` when permanent,
/// `x-coredata:///<Entity>/t<UUID>` when temporary. IDs are immutable and `Sendable`: they are what crosses between
/// contexts and isolation domains.
public final class ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The entity of the object.
    public let entityName: String
    /// The identifier (UUID) of the store holding the object; `nil` while temporary.
    public let storeIdentifier: String?
    /// The key within the store (Core Data's `Z_PK`); 0 while temporary.
    public let primaryKey: Int64
    /// The temporary identifier, for objects not yet saved.
    public let temporaryIdentifier: UUID?

    /// A permanent ID.
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.primaryKey = primaryKey
        self.temporaryIdentifier = nil
    }

    /// A new temporary ID.
    public init(temporaryFor entityName: String) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.primaryKey = 0
        self.temporaryIdentifier = UUID()
    }

    /// Whether the ID is temporary (the object has not been saved).
    public var isTemporary: Bool { temporaryIdentifier != nil }

    /// The URI form.
    public var uriRepresentation: URL {
        if let temporaryIdentifier {
            return URL(string: "x-coredata:///\(Self.escape(entityName))/t\(temporaryIdentifier.uuidString)")!
        }
        return URL(string: "x-coredata://\(storeIdentifier ?? "")/\(Self.escape(entityName))/p\(primaryKey)")!
    }

    /// Reads a URI produced by ``uriRepresentation``.
    /// - Returns: `nil` when the URI is not an object ID.
    public convenience init?(uriRepresentation uri: URL) {
        guard uri.scheme == "x-coredata" else { return nil }
        let parts = uri.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 2, let key = parts.last, let kind = key.first else { return nil }
        let entity = parts[0].removingPercentEncoding ?? parts[0]
        switch kind {
        case "p":
            guard let host = uri.host, let pk = Int64(key.dropFirst()), pk > 0 else { return nil }
            self.init(entityName: entity, storeIdentifier: host, primaryKey: pk)
        case "t":
            guard let uuid = UUID(uuidString: String(key.dropFirst())) else { return nil }
            self.init(entityName: entity, temporary: uuid)
        default:
            return nil
        }
    }

    private init(entityName: String, temporary: UUID) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.primaryKey = 0
        self.temporaryIdentifier = temporary
    }

    private static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? s
    }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs === rhs
            || (lhs.primaryKey == rhs.primaryKey && lhs.temporaryIdentifier == rhs.temporaryIdentifier
                && lhs.entityName == rhs.entityName && lhs.storeIdentifier == rhs.storeIdentifier)
    }

    public func hash(into hasher: inout Hasher) {
        // Keys rarely repeat across entities; leaving the name out keeps hashing cheap on hot paths.
        hasher.combine(primaryKey)
        hasher.combine(temporaryIdentifier)
    }

    public var description: String { uriRepresentation.absoluteString }
}
