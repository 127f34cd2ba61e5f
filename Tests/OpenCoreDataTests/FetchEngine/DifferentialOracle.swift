import OpenCoreData

// What each store must return for a generated case.
//
// In-memory path. Apple's in-memory store evaluates the predicate on the objects with NSPredicate's own semantics
// (two-valued: `nil != 5` is true, `NOT (nil == 5)` is true, ordering with nil is false — Predicate Programming
// Guide, "Using Predicates", and https://douglashill.co/nspredicate-null-inequality/). The expectation is the
// predicate layer's evaluation of the whole predicate on the managed objects of a context (not on the store's rows).
//
// SQLite path. Apple's SQLite store translates the predicate to SQL and lets SQLite evaluate it, with SQL's
// three-valued logic wherever the translation uses a plain SQL operator. What is known of that translation (from
// SQLDebug output and from public decompilations of Core Data's `NSSQLSimpleWhereIntermediate` and of the SQL
// functions Core Data registers; facts, not documentation):
//
// 1. `==`, `!=`, `<`, `<=`, `>`, `>=` without `[c]`/`[d]` become `=`, `<>`, `<`, …; `BETWEEN` and `IN` become SQL
//    `BETWEEN` and `IN`; `BEGINSWITH[n]` becomes a range (`>= ? AND < ?`). With a NULL operand (a nil attribute, a
//    to-one key path whose relationship is nil — a missing join row —, nil arithmetic) each is
//    UNKNOWN: the row is not returned, and `NOT` of it is not returned either. This is the documented difference
//    the conformance suite asserts as `StoreKind.inequalityMatchesNil` (douglashill.co above: `author != 'X'`
//    drops objects without an author in an SQLite fetch, keeps them in memory).
// 2. `== nil` and `!= nil` become `IS NULL` / `IS NOT NULL`: two-valued, as in memory.
// 3. String operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`) and comparisons with `[c]`/`[d]`
//    call Core Data's SQL functions (`NSCoreDataStringSearch`, `NSCoreDataLike`, `NSCoreDataMatches`,
//    `NSCoreDataStringCompare`), which return 0 — not NULL — when an operand is NULL: FALSE, two-valued. So
//    `name !=[c] 'x'` drops nil names (memory keeps them) while `NOT name BEGINSWITH 'x'` keeps them (as memory).
// 4. `ANY`/`SOME` are an existence test over the related rows (a subselect or join): true when some related row's
//    comparison is TRUE by rules 1–3, otherwise false (never UNKNOWN); `NONE` is `NOT ANY` (Apple's parser builds
//    `NONE` as `NOT ANY`), so also two-valued. Rows, not key-value coding: `ANY tags.name == nil` is true in SQL when
//    a related row's name IS NULL, while in memory `tags.name` is `-[NSSet valueForKey:]`, which leaves nil results
//    out ("The returned set will not contain any elements corresponding to instances of valueForKey: returning nil",
//    NSSet `value(forKey:)` documentation), so the same predicate is false in memory.
// 5. `SUBQUERY(…).@count` counts the related rows whose predicate is TRUE by these rules.
// 6. `ALL` has no SQL translation in Apple's store ("ALL modifier is not implemented"): the only semantics Apple
//    has for it is the in-memory one, which OpenCoreData's SQLite store provides by filtering in memory (an
//    extension). Expected: in-memory semantics.
// 7. Where Apple's SQL semantics are not established the expectation is the in-memory value, two-valued (the
//    project's rule for unverified cases, DEVIATIONS.md S8: one semantics for every store): a collection operator on
//    a to-many relationship reached through a nil to-one (`owner.reports.@count` without an owner is nil in memory;
//    a correlated `COUNT` over a LEFT JOIN is 0, an inner join would drop the row), and the join kind of to-one key
//    paths generally (Apple may use an inner join outside `OR`/`IS NULL`; we model a missing destination as NULL, a
//    LEFT JOIN). A collection operator over an empty to-many relationship is plain SQL: `@min`/`@max` of nothing are
//    nil in memory and NULL in SQL (rule 1); `@sum`/`@avg` of nothing are 0 in memory (SQL needs COALESCE).
// 8. Ordering comparisons with a nil literal (`age > nil`) raise in Apple's SQLite store ("illegal comparison with
//    NULL"); the generator does not produce them.
// 9. A number compared with a string attribute (`plate IN {9, 10}`, `plate == 9`): Apple's SQLite store binds the
//    NSNumber as a number and SQLite applies the column's TEXT affinity to it, so it matches the strings "9" and
//    "10"; in memory a string never equals a number. The two paths differ by design (DEVIATIONS.md S31), which this
//    oracle does not model: the generator compares string attributes with strings only, and `FetchParityTests`
//    checks the mixed case on both stores.
//
// Sorting is the same on both paths (DEVIATIONS.md: nil first, strings literally by scalar for `compare:`), so the
// expected order is the predicate layer's `NSSortDescriptor` order of the expected objects, then `id`.

/// SQL's three truth values.
enum DifferentialTruth {
    case `true`, `false`, unknown

    init(_ value: Bool) { self = value ? .true : .false }

    static func and(_ values: [DifferentialTruth]) -> DifferentialTruth {
        if values.contains(.false) { return .false }
        return values.contains(.unknown) ? .unknown : .true
    }

    static func or(_ values: [DifferentialTruth]) -> DifferentialTruth {
        if values.contains(.true) { return .true }
        return values.contains(.unknown) ? .unknown : .false
    }

    var negated: DifferentialTruth {
        switch self {
        case .true: return .false
        case .false: return .true
        case .unknown: return .unknown
        }
    }
}

/// A generated predicate compiled for the SQL-semantics evaluation (rules 1–7 above) in one context.
struct DifferentialSQLOracle {
    indirect enum Node {
        case constant(Bool)
        case and([Node]), or([Node]), not(Node)
        /// A comparison without a quantifier.
        case direct(lhs: Operand, rhs: Operand, comparison: DifferentialComparison, nilLiteral: Bool)
        /// `ANY`/`SOME` (or `NONE`, negated) over the related rows of a to-many key path (`relationships`), each
        /// compared through `rest` (the key path after the to-many relationship, nil to compare the objects).
        case exists(relationships: NSExpression, rest: NSExpression?, rhs: Operand, comparison: DifferentialComparison, nilLiteral: Bool, negated: Bool)
        /// Evaluated with in-memory semantics (`ALL`, rule 6).
        case memory(NSPredicate)
    }

    indirect enum Operand {
        /// An expression; for a collection operator reached through to-one relationships (`owner.reports.@count`),
        /// `toOnePrefix` is the to-one part (`owner`), whose nil makes rule 7 apply.
        case expression(NSExpression, toOnePrefix: NSExpression?)
        case subqueryCount(collection: NSExpression, predicate: Node)

        /// Whether the operand is nil because a to-one relationship before a collection operator is nil.
        func reachesNoCollection(_ object: Any) throws -> Bool {
            guard case .expression(_, let prefix?) = self else { return false }
            return DifferentialSQLOracle.isNil(try prefix.expressionValueThrowing(with: object, context: nil))
        }
    }

    let root: Node

    /// Compiles `predicate` on `entity` with objects resolved by `resolve` (managed objects of the evaluating context).
    init(_ predicate: DifferentialPredicate, entity: String, resolve: @escaping (DifferentialReference, Bool) -> Any) throws {
        root = try Self.compile(predicate, entity: entity, resolve: resolve)
    }

    private static func compile(_ predicate: DifferentialPredicate, entity: String, resolve: @escaping (DifferentialReference, Bool) -> Any) throws -> Node {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let parts): return .and(try parts.map { try compile($0, entity: entity, resolve: resolve) })
        case .or(let parts): return .or(try parts.map { try compile($0, entity: entity, resolve: resolve) })
        case .not(let part): return .not(try compile(part, entity: entity, resolve: resolve))
        case .raw(let format, _): throw DifferentialFailure("no SQL-path oracle for the hand-written predicate \(format)")
        case .comparison(let comparison):
            let nilLiteral = comparison.lhs.isNilLiteral || comparison.rhs.isNilLiteral
            switch comparison.quantifier {
            case nil:
                return .direct(lhs: try operand(comparison.lhs, entity: entity, resolve: resolve), rhs: try operand(comparison.rhs, entity: entity, resolve: resolve),
                               comparison: comparison, nilLiteral: nilLiteral)
            case .any?, .some?, .none?:
                guard case .key(let path) = comparison.lhs, let split = DifferentialSchema.splitAtToMany(path, from: entity) else {
                    throw DifferentialFailure("a quantifier needs a to-many key path on the left")
                }
                return .exists(relationships: NSExpression(forKeyPath: split.relationships), rest: split.rest.map { NSExpression(forKeyPath: $0) },
                               rhs: try operand(comparison.rhs, entity: entity, resolve: resolve), comparison: comparison,
                               nilLiteral: nilLiteral, negated: comparison.quantifier == DifferentialQuantifier.none)
            case .all?:
                var renderer = DifferentialRenderer(variables: .inline, resolve: resolve)
                let format = renderer.render(comparison, prefix: "")
                return .memory(try NSPredicate(validatingFormat: format, argumentArray: renderer.arguments))
            }
        }
    }

    private static func operand(_ expression: DifferentialExpression, entity: String, resolve: @escaping (DifferentialReference, Bool) -> Any) throws -> Operand {
        switch expression {
        case .subqueryCount(let collection, _, let predicate):
            guard let destination = DifferentialSchema.destination(of: collection, from: entity) else { throw DifferentialFailure("no relationship \(collection)") }
            return .subqueryCount(collection: NSExpression(forKeyPath: collection), predicate: try compile(predicate, entity: destination, resolve: resolve))
        case .variable(_, let value):
            return try operand(value, entity: entity, resolve: resolve)
        default:
            var renderer = DifferentialRenderer(variables: .inline, resolve: resolve)
            let format = renderer.render(expression, prefix: "")
            var prefix: NSExpression?
            if case .key(let path) = expression, path.contains("@"), let split = DifferentialSchema.splitAtToMany(path, from: entity),
                let dot = split.relationships.lastIndex(of: ".")
            {
                prefix = NSExpression(forKeyPath: String(split.relationships[..<dot]))
            }
            return .expression(try NSExpression(validatingFormat: format, argumentArray: renderer.arguments), toOnePrefix: prefix)
        }
    }

    /// Whether SQL returns `object`.
    func matches(_ object: NSManagedObject) throws -> Bool {
        try truth(root, object) == .true
    }

    private func truth(_ node: Node, _ object: Any) throws -> DifferentialTruth {
        switch node {
        case .constant(let value): return DifferentialTruth(value)
        case .and(let parts): return DifferentialTruth.and(try parts.map { try truth($0, object) })
        case .or(let parts): return DifferentialTruth.or(try parts.map { try truth($0, object) })
        case .not(let part): return try truth(part, object).negated
        case .memory(let predicate): return DifferentialTruth(try predicate.evaluateThrowing(with: object))
        case .direct(let lhs, let rhs, let comparison, let nilLiteral):
            let left = try value(lhs, object), right = try value(rhs, object)
            let inMemory = try Self.compare(left, right, comparison)
            if nilLiteral { return DifferentialTruth(inMemory) }  // rule 2
            if try lhs.reachesNoCollection(object) || rhs.reachesNoCollection(object) { return DifferentialTruth(inMemory) }  // rule 7
            if Self.isNil(left) || Self.isNil(right) { return Self.usesPlainSQLOperator(comparison) ? .unknown : .false }  // rules 1, 3
            return DifferentialTruth(inMemory)
        case .exists(let relationships, let rest, let rhs, let comparison, let nilLiteral, let negated):
            let right = try value(rhs, object)
            let members = try relationships.expressionValueThrowing(with: object, context: nil)
            var found = false
            for case let member? in Self.elements(members) {
                var element: Any? = member
                if let rest { element = try rest.expressionValueThrowing(with: member, context: nil) }
                let inMemory = try Self.compare(element, right, comparison)
                if nilLiteral || !(Self.isNil(element) || Self.isNil(right)) { found = found || inMemory }  // rule 4
            }
            return DifferentialTruth(negated ? !found : found)
        }
    }

    private func value(_ operand: Operand, _ object: Any) throws -> Any? {
        switch operand {
        case .expression(let expression, _):
            return try expression.expressionValueThrowing(with: object, context: nil)
        case .subqueryCount(let collection, let predicate):
            let members = try collection.expressionValueThrowing(with: object, context: nil)
            var count = 0
            for case let element? in Self.elements(members) {
                if try truth(predicate, element) == .true { count += 1 }
            }
            return NSNumber(value: count)  // rule 5
        }
    }

    /// The in-memory result of comparing two values with the comparison's operator and options.
    static func compare(_ left: Any?, _ right: Any?, _ comparison: DifferentialComparison) throws -> Bool {
        let predicate = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: left), rightExpression: NSExpression(forConstantValue: right),
                                              modifier: .direct, type: comparison.op.type, options: comparison.comparisonOptions)
        return try predicate.evaluateThrowing(with: nil)
    }

    /// Rule 1 (a plain SQL operator: NULL makes it UNKNOWN) or rule 3 (a Core Data SQL function: NULL makes it FALSE).
    static func usesPlainSQLOperator(_ comparison: DifferentialComparison) -> Bool {
        let folding = comparison.options.contains("c") || comparison.options.contains("d")
        switch comparison.op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return !folding
        case .between, .in: return true
        case .beginsWith: return comparison.options == "n"
        case .endsWith, .contains, .like, .matches: return false
        }
    }

    static func isNil(_ value: Any?) -> Bool {
        guard let value else { return true }
        if value is NSNull { return true }
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    /// The members of a collection value (a to-many relationship, or values through one); none for nil.
    static func elements(_ value: Any?) -> [Any?] {
        switch value {
        case let set as NSSet: return set.allObjects
        case let ordered as NSOrderedSet: return ordered.array
        case let array as NSArray: return array.map { $0 }
        case let array as [Any?]: return array
        case let set as Set<AnyHashable>: return set.map(\.base)
        default: return []
        }
    }
}

// MARK: - Sorting

enum DifferentialSorting {
    /// The fetch's sort descriptors: the case's, then `id` ascending (unique, so the order is total).
    static func descriptors(_ testCase: DifferentialCase) -> [NSSortDescriptor] {
        guard !testCase.sorts.isEmpty else { return [] }
        return testCase.sorts.map { NSSortDescriptor(key: $0.key, ascending: $0.ascending, selector: Selector($0.selector)) }
            + [NSSortDescriptor(key: "id", ascending: true)]
    }

    /// `objects` in the descriptors' order (a stable sort with the predicate layer's comparisons), offset and limited.
    static func ordered(_ objects: [NSManagedObject], _ testCase: DifferentialCase) throws -> [NSManagedObject] {
        let descriptors = descriptors(testCase)
        var result = objects
        if !descriptors.isEmpty {
            var failure: (any Error)?
            result = objects.enumerated().sorted { a, b in
                for descriptor in descriptors {
                    do {
                        switch try descriptor.compareThrowing(a.element, to: b.element) {
                        case .orderedAscending: return true
                        case .orderedDescending: return false
                        case .orderedSame: continue
                        }
                    } catch {
                        failure = failure ?? error
                    }
                }
                return a.offset < b.offset
            }.map(\.element)
            if let failure { throw failure }
        }
        if testCase.fetchOffset > 0 { result = Array(result.dropFirst(testCase.fetchOffset)) }
        if testCase.fetchLimit > 0 { result = Array(result.prefix(testCase.fetchLimit)) }
        return result
    }
}

/// A failed precondition of the differential test itself (not a library error).
struct DifferentialFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
