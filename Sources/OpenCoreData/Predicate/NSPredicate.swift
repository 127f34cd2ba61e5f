import Foundation

/// A logical condition on an object — Apple's `NSPredicate` for Linux, with the full format-string language.
///
/// ```swift
/// let adults = NSPredicate(format: "age >= %d AND name BEGINSWITH[cd] %@", 18, "a")
/// adults.evaluate(with: ["name": "Ann", "age": 30]) // true
/// adults.predicateFormat                            // "age >= 18 AND name BEGINSWITH[cd] \"a\""
/// ```
///
/// `NSPredicate(format:)` returns an ``NSComparisonPredicate`` or ``NSCompoundPredicate`` (test with `as?`), or a
/// plain `NSPredicate` for `TRUEPREDICATE`/`FALSEPREDICATE`. Predicates are immutable and compare structurally.
///
/// In a file that imports Foundation as well as OpenCoreData, name the types with scoped imports
/// (`import class OpenCoreData.NSPredicate`), because swift-corelibs-foundation declares classes of the same names.
open class NSPredicate: NSObject, NSCopying, _PredicateFormatInitializable, @unchecked Sendable { // Immutable after init; a block predicate's closure is called, never changed.
    /// What a plain `NSPredicate` is (its subclasses override the behaviour instead).
    package enum Kind {
        case value(Bool)
        case block((Any?, [String: Any]?) -> Bool)
        case subclass
    }

    package let kind: Kind

    init(kind: Kind) {
        self.kind = kind
        super.init()
    }

    /// A predicate that is always `value` (`TRUEPREDICATE` or `FALSEPREDICATE`).
    ///
    /// ```swift
    /// NSPredicate(value: true).predicateFormat // "TRUEPREDICATE"
    /// ```
    public convenience init(value: Bool) {
        self.init(kind: .value(value))
    }

    /// A predicate computed by a closure from the evaluated object and the substitution variables.
    /// Block predicates cannot be printed as a format string or translated to SQL.
    ///
    /// ```swift
    /// let even = NSPredicate { object, _ in ((object as? Int) ?? 1) % 2 == 0 }
    /// ```
    public convenience init(block: @escaping (Any?, [String: Any]?) -> Bool) {
        self.init(kind: .block(block))
    }

    // MARK: Format

    /// The predicate in format-string syntax, as Apple prints it (`==`, upper-case keywords, double-quoted strings,
    /// `1`/`0` for booleans).
    ///
    /// ```swift
    /// NSPredicate(format: "name = 'x' and yes = yes").predicateFormat // "name == \"x\" AND 1 == 1"
    /// ```
    open var predicateFormat: String {
        PredicateFormatter.format(self)
    }

    /// The same as ``predicateFormat``.
    ///
    /// ```swift
    /// print(NSPredicate(format: "a < 1")) // a < 1
    /// ```
    open override var description: String {
        predicateFormat
    }

    // MARK: Evaluating

    /// Whether `object` satisfies the predicate; stops the program where Apple raises (an unknown key, an unbound
    /// variable, comparing a string with a number). Use ``evaluateThrowing(with:substitutionVariables:)`` for
    /// untrusted predicates.
    ///
    /// ```swift
    /// NSPredicate(format: "SELF BEGINSWITH 'J'").evaluate(with: "Java") // true
    /// ```
    open func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    /// Whether `object` satisfies the predicate with its variables bound to `bindings`; stops the program on an
    /// evaluation error.
    ///
    /// ```swift
    /// NSPredicate(format: "age > $min").evaluate(with: ["age": 30], substitutionVariables: ["min": 18]) // true
    /// ```
    open func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        do {
            return try evaluateThrowing(with: object, substitutionVariables: bindings)
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// Whether `object` satisfies the predicate, throwing an `NSError` (see ``PredicateErrorKey``) where Apple raises.
    ///
    /// ```swift
    /// let ok = try NSPredicate(format: "age > 1").evaluateThrowing(with: ["age": 2]) // true
    /// ```
    open func evaluateThrowing(with object: Any?, substitutionVariables: [String: Any]? = nil) throws -> Bool {
        var evaluator = PredicateEvaluator(bindings: substitutionVariables ?? [:])
        return try evaluator.evaluate(self, object: object)
    }

    /// A copy with the variables in `variables` replaced by constants (variables not in the dictionary stay).
    ///
    /// ```swift
    /// let template = NSPredicate(format: "name == $NAME")
    /// template.withSubstitutionVariables(["NAME": "Ben"]).predicateFormat // "name == \"Ben\""
    /// ```
    open func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        let substituted = PredicateSubstitution(variables: variables).substitute(self)
        guard let result = substituted as? Self else {
            fatalError("withSubstitutionVariables(_:) produced \(type(of: substituted)) for \(type(of: self))")
        }
        return result
    }

    /// Enables evaluation of a predicate that was decoded securely. Predicates here are always evaluable; the method
    /// exists for source compatibility.
    ///
    /// ```swift
    /// predicate.allowEvaluation()
    /// ```
    open func allowEvaluation() {}

    // MARK: Equality and copying

    /// Structural equality: same kind of predicate with equal parts.
    ///
    /// ```swift
    /// NSPredicate(format: "a = 1") == NSPredicate(format: "a == 1") // true
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        return PredicateStructure.equal(self, other)
    }

    /// A hash consistent with ``isEqual(_:)``.
    ///
    /// ```swift
    /// Set([NSPredicate(format: "a == 1"), NSPredicate(format: "a = 1")]).count // 1
    /// ```
    open override var hash: Int {
        PredicateStructure.hash(self)
    }

    /// Predicates are immutable, so a copy is the predicate itself.
    ///
    /// ```swift
    /// let same = predicate.copy() as! NSPredicate
    /// ```
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }
}

/// Carries the format-string initializers of ``NSPredicate``, which must return an instance of a subclass
/// (`NSPredicate(format: "a == 1")` is an ``NSComparisonPredicate``, as on Apple platforms). Swift class initializers
/// cannot do that; protocol extension initializers can. Not meant to be adopted elsewhere.
public protocol _PredicateFormatInitializable {}

extension _PredicateFormatInitializable where Self: NSPredicate {
    /// Parses a predicate from a format string with variadic arguments (`%@ %K %d %f %s …`); stops the program on a
    /// malformed string, as Apple raises. Use ``init(validatingFormat:argumentArray:)`` for untrusted text.
    ///
    /// ```swift
    /// let p = NSPredicate(format: "%K == %@ AND birthday > %@", "country", "NO", Date.distantPast)
    /// ```
    public init(format predicateFormat: String, _ args: any CVarArg...) {
        do {
            self = try Self.parsed(predicateFormat, arguments: .variadic(args))
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// Parses a predicate from a format string with an array of arguments; stops the program on a malformed string.
    ///
    /// ```swift
    /// let p = NSPredicate(format: "age BETWEEN %@", argumentArray: [[18, 65]])
    /// ```
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            self = try Self.parsed(predicateFormat, arguments: .array(arguments ?? []))
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// Parses a predicate from untrusted text, throwing an `NSError` in `NSCocoaErrorDomain` (code 2048, see
    /// ``PredicateErrorKey``) that says where and what was expected.
    ///
    /// ```swift
    /// do {
    ///     _ = try NSPredicate(validatingFormat: "name == ", argumentArray: nil)
    /// } catch {
    ///     print(error.localizedDescription) // "... expected an expression"
    /// }
    /// ```
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]?) throws {
        self = try Self.parsed(predicateFormat, arguments: .array(arguments ?? []))
    }

    private static func parsed(_ format: String, arguments: FormatArguments) throws -> Self {
        let predicate = try PredicateParser.parsePredicate(format, arguments: arguments)
        guard let result = predicate as? Self else {
            throw PredicateError.parse("the format describes \(type(of: predicate)), not \(Self.self)", format: format,
                                       offset: 0, token: "the whole format", expected: nil)
        }
        return result
    }
}
