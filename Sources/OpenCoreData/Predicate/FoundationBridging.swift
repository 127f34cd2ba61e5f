import Foundation
import OpenCoreDataSupport

/// Values as Apple's Foundation hands them out where they leave the library (a constant's `constantValue`, an
/// expression's value, a key path through a collection operator, a dictionary fetch, a compiled model's `userInfo`).
///
/// On Apple platforms every number there is an `NSNumber` (an `NSDecimalNumber` for a decimal), which Swift's `as?`
/// bridges to any numeric type that holds its value exactly (`as? Int`, `as? Double`, `as? Bool` for 0 and 1). On
/// Linux an `Any` holding a Swift `Int` does not cast `as? Double`; one holding an `NSNumber` does. Inside the
/// library values keep their Swift types (no boxing in evaluation, fetching or faulting); this turns them into
/// Apple's form at the boundary:
///
/// ```swift
/// FoundationBridging.object(3) as? Double              // 3.0 (an NSNumber)
/// FoundationBridging.object([1, 2]) as? [Double]       // [1.0, 2.0]
/// FoundationBridging.object("a") as? String            // "a" (strings, dates, data, objects are left alone)
/// ```
package enum FoundationBridging {
    /// Collections nested deeper than this are left as they are.
    private static let maximumDepth = 32

    /// `value` in Apple's form: Swift numbers and booleans as `NSNumber`, `Decimal` as `NSDecimalNumber`, arrays,
    /// sets and dictionaries element by element (a new collection only when an element changes), optionals
    /// unwrapped; anything else as it is.
    package static func object(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return object(value, depth: 0)
    }

    /// ``object(_:)`` for a value known to be present.
    package static func object(_ value: Any) -> Any {
        object(value, depth: 0)
    }

    /// `value` in Apple's form for a Foundation container (`NSDictionary`, `NSArray`): Linux Foundation hands the
    /// shared Boolean `NSNumber`s it holds back as Swift `Bool`s (which cast to nothing but `Bool`), so a Boolean is
    /// stored as the integer `NSNumber` 0 or 1, which casts to `Bool`, `Int` and `Double` like Apple's.
    ///
    /// ```swift
    /// let row = NSMutableDictionary()
    /// row["done"] = FoundationBridging.containerElement(true)
    /// row["done"] as? Int   // 1
    /// ```
    package static func containerElement(_ value: Any) -> Any {
        let bridged = object(value)
        // Linux Foundation's Boolean NSNumbers are the two shared CFBoolean instances.
        guard type(of: bridged) is NSNumber.Type, let number = bridged as? NSNumber,
              number === NSNumber(value: true) || number === NSNumber(value: false) else { return bridged }
        return NSNumber(value: Int8(number.boolValue ? 1 : 0))
    }

    private static func object(_ value: Any, depth: Int) -> Any {
        changed(value, depth: depth) ?? value
    }

    /// `value` in Apple's form, or nil when that is `value` itself (so collections are copied only when an element
    /// changes). Objects (the usual elements: NSNumbers, managed objects) are recognized first, by their type; the
    /// collections key-value coding makes (`[Any]`, `Set<AnyHashable>`) by exact type; general casts come last.
    private static func changed(_ value: Any, depth: Int) -> Any? {
        let valueType = type(of: value)
        if valueType is AnyObject.Type { return nil }
        if let number = scalar(value) { return number }
        if valueType == String.self || valueType == Date.self || valueType == Data.self || valueType == UUID.self || valueType == URL.self {
            return nil
        }
        guard depth < maximumDepth else { return nil }
        if let set = ExactCast.exactly(value, Set<AnyHashable>.self) { return bridgedSet(set, depth: depth) }
        if let array = ExactCast.exactly(value, [Any].self) { return mapped(array, depth: depth) }
        if let array = value as? [Any] { return mapped(array, depth: depth) }
        if let set = value as? Set<AnyHashable> { return bridgedSet(set, depth: depth) }
        if let dictionary = value as? [String: Any] {
            guard dictionary.values.contains(where: { changed($0, depth: depth + 1) != nil }) else { return nil }
            return dictionary.mapValues { object($0, depth: depth + 1) }
        }
        if let dictionary = value as? [AnyHashable: Any] {
            guard dictionary.values.contains(where: { changed($0, depth: depth + 1) != nil }) else { return nil }
            return dictionary.mapValues { object($0, depth: depth + 1) }
        }
        if let box = value as? any AnyOptionalBox {
            guard let wrapped = box.wrappedAny else { return nil }
            return object(wrapped, depth: depth + 1)
        }
        return nil
    }

    /// A set with its elements bridged, or nil when none changes.
    private static func bridgedSet(_ set: Set<AnyHashable>, depth: Int) -> Any? {
        guard set.contains(where: { changed($0.base, depth: depth + 1) != nil }) else { return nil }
        var result = Set<AnyHashable>()
        for element in set {
            let bridged = object(element.base, depth: depth + 1)
            // Linux Foundation's NSDecimalNumber.hash recurses until the stack overflows: a set keeps its decimals as
            // `Decimal`s (which cast to `Decimal` as Apple's NSDecimalNumbers do).
            if let decimal = bridged as? NSDecimalNumber {
                result.insert(AnyHashable(decimal.decimalValue))
            } else if let hashable = bridged as? AnyHashable {
                result.insert(hashable)
            } else {
                result.insert(element)
            }
        }
        return result
    }

    /// The elements bridged, or nil when none changed.
    private static func mapped(_ elements: [Any], depth: Int) -> [Any]? {
        var result: [Any]?
        for (index, element) in elements.enumerated() {
            let bridged = changed(element, depth: depth + 1)
            if result == nil {
                guard bridged != nil else { continue }
                result = Array(elements[..<index])
                result?.reserveCapacity(elements.count)
            }
            result?.append(bridged ?? element)
        }
        return result
    }

    /// A Swift number, `Bool` or `Decimal` as its Foundation object (one opening of the existential, then type
    /// comparisons: no dynamic casts); nil for anything else.
    private static func scalar(_ value: Any) -> Any? {
        func open<Opened>(_ opened: Opened) -> Any? { scalarObject(opened) }
        return _openExistential(value, do: open)
    }

    /// ``scalar(_:)`` on the opened value. Each `unsafeBitCast` is to the type `Value` was just found to be.
    private static func scalarObject<Value>(_ value: Value) -> Any? {
        if Value.self == Int.self { return NSNumber(value: unsafeBitCast(value, to: Int.self)) }
        if Value.self == Double.self { return NSNumber(value: unsafeBitCast(value, to: Double.self)) }
        if Value.self == Bool.self { return NSNumber(value: unsafeBitCast(value, to: Bool.self)) }
        if Value.self == Int64.self { return NSNumber(value: unsafeBitCast(value, to: Int64.self)) }
        if Value.self == Int32.self { return NSNumber(value: unsafeBitCast(value, to: Int32.self)) }
        if Value.self == Int16.self { return NSNumber(value: unsafeBitCast(value, to: Int16.self)) }
        if Value.self == Int8.self { return NSNumber(value: unsafeBitCast(value, to: Int8.self)) }
        if Value.self == UInt.self { return NSNumber(value: unsafeBitCast(value, to: UInt.self)) }
        if Value.self == UInt64.self { return NSNumber(value: unsafeBitCast(value, to: UInt64.self)) }
        if Value.self == UInt32.self { return NSNumber(value: unsafeBitCast(value, to: UInt32.self)) }
        if Value.self == UInt16.self { return NSNumber(value: unsafeBitCast(value, to: UInt16.self)) }
        if Value.self == UInt8.self { return NSNumber(value: unsafeBitCast(value, to: UInt8.self)) }
        if Value.self == Float.self { return NSNumber(value: unsafeBitCast(value, to: Float.self)) }
        if Value.self == CGFloat.self { return NSNumber(value: Double(unsafeBitCast(value, to: CGFloat.self))) }
        if Value.self == Decimal.self { return NSDecimalNumber(decimal: unsafeBitCast(value, to: Decimal.self)) }
        return nil
    }
}
