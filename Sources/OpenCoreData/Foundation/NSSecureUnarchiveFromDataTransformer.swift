import Foundation

/// A value transformer that unarchives data into objects of its allowed classes and archives such objects
/// with secure coding — Apple's `NSSecureUnarchiveFromDataTransformer`, registered as
/// ``NSValueTransformerName/secureUnarchiveFromDataTransformerName`` (`"NSSecureUnarchiveFromData"`).
///
/// Its *forward* direction, ``transformedValue(_:)``, takes `Data` and returns the unarchived object; its
/// *reverse* direction, ``reverseTransformedValue(_:)``, takes an object and returns the `Data` of its
/// keyed archive. Core Data therefore uses it (and its subclasses, and `NSKeyedUnarchiveFromData`, the
/// default when a transformable attribute names no transformer) "in reverse": `reverseTransformedValue`
/// when saving an attribute value to the store, `transformedValue` when reading it back. For every other
/// named transformer Core Data calls `transformedValue` when saving and `reverseTransformedValue` when reading.
///
/// Only archives whose top-level object — and, as with Apple's secure decoding, every element, key and
/// value of a top-level array, set or dictionary — is a kind of one of ``allowedTopLevelClasses`` are
/// decoded; anything else (another class, damaged data, a class that does not adopt `NSSecureCoding`)
/// gives nil, quietly. Subclass to allow your own classes:
///
/// ```swift
/// final class ContentTransformer: NSSecureUnarchiveFromDataTransformer {
///     static let name = NSValueTransformerName(rawValue: "ContentTransformer")
///     override class var allowedTopLevelClasses: [AnyClass] { [Content.self] }  // Content: NSSecureCoding
/// }
/// ValueTransformer.setValueTransformer(ContentTransformer(), forName: ContentTransformer.name)
/// let data = ContentTransformer().reverseTransformedValue(Content(text: "Hi")) as? Data
/// let content = ContentTransformer().transformedValue(data) as? Content
/// ```
///
/// Archives written on Apple platforms name an app's classes by their Objective-C names (`"Content"` for
/// `@objc(Content)`, `"AppModule.Content"` otherwise), which do not exist on Linux; such a name also
/// matches an allowed class with the same unqualified name (`MyApp.Content`). Other names can be mapped
/// with `NSKeyedUnarchiver.setClass(_:forClassName:)`.
///
/// On Linux, an `init(coder:)` that asks `decodeObject(of:forKey:)` for a key the archive lacks fails the whole
/// decoding (Apple's returns nil for that key): check `coder.containsValue(forKey:)` first for optional values.
/// Objects of classes nested in another type, private or generic cannot be archived on Linux (the reverse
/// transformation returns nil), and object graphs with cycles or deeper than 100 objects are refused.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes the top-level object of an archive must be a kind of, when decoding and encoding.
    ///
    /// The value of ``ValueTransformer/transformedValueClass()`` when a subclass overrides it; otherwise
    /// `NSArray`, `NSDictionary`, `NSSet`, `NSString`, `NSNumber`, `NSDate`, `NSData`, `NSURL`, `NSUUID`
    /// and `NSNull`, as Apple documents. Override it to allow other classes:
    ///
    /// ```swift
    /// override class var allowedTopLevelClasses: [AnyClass] { [Content.self, NSArray.self] }
    /// ```
    open class var allowedTopLevelClasses: [AnyClass] {
        let valueClass: AnyClass = transformedValueClass()
        if valueClass != NSObject.self { return [valueClass] }
        return [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self,
                NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    /// True: the reverse direction archives objects of the allowed classes.
    ///
    /// ```swift
    /// NSSecureUnarchiveFromDataTransformer.allowsReverseTransformation()  // true
    /// ```
    open override class func allowsReverseTransformation() -> Bool {
        true
    }

    /// Unarchives `Data` (or `NSData`) into an object of an allowed class; nil for anything else.
    ///
    /// ```swift
    /// let tags = NSSecureUnarchiveFromDataTransformer().transformedValue(data) as? [String]
    /// ```
    open override func transformedValue(_ value: Any?) -> Any? {
        guard !BooleanValue.isNil(value), let data = value as? Data else { return nil }
        return KeyedArchiving.unarchivedRootObject(from: data, allowedClasses: type(of: self).allowedTopLevelClasses,
                                                   requiresSecureCoding: true)
    }

    /// Archives an object of an allowed class with secure coding and returns the archive's `Data`; nil when
    /// the value is nil, not of an allowed class, or does not support secure coding.
    ///
    /// ```swift
    /// let data = NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(["a", "b"]) as? Data
    /// ```
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard !BooleanValue.isNil(value), let value else { return nil }
        let object = KeyedArchiving.bridgedObject(value)
        guard ArchiveClassResolver.isKind(type(of: object), ofAnyOf: type(of: self).allowedTopLevelClasses) else {
            return nil
        }
        return KeyedArchiving.archivedData(withRootObject: value, requiresSecureCoding: true)
    }
}
