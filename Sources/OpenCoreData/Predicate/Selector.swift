/// The name of an Objective-C method, standing in for `Selector` and `#selector` where there is no Objective-C runtime.
///
/// Portable code spells a selector by its name, which compiles against both Apple's Foundation and OpenCoreData:
///
/// ```swift
/// let byName = NSSortDescriptor(key: "name", ascending: true,
///                               selector: Selector("localizedStandardCompare:"))
/// let literal: Selector = "caseInsensitiveCompare:"
/// ```
public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method name, colons included (`"compare:"`).
    public let name: String

    /// Creates a selector from a method name such as `"localizedCompare:"`.
    ///
    /// ```swift
    /// let s = Selector("compare:")
    /// ```
    public init(_ name: String) {
        self.name = name
    }

    /// Creates a selector from a string literal.
    ///
    /// ```swift
    /// let s: Selector = "compare:"
    /// ```
    public init(stringLiteral value: String) {
        self.name = value
    }

    /// The method name, as `NSStringFromSelector` returns it.
    ///
    /// ```swift
    /// Selector("compare:").description // "compare:"
    /// ```
    public var description: String { name }
}

/// Returns the name of a selector, as Apple's function of the same name does.
///
/// ```swift
/// NSStringFromSelector(Selector("compare:")) // "compare:"
/// ```
public func NSStringFromSelector(_ selector: Selector) -> String {
    selector.name
}

/// Returns the selector with a given name, as Apple's function of the same name does.
///
/// ```swift
/// let s = NSSelectorFromString("caseInsensitiveCompare:")
/// ```
public func NSSelectorFromString(_ name: String) -> Selector {
    Selector(name)
}
