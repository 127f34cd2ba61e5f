import Foundation

/// A comparison of two expressions (`lhs op[options] rhs`, optionally `ANY`/`ALL`) — Apple's `NSComparisonPredicate`.
///
/// ```swift
/// let p = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "name"),
///                               rightExpression: NSExpression(forConstantValue: "a"),
///                               modifier: .direct, type: .beginsWith, options: [.caseInsensitive])
/// p.predicateFormat // "name BEGINSWITH[c] \"a\""
/// ```
open class NSComparisonPredicate: NSPredicate, @unchecked Sendable { // Immutable after init: every stored property is a `let`.
    /// How the left-hand side is quantified, with Apple's raw values. (`NONE` is `NOT ANY`.)
    public enum Modifier: UInt, Sendable {
        /// Compare the left value itself.
        case direct = 0
        /// `ALL`: every element of the left collection must satisfy the comparison (true for an empty collection).
        case all = 1
        /// `ANY`/`SOME`: at least one element must satisfy it.
        case any = 2
    }

    /// The comparison operators, with Apple's raw values.
    public enum Operator: UInt, Sendable {
        /// `<`
        case lessThan = 0
        /// `<=`
        case lessThanOrEqualTo = 1
        /// `>`
        case greaterThan = 2
        /// `>=`
        case greaterThanOrEqualTo = 3
        /// `==`
        case equalTo = 4
        /// `!=`
        case notEqualTo = 5
        /// `MATCHES` (ICU regular expression, whole string)
        case matches = 6
        /// `LIKE` (`*` and `?` wildcards, whole string)
        case like = 7
        /// `BEGINSWITH`
        case beginsWith = 8
        /// `ENDSWITH`
        case endsWith = 9
        /// `IN`
        case `in` = 10
        /// A method named by ``NSComparisonPredicate/customSelector``.
        case customSelector = 11
        /// `CONTAINS`
        case contains = 99
        /// `BETWEEN`
        case between = 100
    }

    /// String comparison options: `[c]`, `[d]`, `[n]`, `[l]`, with Apple's raw values.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt
        /// Creates options from raw bits.
        ///
        /// ```swift
        /// let cd = NSComparisonPredicate.Options(rawValue: 3) // [c] and [d]
        /// ```
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive (Unicode case folding, see ``PredicateStringComparison``).
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized; compare them as they are.
        public static let normalized = Options(rawValue: 4)
        /// `[l]`: compare with the current locale's rules.
        public static let localeSensitive = Options(rawValue: 8)
    }

    /// The left-hand expression.
    public let leftExpression: NSExpression
    /// The right-hand expression.
    public let rightExpression: NSExpression
    /// `direct`, `ANY` or `ALL`.
    public let comparisonPredicateModifier: Modifier
    /// The operator.
    public let predicateOperatorType: Operator
    /// The string options.
    public let options: Options
    /// The selector of a ``Operator/customSelector`` comparison, `nil` otherwise.
    public let customSelector: Selector?

    /// A comparison with an operator, modifier and options.
    ///
    /// ```swift
    /// let p = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "tags"),
    ///                               rightExpression: NSExpression(forConstantValue: "swift"),
    ///                               modifier: .any, type: .equalTo, options: [.caseInsensitive])
    /// p.predicateFormat // "ANY tags ==[c] \"swift\""
    /// ```
    public init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, modifier: Modifier, type: Operator,
                options: Options = []) {
        self.leftExpression = lhs
        self.rightExpression = rhs
        self.comparisonPredicateModifier = modifier
        self.predicateOperatorType = type
        self.options = options
        self.customSelector = nil
        super.init(kind: .subclass)
    }

    /// A comparison by a method of the left value taking the right value (`isEqualToString:`, `hasPrefix:`,
    /// `containsObject:`, … — see the documentation of `PredicateFunctions` for the supported methods).
    ///
    /// ```swift
    /// let p = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "name"),
    ///                               rightExpression: NSExpression(forConstantValue: "Jo"),
    ///                               customSelector: Selector("hasPrefix:"))
    /// ```
    public init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, customSelector selector: Selector) {
        self.leftExpression = lhs
        self.rightExpression = rhs
        self.comparisonPredicateModifier = .direct
        self.predicateOperatorType = .customSelector
        self.options = []
        self.customSelector = selector
        super.init(kind: .subclass)
    }

    /// The UTI operators parse and print but cannot be evaluated (no uniform type identifiers on Linux).
    enum UTIOperator: String {
        case conformsTo = "UTI-CONFORMS-TO"
        case equals = "UTI-EQUALS"
        var selector: Selector { Selector(rawValue) }
    }

    var utiOperator: UTIOperator? {
        guard predicateOperatorType == .customSelector, let name = customSelector?.name else { return nil }
        return UTIOperator(rawValue: name)
    }
}
