/// The type of an attribute, with Apple's raw values (they are part of the version hash).
///
/// For example:
/// ```swift
/// attribute.attributeType = .integer16AttributeType
/// ```
public enum NSAttributeType: UInt, Sendable, Hashable {
    case undefinedAttributeType = 0
    case integer16AttributeType = 100
    case integer32AttributeType = 200
    case integer64AttributeType = 300
    case decimalAttributeType = 400
    case doubleAttributeType = 500
    case floatAttributeType = 600
    case stringAttributeType = 700
    case booleanAttributeType = 800
    case dateAttributeType = 900
    case binaryDataAttributeType = 1000
    case UUIDAttributeType = 1100
    case URIAttributeType = 1200
    case transformableAttributeType = 1800
    case objectIDAttributeType = 2000
    case compositeAttributeType = 2100

    /// The class name Core Data reports as `attributeValueClassName` for this type, if fixed.
    var defaultValueClassName: String? {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            return "NSNumber"
        case .decimalAttributeType: return "NSDecimalNumber"
        case .stringAttributeType: return "NSString"
        case .dateAttributeType: return "NSDate"
        case .binaryDataAttributeType: return "NSData"
        case .UUIDAttributeType: return "NSUUID"
        case .URIAttributeType: return "NSURL"
        case .objectIDAttributeType: return "NSManagedObjectID"
        case .undefinedAttributeType, .transformableAttributeType, .compositeAttributeType: return nil
        }
    }

    /// Whether values of this type are numbers (integers, decimals, floating point, booleans).
    var isNumeric: Bool {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            return true
        default: return false
        }
    }
}

extension NSAttributeDescription {
    /// The iOS 15+ spelling of an attribute type (`attribute.type = .string`).
    ///
    /// For example:
    /// ```swift
    /// let date = NSAttributeDescription()
    /// date.type = .date
    /// ```
    public struct AttributeType: RawRepresentable, Hashable, Sendable {
        /// The Objective-C attribute type this Swift type wraps.
        public typealias RawValue = NSAttributeType
        public var rawValue: NSAttributeType
        public init(rawValue: NSAttributeType) { self.rawValue = rawValue }

        public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
        public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
        public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
        public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
        public static let decimal = AttributeType(rawValue: .decimalAttributeType)
        public static let double = AttributeType(rawValue: .doubleAttributeType)
        public static let float = AttributeType(rawValue: .floatAttributeType)
        public static let string = AttributeType(rawValue: .stringAttributeType)
        public static let boolean = AttributeType(rawValue: .booleanAttributeType)
        public static let date = AttributeType(rawValue: .dateAttributeType)
        public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
        public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
        public static let uri = AttributeType(rawValue: .URIAttributeType)
        public static let transformable = AttributeType(rawValue: .transformableAttributeType)
        public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
        public static let composite = AttributeType(rawValue: .compositeAttributeType)
    }
}
