/// Conversions between the values users pass through key-value coding (any Swift number, `NSNumber`,
/// `String`, `Date`, `Data`, `UUID`, `URL` and their Foundation classes) and the stored form of an attribute.
enum ValueConversion {
    /// The stored form of `value` for `attribute`, or `nil` if `value` is of the wrong kind.
    /// `nil` and `NSNull` become `.null`. Transformable attributes are handled by the caller.
    static func storedValue(fromKVC value: Any?, for attribute: NSAttributeDescription) -> StoredValue? {
        guard let value else { return .null }
        if let stored = storedValue(ofUsualType: value, for: attribute.attributeType) { return stored }
        guard !isNull(value) else { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return integer(value).map { .integer(clamp($0, to: attribute.attributeType)) }
        case .booleanAttributeType:
            return integer(value).map { .integer($0 == 0 ? 0 : 1) }
        case .doubleAttributeType:
            return real(value).map { .real($0) }
        case .floatAttributeType:
            return real(value).map { .real(Double(Float($0))) }
        case .decimalAttributeType:
            return decimal(value).map { .decimal($0) }
        case .stringAttributeType:
            return string(value).map { .text($0) }
        case .dateAttributeType:
            if let date = object(value, as: NSDate.self) { return .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)) }
            if let date = value as? Date { return .date(date) }
            return nil
        case .binaryDataAttributeType:
            // A Swift `Data` as itself; an `NSData` copied in one go (the bridging cast copies byte by byte on Linux).
            if type(of: value) == Data.self, let data = value as? Data { return .data(data) }
            if let data = object(value, as: NSData.self) { return .data(data.length == 0 ? Data() : Data(bytes: data.bytes, count: data.length)) }
            if let data = value as? Data { return .data(data) }
            if let bytes = value as? [UInt8] { return .data(Data(bytes)) }
            return nil
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return .uuid(uuid) }
            if let uuid = value as? NSUUID { return .uuid(UUID(uuidString: uuid.uuidString)!) }
            return nil
        case .URIAttributeType:
            if let url = value as? URL { return .url(url) }
            if let url = value as? NSURL, let absolute = url.absoluteURL { return .url(absolute) }
            return nil
        case .undefinedAttributeType, .transformableAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return nil
        }
    }

    /// `value` as a reference when it is an instance of a class (found by opening the existential, without a
    /// cast); nil when it is a value of another kind. A class reference in an `Any` is boxed with the type it had
    /// (`NSObject` for `==`'s operand), so the class it is checked for is asked of the reference (`as?` on a
    /// reference: a class cast, not the general dynamic cast from `Any`).
    ///
    /// ```swift
    /// ValueConversion.instance(mood as Any) === mood   // true
    /// ValueConversion.instance(1 as Any)               // nil
    /// ```
    static func instance(_ value: Any) -> AnyObject? {
        // A class instance is one reference: the bit cast reads it as `AnyObject`.
        func open<Opened>(_ opened: Opened) -> AnyObject? { Opened.self is AnyObject.Type ? unsafeBitCast(opened, to: AnyObject.self) : nil }
        return _openExistential(value, do: open)
    }

    /// The stored form of a value whose type is exactly one of the usual Swift types of `attributeType` (`Int`,
    /// `Int64`, `Int32`, `Int16`, `Bool`, `Double`, `Float`, `String`, `Date`, `Data`, `UUID`, `URL`); nil for any
    /// other value, which the general conversion then takes. One opening of the existential for every candidate type
    /// (see `ExactCast.exactly(_:_:)`).
    ///
    /// ```swift
    /// ValueConversion.storedValue(ofUsualType: "a", for: .stringAttributeType)   // .text("a")
    /// ValueConversion.storedValue(ofUsualType: "a", for: .dateAttributeType)     // nil
    /// ```
    static func storedValue(ofUsualType value: Any, for attributeType: NSAttributeType) -> StoredValue? {
        func open<Value>(_ value: Value) -> StoredValue? { storedValue(ofUsualType: value, attributeType) }
        return _openExistential(value, do: open)
    }

    /// ``storedValue(ofUsualType:for:)`` on the opened value. Each `unsafeBitCast` is to the type `Value` was just
    /// found to be, so it copies the value as itself.
    private static func storedValue<Value>(ofUsualType value: Value, _ attributeType: NSAttributeType) -> StoredValue? {
        switch attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if Value.self == Int.self { return .integer(clamp(Int64(unsafeBitCast(value, to: Int.self)), to: attributeType)) }
            if Value.self == Int64.self { return .integer(clamp(unsafeBitCast(value, to: Int64.self), to: attributeType)) }
            if Value.self == Int32.self { return .integer(clamp(Int64(unsafeBitCast(value, to: Int32.self)), to: attributeType)) }
            if Value.self == Int16.self { return .integer(clamp(Int64(unsafeBitCast(value, to: Int16.self)), to: attributeType)) }
        case .booleanAttributeType:
            if Value.self == Bool.self { return .integer(unsafeBitCast(value, to: Bool.self) ? 1 : 0) }
        case .doubleAttributeType:
            if Value.self == Double.self { return .real(unsafeBitCast(value, to: Double.self)) }
        case .floatAttributeType:
            if Value.self == Float.self { return .real(Double(unsafeBitCast(value, to: Float.self))) }
            if Value.self == Double.self { return .real(Double(Float(unsafeBitCast(value, to: Double.self)))) }
        case .stringAttributeType:
            if Value.self == String.self { return .text(unsafeBitCast(value, to: String.self)) }
        case .dateAttributeType:
            if Value.self == Date.self { return .date(unsafeBitCast(value, to: Date.self)) }
        case .binaryDataAttributeType:
            if Value.self == Data.self { return .data(unsafeBitCast(value, to: Data.self)) }
        case .UUIDAttributeType:
            if Value.self == UUID.self { return .uuid(unsafeBitCast(value, to: UUID.self)) }
        case .URIAttributeType:
            if Value.self == URL.self { return .url(unsafeBitCast(value, to: URL.self)) }
        default:
            break
        }
        return nil
    }

    /// The key-value-coding form of a stored value, as Apple's `value(forKey:)` returns it: `NSNumber` for
    /// numbers and booleans, `NSDecimalNumber` for decimals, Swift `String`, `Date`, `Data`, `UUID`, `URL`.
    static func kvcValue(_ stored: StoredValue, for attribute: NSAttributeDescription) -> Any? {
        switch stored {
        case .null: return nil
        case .integer(let value):
            switch attribute.attributeType {
            case .booleanAttributeType: return NSNumber(value: value != 0)
            case .integer16AttributeType: return NSNumber(value: Int16(truncatingIfNeeded: value))
            case .integer32AttributeType: return NSNumber(value: Int32(truncatingIfNeeded: value))
            case .doubleAttributeType: return NSNumber(value: Double(value))
            case .floatAttributeType: return NSNumber(value: Float(value))
            case .decimalAttributeType: return NSDecimalNumber(value: value)
            default: return NSNumber(value: value)
            }
        case .real(let value):
            switch attribute.attributeType {
            case .floatAttributeType: return NSNumber(value: Float(value))
            case .decimalAttributeType: return NSDecimalNumber(value: value)
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
                return NSNumber(value: Int64(exactly: value.rounded(.towardZero)) ?? 0)
            case .booleanAttributeType: return NSNumber(value: value != 0)
            default: return NSNumber(value: value)
            }
        case .decimal(let value): return NSDecimalNumber(decimal: value)
        case .text(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .uuid(let value): return value
        case .url(let value): return value
        }
    }

    /// An integer from any Swift integer, floating-point number, `Bool`, `NSNumber` or `Decimal`.
    static func integer(_ value: Any) -> Int64? {
        if let number = object(value, as: NSNumber.self) {
            // A floating-point number is truncated and range-checked as a `Double` is.
            let type = number.objCType.pointee
            return type == CChar(UInt8(ascii: "d")) || type == CChar(UInt8(ascii: "f")) ? integer(number.doubleValue) : number.int64Value
        }
        // The common types by their type first: the casts of the `switch` are tried in turn (a `Bool` failed ten).
        let valueType = type(of: value)
        if valueType == Int.self, let value = value as? Int { return Int64(value) }
        if valueType == Int64.self, let value = value as? Int64 { return value }
        if valueType == Bool.self, let value = value as? Bool { return value ? 1 : 0 }
        switch value {
        case let value as Int: return Int64(value)
        case let value as Int64: return value
        case let value as Int32: return Int64(value)
        case let value as Int16: return Int64(value)
        case let value as Int8: return Int64(value)
        case let value as UInt: return Int64(truncatingIfNeeded: value)
        case let value as UInt64: return Int64(truncatingIfNeeded: value)
        case let value as UInt32: return Int64(value)
        case let value as UInt16: return Int64(value)
        case let value as UInt8: return Int64(value)
        case let value as Bool: return value ? 1 : 0
        case let value as Double: return value.isFinite ? Int64(exactly: value.rounded(.towardZero)) ?? (value < 0 ? .min : .max) : nil
        case let value as Float: return integer(Double(value))
        case let value as Decimal: return integer(DecimalConversion.double(value))
        case let value as NSNumber: return value.int64Value
        default: return nil
        }
    }

    /// One `NSNull` for the values change tracking records as "was nil" (every set of a new object's property
    /// records one; a new instance each time was an allocation per set).
    static let null = NSNull()

    /// Whether `value` is `NSNull` (`nil` is not). A type test: on Linux `value is NSNull` first bridges a Swift
    /// value such as a `String` or an `Int` to a new Foundation object.
    @inline(__always)
    static func isNull(_ value: Any?) -> Bool {
        guard let value else { return false }
        return type(of: value) is NSNull.Type
    }

    /// `value` as a Swift string when it is a `String` or an `NSString` (the class tested by type first: casting an
    /// `NSString` to `String` tries the bridging casts).
    static func string(_ value: Any) -> String? {
        if let string = ExactCast.exactly(value, String.self) { return string }
        if let string = object(value, as: NSString.self) { return string as String }
        return value as? String
    }

    /// `value` when it is an instance of the class `Class` (or of a subclass); `nil` for Swift values, without
    /// trying the bridging casts (`as? NSNumber` on an `Int` would make an `NSNumber`, `as? Int` on an `NSNumber`
    /// searches the protocol conformances), which are slow on Linux.
    @inline(__always)
    static func object<Class: AnyObject>(_ value: Any, as _: Class.Type) -> Class? {
        guard type(of: value) is Class.Type else { return nil }
        return value as? Class
    }

    /// A double from any Swift number, `Bool`, `NSNumber` or `Decimal`.
    static func real(_ value: Any) -> Double? {
        if let number = object(value, as: NSNumber.self) { return number.doubleValue }
        switch value {
        case let value as Double: return value
        case let value as Float: return Double(value)
        case let value as Decimal: return DecimalConversion.double(value)
        case let value as NSNumber: return value.doubleValue
        default: return integer(value).map(Double.init)
        }
    }

    /// A decimal from any Swift number, `NSNumber`, `NSDecimalNumber` or `Decimal`.
    static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let value as Decimal: return value
        case let value as NSDecimalNumber: return value.decimalValue
        case let value as Double: return DecimalConversion.decimal(value)
        case let value as Float: return DecimalConversion.decimal(Double(value))
        case let value as NSNumber: return value.decimalValue
        default: return integer(value).map { Decimal($0) }
        }
    }

    /// Integers wrap to the attribute's width, as storing into an Int16/Int32 column does.
    static func clamp(_ value: Int64, to type: NSAttributeType) -> Int64 {
        switch type {
        case .integer16AttributeType: return Int64(Int16(truncatingIfNeeded: value))
        case .integer32AttributeType: return Int64(Int32(truncatingIfNeeded: value))
        default: return value
        }
    }

    /// A readable name of a value's type for messages.
    static func typeName(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: type(of: value))
    }

    /// The kinds of value an attribute accepts, for messages.
    static func expectedKinds(_ attribute: NSAttributeDescription) -> String {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
            .floatAttributeType, .booleanAttributeType, .decimalAttributeType:
            return "a number (any Swift integer or floating-point type, Bool, Decimal or NSNumber)"
        case .stringAttributeType: return "String or NSString"
        case .dateAttributeType: return "Date or NSDate"
        case .binaryDataAttributeType: return "Data or NSData"
        case .UUIDAttributeType: return "UUID or NSUUID"
        case .URIAttributeType: return "URL or NSURL"
        case .transformableAttributeType: return "a value its transformer accepts"
        default: return "no value (the attribute's type cannot hold one)"
        }
    }
}
