import Foundation

/// `AND`, `OR` and `NOT` of other predicates — Apple's `NSCompoundPredicate`.
///
/// ```swift
/// let both = NSCompoundPredicate(andPredicateWithSubpredicates: [
///     NSPredicate(format: "age >= 18"), NSPredicate(format: "name != nil"),
/// ])
/// both.predicateFormat // "age >= 18 AND name != nil"
/// ```
open class NSCompoundPredicate: NSPredicate, @unchecked Sendable { // Immutable after init: every stored property is a `let`.
    /// The logical operators, with Apple's raw values.
    public enum LogicalType: UInt, Sendable {
        /// `NOT` of one subpredicate.
        case not = 0
        /// `AND` of all subpredicates (true when there are none).
        case and = 1
        /// `OR` of the subpredicates (false when there are none).
        case or = 2
    }

    /// The logical operator.
    public let compoundPredicateType: LogicalType
    package let predicates: [NSPredicate]

    /// The subpredicates (`NSPredicate` instances), as Apple types them.
    ///
    /// ```swift
    /// (NSPredicate(format: "a == 1 OR b == 2") as! NSCompoundPredicate).subpredicates.count // 2
    /// ```
    open var subpredicates: [Any] { predicates }

    /// A compound of the given type; `NOT` takes exactly one subpredicate.
    ///
    /// ```swift
    /// let either = NSCompoundPredicate(type: .or, subpredicates: [p1, p2])
    /// ```
    public init(type: LogicalType, subpredicates: [NSPredicate]) {
        precondition(type != .not || subpredicates.count == 1, "A NOT compound predicate takes exactly one subpredicate")
        self.compoundPredicateType = type
        self.predicates = subpredicates
        super.init(kind: .subclass)
    }

    /// `AND` of the subpredicates.
    ///
    /// ```swift
    /// NSCompoundPredicate(andPredicateWithSubpredicates: [p1, p2])
    /// ```
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// `OR` of the subpredicates.
    ///
    /// ```swift
    /// NSCompoundPredicate(orPredicateWithSubpredicates: [p1, p2])
    /// ```
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// `NOT` of a predicate.
    ///
    /// ```swift
    /// NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "a == 1")).predicateFormat // "NOT a == 1"
    /// ```
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }
}
