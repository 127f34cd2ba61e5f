extension NSPropertyDescription {
    /// The predicates a value of this property must satisfy (`SELF` is the value), as Xcode's model compiler
    /// makes them from the model editor's minimum, maximum and regular-expression settings, or as set in code.
    ///
    /// For example:
    /// ```swift
    /// rating.setValidationPredicates([NSPredicate(format: "SELF <= 5")],
    ///                                withValidationWarnings: ["The rating is at most 5."])
    /// rating.validationPredicates.map(\.predicateFormat)   // ["SELF <= 5"]
    /// ```
    public var validationPredicates: [NSPredicate] { _validationRules.map(\.predicate) }

    /// The warnings paired with `validationPredicates`: error codes (`NSNumber`, e.g.
    /// `NSValidationNumberTooLargeError`) or messages (`String`).
    public var validationWarnings: [Any] { _validationRules.map(\.warning) }

    /// Sets the validation predicates and their warnings (the arrays pair up by index).
    public func setValidationPredicates(_ validationPredicates: [NSPredicate]?, withValidationWarnings validationWarnings: [String]?) {
        willMutate("validationPredicates")
        let predicates = validationPredicates ?? []
        let warnings = validationWarnings ?? []
        precondition(predicates.count == warnings.count, "validationPredicates and validationWarnings must have the same count (\(predicates.count) ≠ \(warnings.count)).")
        _validationRules = zip(predicates, warnings).map { ValidationRule(predicate: $0, warning: $1) }
    }

    /// The rules with their predicates, for validation.
    var validationPredicatesAndRules: [(NSPredicate, ValidationRule)] {
        _validationRules.map { ($0.predicate, $0) }
    }
}
