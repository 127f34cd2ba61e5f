/// Swift types an attribute's `@Managed` property may have, converted straight from and to the stored form
/// (no `NSNumber` boxing on the hot path).
protocol ManagedAttributeValue {
    /// The value for a stored value (nil if it cannot represent it).
    static func fromStored(_ stored: StoredValue) -> Self?
    /// What a nil value of a non-optional property reads as (zero for scalars), if anything.
    static var zero: Self? { get }
}

extension ManagedAttributeValue {
    static var zero: Self? { nil }
}

extension ManagedAttributeValue where Self: Numeric {
    static var zero: Self? { Self.zero as Self }
}

extension Int: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Int? { stored.integerValue.map { Int(truncatingIfNeeded: $0) } }
}
extension Int64: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Int64? { stored.integerValue }
}
extension Int32: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Int32? { stored.integerValue.map { Int32(truncatingIfNeeded: $0) } }
}
extension Int16: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Int16? { stored.integerValue.map { Int16(truncatingIfNeeded: $0) } }
}
extension Bool: ManagedAttributeValue {
    static var zero: Bool? { false }
    static func fromStored(_ stored: StoredValue) -> Bool? { stored.integerValue.map { $0 != 0 } }
}
extension Double: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Double? { stored.doubleValue }
}
extension Float: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Float? { stored.doubleValue.map { Float($0) } }
}
extension Decimal: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Decimal? {
        if case .decimal(let value) = stored { return value }
        return stored.doubleValue.map { DecimalConversion.decimal($0) }
    }
}
extension String: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> String? {
        if case .text(let value) = stored { return value }
        return nil
    }
}
extension Date: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Date? {
        if case .date(let value) = stored { return value }
        return nil
    }
}
extension Data: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> Data? {
        if case .data(let value) = stored { return value }
        return nil
    }
}
extension UUID: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> UUID? {
        if case .uuid(let value) = stored { return value }
        return nil
    }
}
extension URL: ManagedAttributeValue {
    static func fromStored(_ stored: StoredValue) -> URL? {
        if case .url(let value) = stored { return value }
        return nil
    }
}

extension StoredValue {
    var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return value.isFinite ? Int64(exactly: value.rounded(.towardZero)) : nil
        case .decimal(let value): return ValueConversion.integer(value)
        default: return nil
        }
    }

    var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case .decimal(let value): return DecimalConversion.double(value)
        default: return nil
        }
    }
}

/// Optional types, seen through a protocol (so generic code can make `nil` or unwrap).
protocol OptionalValue {
    static var none_: Self { get }
    static var wrappedType: Any.Type { get }
    static func wrapping(_ value: Any) -> Self?
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    static var none_: Self { nil }
    static var wrappedType: Any.Type { Wrapped.self }
    static func wrapping(_ value: Any) -> Self? { (value as? Wrapped).map { .some($0) } }
    var wrapped: Any? {
        switch self {
        case .none: return nil
        case .some(let value): return (value as? OptionalValue)?.wrapped ?? value
        }
    }
}
