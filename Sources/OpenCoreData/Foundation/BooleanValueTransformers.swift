// Apple's built-in Boolean value transformers: NSNegateBoolean, NSIsNil and NSIsNotNil. Apple's classes
// are private; these are registered under Apple's names and reached with `ValueTransformer(forName:)`.

import Foundation

/// `NSNegateBoolean`: returns a Boolean `NSNumber` that is the negation of the value's truth; reversible
/// (the reverse is the same negation).
///
/// The value's truth follows Objective-C's `boolValue`: a `Bool`, a non-zero number, a string such as
/// `"YES"` or `"1"`; nil counts as false (a message to nil returns NO), so nil becomes true. Values with
/// no truth (a date, an array) give nil.
///
/// ```swift
/// ValueTransformer(forName: .negateBooleanTransformerName)?.transformedValue(NSNumber(value: true))  // false
/// ```
final class NegateBooleanTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let truth = BooleanValue.truth(of: value) else { return nil }
        return NSNumber(value: !truth)
    }
}

/// `NSIsNil`: returns a Boolean `NSNumber` that is true when the value is nil. Not reversible.
///
/// ```swift
/// ValueTransformer(forName: .isNilTransformerName)?.transformedValue(nil)  // true
/// ```
final class IsNilTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }

    override func transformedValue(_ value: Any?) -> Any? {
        NSNumber(value: BooleanValue.isNil(value))
    }
}

/// `NSIsNotNil`: returns a Boolean `NSNumber` that is true when the value is not nil. Not reversible.
///
/// ```swift
/// ValueTransformer(forName: .isNotNilTransformerName)?.transformedValue("text")  // true
/// ```
final class IsNotNilTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }

    override func transformedValue(_ value: Any?) -> Any? {
        NSNumber(value: !BooleanValue.isNil(value))
    }
}

/// Objective-C's view of `Any?` values: nil-ness through nested optionals, and `boolValue`.
///
/// ```swift
/// BooleanValue.isNil(Optional<Optional<Int>>.some(nil))  // true
/// BooleanValue.truth(of: "YES")                          // true
/// ```
enum BooleanValue {
    /// True for nil, including an `Optional` boxed in `Any` that holds nil.
    static func isNil(_ value: Any?) -> Bool {
        guard let value else { return true }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return false }
        guard let wrapped = mirror.children.first?.value else { return true }
        return isNil(wrapped)
    }

    /// The value's `boolValue`, false for nil, or nil when the value has no truth value.
    static func truth(of value: Any?) -> Bool? {
        if isNil(value) { return false }
        switch value {
        case let flag as Bool: return flag
        case let number as NSNumber: return number.boolValue
        case let integer as any BinaryInteger: return isNonZero(integer)
        case let real as Double: return real != 0
        case let real as Float: return real != 0
        case let string as String: return NSString(string: string).boolValue
        case let string as NSString: return string.boolValue
        default: return nil
        }
    }

    private static func isNonZero<Integer: BinaryInteger>(_ integer: Integer) -> Bool {
        integer != 0
    }
}
