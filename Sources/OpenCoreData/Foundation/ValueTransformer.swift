import Foundation

/// An abstract class that transforms values from one representation to another — Apple's
/// `ValueTransformer`, which Linux Foundation lacks.
///
/// Subclass it, override ``transformedValueClass()``, ``allowsReverseTransformation()``,
/// ``transformedValue(_:)`` and (when reversible) ``reverseTransformedValue(_:)``, and register an
/// instance by name so that a Core Data model's transformable attributes can find it:
///
/// ```swift
/// final class UppercaseTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSString.self }
///     override class func allowsReverseTransformation() -> Bool { false }
///     override func transformedValue(_ value: Any?) -> Any? { (value as? String)?.uppercased() }
/// }
/// ValueTransformer.setValueTransformer(UppercaseTransformer(), forName: NSValueTransformerName("Uppercase"))
/// let shout = ValueTransformer(forName: NSValueTransformerName("Uppercase"))?.transformedValue("hi")  // "HI"
/// ```
///
/// The registry starts with Apple's built-in transformers under their names:
/// ``NSValueTransformerName/negateBooleanTransformerName``, ``NSValueTransformerName/isNilTransformerName``,
/// ``NSValueTransformerName/isNotNilTransformerName``, ``NSValueTransformerName/unarchiveFromDataTransformerName``,
/// ``NSValueTransformerName/keyedUnarchiveFromDataTransformerName`` and
/// ``NSValueTransformerName/secureUnarchiveFromDataTransformerName``.
///
/// Registered transformers are shared by every thread (Core Data calls them from any context's queue),
/// so a transformer should not keep mutable state, as with Apple's.
///
/// Differences from Apple's (there is no Objective-C runtime on Linux): `ValueTransformer(forName:)` finds
/// only registered transformers — Apple's also instantiates and registers a `ValueTransformer` subclass
/// whose class name equals the name — and `ValueTransformer(forName:)` called on a subclass returns nil
/// when the registered transformer is not of that subclass.
open class ValueTransformer: NSObject {
    /// Creates a transformer; subclasses override to set up their state.
    ///
    /// ```swift
    /// ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
    /// ```
    public override init() {
        super.init()
    }

    /// Registers `transformer` under `name` (nil removes the registration), replacing any transformer
    /// already registered under that name — including the built-in ones.
    ///
    /// ```swift
    /// ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
    /// ```
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        ValueTransformerRegistry.shared.set(transformer, forName: name)
    }

    /// The names of all registered transformers, built-in ones included (sorted by name).
    ///
    /// ```swift
    /// ValueTransformer.valueTransformerNames().contains(.secureUnarchiveFromDataTransformerName)  // true
    /// ```
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        ValueTransformerRegistry.shared.names()
    }

    /// The class of the values ``transformedValue(_:)`` returns. The default is `NSObject`.
    ///
    /// ```swift
    /// override class func transformedValueClass() -> AnyClass { NSData.self }
    /// ```
    open class func transformedValueClass() -> AnyClass {
        NSObject.self
    }

    /// Whether the transformer supports ``reverseTransformedValue(_:)``. The default is true.
    ///
    /// ```swift
    /// override class func allowsReverseTransformation() -> Bool { false }
    /// ```
    open class func allowsReverseTransformation() -> Bool {
        true
    }

    /// Returns the transformed value. The default implementation returns `value` unchanged.
    ///
    /// ```swift
    /// override func transformedValue(_ value: Any?) -> Any? { (value as? [Color]).map(Color.data(of:)) }
    /// ```
    open func transformedValue(_ value: Any?) -> Any? {
        value
    }

    /// Returns the result of the reverse transformation.
    ///
    /// The default implementation stops the program (Apple raises an exception) when
    /// ``allowsReverseTransformation()`` returns false; otherwise it returns ``transformedValue(_:)`` of
    /// `value`. Override it when the reverse transformation is not the forward one applied again.
    ///
    /// ```swift
    /// override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map(Color.colors(from:)) }
    /// ```
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard type(of: self).allowsReverseTransformation() else {
            preconditionFailure("\(type(of: self)): reverseTransformedValue(_:) called on a value transformer that does not allow reverse transformation")
        }
        return transformedValue(value)
    }
}

/// Gives `ValueTransformer` Apple's `init?(forName:)`, which returns the *registered* instance rather than
/// a new one (a class initializer cannot do that; a protocol extension initializer can). Not for direct use:
///
/// ```swift
/// let transformer = ValueTransformer(forName: .isNilTransformerName)  // provided through this protocol
/// ```
public protocol _ValueTransformerLookup {}

extension ValueTransformer: _ValueTransformerLookup {}

extension _ValueTransformerLookup where Self: ValueTransformer {
    /// Returns the transformer registered under `name`, or nil when none is (or when it is not an instance
    /// of the class this initializer is called on).
    ///
    /// ```swift
    /// let transformer = ValueTransformer(forName: .secureUnarchiveFromDataTransformerName)
    /// let colors = ValueTransformer(forName: NSValueTransformerName("ColorsTransformer"))?.reverseTransformedValue(data)
    /// ```
    public init?(forName name: NSValueTransformerName) {
        guard let registered = ValueTransformerRegistry.shared.transformer(forName: name) as? Self else { return nil }
        self = registered
    }
}
