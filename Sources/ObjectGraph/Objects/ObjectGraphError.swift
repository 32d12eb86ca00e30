/// A failure of managed objects or a context that a caller can recover from: an unknown key, a value of the wrong
/// type, an object from another context, a fault whose row is gone.
///
/// Match on ``code``; ``objectID`` names the object when one is involved, and ``underlying`` keeps the store's error
/// when a store failed.
public struct ObjectGraphError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// The model has no such entity (for instance an object ID or URI naming an entity the model lacks).
        case unknownEntity
        /// The entity has no property of that name.
        case unknownKey
        /// The value does not fit the property (wrong type, out of range).
        case wrongValueType
        /// Objects of an abstract entity cannot be inserted.
        case abstractEntity
        /// The object belongs to another context.
        case wrongContext
        /// The object was deleted.
        case deletedObject
        /// No store holds the entity.
        case noStore
        /// No store holds an object with this ID.
        case objectNotFound
        /// A fault could not be filled: its row is gone from the store (``underlying`` is `nil`) or the store
        /// failed (``underlying`` says how). The object stays a fault; nothing was invented for it.
        case faultNotFulfilled
        /// The object is no longer in a context: the context was reset, rolled back past its insert, or released.
        case invalidatedObject
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, naming the entity, key or object.
    public var message: String
    /// The object involved, if any.
    public var objectID: ManagedObjectID?
    /// The store's error, when a store failed.
    public var underlying: StoreError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of error it is.
    ///   - message: what went wrong.
    ///   - objectID: the object it is about, if any.
    ///   - underlying: the store error behind it, if any.
    public init(_ code: Code, _ message: String, objectID: ManagedObjectID? = nil, underlying: StoreError? = nil) {
        self.code = code
        self.message = message
        self.objectID = objectID
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    /// The error for a fault that could not be filled.
    static func fault(_ id: ManagedObjectID, _ underlying: StoreError?) -> ObjectGraphError {
        let reason = underlying.map { "its store failed: \($0.description)" } ?? "its row is no longer in the store"
        return ObjectGraphError(
            .faultNotFulfilled, "cannot fulfill the fault for \(id): \(reason)", objectID: id, underlying: underlying)
    }
}
