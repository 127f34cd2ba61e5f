// Apple's built-in insecure archive transformers, NSKeyedUnarchiveFromData and NSUnarchiveFromData
// (both deprecated on Apple platforms in favour of NSSecureUnarchiveFromData). Apple's classes are
// private; these are registered under Apple's names and reached with `ValueTransformer(forName:)`.

import Foundation

/// `NSKeyedUnarchiveFromData`: unarchives an NSKeyedArchiver archive without secure coding (forward,
/// `Data` → object) and archives an NSCoding object (reverse, object → `Data`). Core Data's default
/// transformer for transformable attributes that name none, used in reverse when saving.
///
/// Every class in the archive must resolve (Foundation's classes by their Apple names; an app's classes
/// through `NSKeyedUnarchiver.setClass(_:forClassName:)`) and adopt NSCoding; otherwise, and for damaged
/// data, the result is nil.
///
/// ```swift
/// let transformer = ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName)!
/// let data = transformer.reverseTransformedValue(["a": 1]) as? Data
/// let dictionary = transformer.transformedValue(data) as? [String: Int]
/// ```
final class KeyedUnarchiveFromDataTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard !BooleanValue.isNil(value), let data = value as? Data else { return nil }
        return KeyedArchiving.unarchivedRootObject(from: data, allowedClasses: nil, requiresSecureCoding: false)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard !BooleanValue.isNil(value), let value else { return nil }
        return KeyedArchiving.archivedData(withRootObject: value, requiresSecureCoding: false)
    }
}

/// `NSUnarchiveFromData`. Apple's reads and writes archives of the old non-keyed `NSArchiver` format
/// ("typedstream"), which Linux Foundation cannot read or write. Here the forward direction decodes keyed
/// archives exactly as `NSKeyedUnarchiveFromData` does and returns nil for typedstream (and any other)
/// data; the reverse direction writes a keyed archive, which Apple's `NSUnarchiveFromData` cannot read.
///
/// ```swift
/// let transformer = ValueTransformer(forName: .unarchiveFromDataTransformerName)!
/// transformer.transformedValue(typedstreamData)  // nil
/// ```
final class UnarchiveFromDataTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }

    /// The first bytes of an `NSArchiver` archive: a version byte, then the length-prefixed "streamtyped".
    static let typedstreamSignature: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8)

    override func transformedValue(_ value: Any?) -> Any? {
        guard !BooleanValue.isNil(value), let data = value as? Data else { return nil }
        if data.starts(with: Self.typedstreamSignature) { return nil }
        return KeyedArchiving.unarchivedRootObject(from: data, allowedClasses: nil, requiresSecureCoding: false)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard !BooleanValue.isNil(value), let value else { return nil }
        return KeyedArchiving.archivedData(withRootObject: value, requiresSecureCoding: false)
    }
}
