import Foundation

/// The name under which a value transformer is registered, as Apple's Foundation spells it.
///
/// Linux Foundation has no value transformers; OpenCoreData provides them so that transformable
/// attributes work. Define your own names as Apple's documentation shows:
///
/// ```swift
/// extension NSValueTransformerName {
///     static let colorsTransformerName = NSValueTransformerName(rawValue: "ColorsTransformer")
/// }
/// ValueTransformer.setValueTransformer(ColorsTransformer(), forName: .colorsTransformerName)
/// ```
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name as a string: `NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue` is
    /// `"NSSecureUnarchiveFromData"`.
    public var rawValue: String

    /// Creates a name from a string: `NSValueTransformerName("ColorsTransformer")`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a name from a string: `NSValueTransformerName(rawValue: "ColorsTransformer")`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

extension NSValueTransformerName {
    /// `"NSNegateBoolean"`: turns a Boolean `NSNumber` into its negation, in both directions.
    ///
    /// ```swift
    /// ValueTransformer(forName: .negateBooleanTransformerName)?.transformedValue(true) as? Bool  // false
    /// ```
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")

    /// `"NSIsNil"`: returns a Boolean `NSNumber` that is true when the value is nil. Not reversible.
    ///
    /// ```swift
    /// ValueTransformer(forName: .isNilTransformerName)?.transformedValue(nil) as? Bool  // true
    /// ```
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")

    /// `"NSIsNotNil"`: returns a Boolean `NSNumber` that is true when the value is not nil. Not reversible.
    ///
    /// ```swift
    /// ValueTransformer(forName: .isNotNilTransformerName)?.transformedValue("x") as? Bool  // true
    /// ```
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")

    /// `"NSUnarchiveFromData"`: unarchives data (forward) and archives objects (reverse). Deprecated on
    /// Apple platforms. Apple's version reads and writes the old non-keyed (typedstream) format, which
    /// Linux cannot read or write: here the forward transformation decodes keyed archives (and returns
    /// nil for typedstream data), and the reverse transformation writes a keyed archive.
    ///
    /// ```swift
    /// let object = ValueTransformer(forName: .unarchiveFromDataTransformerName)?.transformedValue(data)
    /// ```
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")

    /// `"NSKeyedUnarchiveFromData"`: unarchives an `NSKeyedArchiver` archive without secure coding
    /// (forward) and archives an NSCoding object (reverse). Core Data's default transformer for transformable
    /// attributes with no transformer name; deprecated on Apple platforms in favour of
    /// ``secureUnarchiveFromDataTransformerName``.
    ///
    /// ```swift
    /// let object = ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName)?.transformedValue(data)
    /// ```
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")

    /// `"NSSecureUnarchiveFromData"`: an ``NSSecureUnarchiveFromDataTransformer`` that unarchives data into
    /// one of its allowed top-level classes (forward) and archives such an object with secure coding (reverse).
    ///
    /// ```swift
    /// let tags = ValueTransformer(forName: .secureUnarchiveFromDataTransformerName)?.transformedValue(data) as? [String]
    /// ```
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}
