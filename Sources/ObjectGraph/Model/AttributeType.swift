/// The type of an attribute, as in Xcode's model editor and Core Data's `NSAttributeType`.
///
/// The raw value is Core Data's numeric type code, which is also what compiled models (`.mom`) store and
/// what goes into version hashes.
public enum AttributeType: UInt32, Sendable, Hashable, CaseIterable, Codable {
    case undefined = 0
    case integer16 = 100
    case integer32 = 200
    case integer64 = 300
    case decimal = 400
    case double = 500
    case float = 600
    case string = 700
    case boolean = 800
    case date = 900
    case binary = 1000
    case uuid = 1100
    case uri = 1200
    case transformable = 1800
    case objectID = 2000
    case composite = 2100

    /// The `attributeType` string Xcode writes in a `contents` file, e.g. `Integer 16`.
    public var xcodeName: String {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binary: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "ObjectID"
        case .composite: "Composite"
        }
    }

    /// Finds the type for an Xcode `attributeType` string.
    ///
    /// Accepts the spellings Xcode has used (`Binary` and `Binary Data`, `ObjectID` and `Object ID`).
    /// - Parameter xcodeName: the `attributeType` attribute of Xcode's `contents` file.
    /// - Returns: `nil` for an unknown name.
    public init?(xcodeName: String) {
        switch xcodeName {
        case "Undefined": self = .undefined
        case "Integer 16": self = .integer16
        case "Integer 32": self = .integer32
        case "Integer 64": self = .integer64
        case "Decimal": self = .decimal
        case "Double": self = .double
        case "Float": self = .float
        case "String": self = .string
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Binary", "Binary Data": self = .binary
        case "UUID": self = .uuid
        case "URI": self = .uri
        case "Transformable": self = .transformable
        case "ObjectID", "Object ID": self = .objectID
        case "Composite": self = .composite
        default: return nil
        }
    }

    /// Whether values of this type are numbers (integers, decimals, floating point).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }

    /// Whether values of this type are integers.
    public var isInteger: Bool {
        self == .integer16 || self == .integer32 || self == .integer64
    }

    /// The Foundation class Core Data uses for values of this type (`NSAttributeValueClassName`).
    public var valueClassName: String? {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: "NSNumber"
        case .decimal: "NSDecimalNumber"
        case .string: "NSString"
        case .date: "NSDate"
        case .binary: "NSData"
        case .uuid: "NSUUID"
        case .uri: "NSURL"
        case .objectID: "NSManagedObjectID"
        case .undefined, .transformable, .composite: nil
        }
    }
}
