import Foundation

/// Structural equality and hashing of predicates and expressions (`isEqual(_:)`, `hash`), and substitution of
/// variables (`withSubstitutionVariables(_:)`).
///
/// Constants compare by value (numbers numerically, so `2` equals `2.0`); an aggregate of constants equals a constant
/// array with the same values (`{1, 2}` parsed equals `%@` with `[1, 2]`). Block predicates and expressions are equal
/// only to themselves.
enum PredicateStructure {
    static func equal(_ a: NSPredicate, _ b: NSPredicate) -> Bool {
        if a === b { return true }
        if let x = a as? NSComparisonPredicate {
            guard let y = b as? NSComparisonPredicate else { return false }
            return x.predicateOperatorType == y.predicateOperatorType
                && x.comparisonPredicateModifier == y.comparisonPredicateModifier
                && x.options == y.options && x.customSelector == y.customSelector
                && equal(x.leftExpression, y.leftExpression) && equal(x.rightExpression, y.rightExpression)
        }
        if let x = a as? NSCompoundPredicate {
            guard let y = b as? NSCompoundPredicate else { return false }
            return x.compoundPredicateType == y.compoundPredicateType && x.predicates.count == y.predicates.count
                && zip(x.predicates, y.predicates).allSatisfy { equal($0, $1) }
        }
        if b is NSComparisonPredicate || b is NSCompoundPredicate { return false }
        switch (a.kind, b.kind) {
        case let (.value(x), .value(y)): return x == y
        default: return false
        }
    }

    static func equal(_ a: NSExpression, _ b: NSExpression) -> Bool {
        if a === b { return true }
        if let x = constantValue(a), let y = constantValue(b) { return PredicateValue.equal(x, y) }
        switch (a.node, b.node) {
        case (.evaluatedObject, .evaluatedObject), (.anyKey, .anyKey):
            return true
        case let (.variable(x), .variable(y)):
            return x == y
        case let (.keyPath(o1, p1), .keyPath(o2, p2)):
            return p1 == p2 && equal(o1, o2)
        case let (.function(t1, n1, a1), .function(t2, n2, a2)):
            guard n1 == n2, a1.count == a2.count else { return false }
            switch (t1, t2) {
            case (nil, nil): break
            case let (x?, y?): guard equal(x, y) else { return false }
            default: return false
            }
            return zip(a1, a2).allSatisfy { equal($0, $1) }
        case let (.union(l1, r1), .union(l2, r2)), let (.intersect(l1, r1), .intersect(l2, r2)),
             let (.minus(l1, r1), .minus(l2, r2)):
            return equal(l1, l2) && equal(r1, r2)
        case let (.subquery(c1, v1, p1), .subquery(c2, v2, p2)):
            return v1 == v2 && equal(c1, c2) && equal(p1, p2)
        case let (.aggregate(e1), .aggregate(e2)):
            return e1.count == e2.count && zip(e1, e2).allSatisfy { equal($0, $1) }
        case let (.conditional(p1, t1, f1), .conditional(p2, t2, f2)):
            return equal(p1, p2) && equal(t1, t2) && equal(f1, f2)
        default:
            return false
        }
    }

    /// The constant an expression stands for: a constant, or an aggregate made only of constants (as an array).
    /// `.some(nil)` is the constant `nil`.
    private static func constantValue(_ expression: NSExpression) -> Any?? {
        switch expression.node {
        case .constant(let value): return .some(value)
        case .aggregate(let elements):
            var values: [Any] = []
            for element in elements {
                guard case .constant(let value) = element.node else { return nil }
                values.append(value ?? NSNull())
            }
            return .some(values)
        default: return nil
        }
    }

    static func hash(_ predicate: NSPredicate) -> Int {
        var hasher = Hasher()
        combine(predicate, into: &hasher, depth: 0)
        return hasher.finalize()
    }

    static func hash(_ expression: NSExpression) -> Int {
        var hasher = Hasher()
        combine(expression, into: &hasher, depth: 0)
        return hasher.finalize()
    }

    private static func combine(_ predicate: NSPredicate, into hasher: inout Hasher, depth: Int) {
        guard depth < 8 else { return }
        if let comparison = predicate as? NSComparisonPredicate {
            hasher.combine(1)
            hasher.combine(comparison.predicateOperatorType.rawValue)
            hasher.combine(comparison.comparisonPredicateModifier.rawValue)
            hasher.combine(comparison.options.rawValue)
            combine(comparison.leftExpression, into: &hasher, depth: depth + 1)
            combine(comparison.rightExpression, into: &hasher, depth: depth + 1)
        } else if let compound = predicate as? NSCompoundPredicate {
            hasher.combine(2)
            hasher.combine(compound.compoundPredicateType.rawValue)
            hasher.combine(compound.predicates.count)
            for sub in compound.predicates { combine(sub, into: &hasher, depth: depth + 1) }
        } else if case .value(let value) = predicate.kind {
            hasher.combine(value)
        } else {
            hasher.combine(ObjectIdentifier(predicate))
        }
    }

    private static func combine(_ expression: NSExpression, into hasher: inout Hasher, depth: Int) {
        guard depth < 8 else { return }
        if let constant = constantValue(expression) {
            hasher.combine(0)
            combineConstant(constant, into: &hasher)
            return
        }
        hasher.combine(expression.expressionType.rawValue)
        switch expression.node {
        case .variable(let name): hasher.combine(name)
        case .keyPath(let operand, let path):
            hasher.combine(path)
            combine(operand, into: &hasher, depth: depth + 1)
        case .function(_, let name, let arguments):
            hasher.combine(name)
            for argument in arguments { combine(argument, into: &hasher, depth: depth + 1) }
        case .subquery(_, let variable, let predicate):
            hasher.combine(variable)
            combine(predicate, into: &hasher, depth: depth + 1)
        case .block:
            hasher.combine(ObjectIdentifier(expression))
        default:
            break
        }
    }

    private static func combineConstant(_ value: Any?, into hasher: inout Hasher) {
        guard let value = PredicateValue.normalize(value) else { hasher.combine(0); return }
        if let number = PredicateNumber(value) {
            let d = number.doubleValue
            hasher.combine(d.isNaN ? 0 : d)
        } else if let string = PredicateValue.string(value) {
            hasher.combine(string)
        } else if let collection = PredicateValue.collection(value) {
            hasher.combine(collection.elements.count)
        } else if let date = PredicateValue.date(value) {
            hasher.combine(date)
        } else {
            hasher.combine(1)
        }
    }
}

/// Replaces variables by constants (``NSPredicate/withSubstitutionVariables(_:)``). The iterator variable of a
/// `SUBQUERY` is left alone inside its predicate.
struct PredicateSubstitution {
    let variables: [String: Any]

    func substitute(_ predicate: NSPredicate, bound: Set<String> = []) -> NSPredicate {
        if let comparison = predicate as? NSComparisonPredicate {
            let lhs = substitute(comparison.leftExpression, bound: bound)
            let rhs = substitute(comparison.rightExpression, bound: bound)
            if let selector = comparison.customSelector {
                return NSComparisonPredicate(leftExpression: lhs, rightExpression: rhs, customSelector: selector)
            }
            return NSComparisonPredicate(leftExpression: lhs, rightExpression: rhs,
                                         modifier: comparison.comparisonPredicateModifier,
                                         type: comparison.predicateOperatorType, options: comparison.options)
        }
        if let compound = predicate as? NSCompoundPredicate {
            return NSCompoundPredicate(type: compound.compoundPredicateType,
                                       subpredicates: compound.predicates.map { substitute($0, bound: bound) })
        }
        return predicate
    }

    func substitute(_ expression: NSExpression, bound: Set<String>) -> NSExpression {
        switch expression.node {
        case .variable(let name):
            guard !bound.contains(name), let value = variables[name] else { return expression }
            return value as? NSExpression ?? NSExpression(forConstantValue: value)
        case .constant, .evaluatedObject, .anyKey:
            return expression
        case .keyPath(let operand, let path):
            return NSExpression(node: .keyPath(operand: substitute(operand, bound: bound), path: path))
        case .function(let target, let name, let arguments):
            return NSExpression(node: .function(target: target.map { substitute($0, bound: bound) }, name: name,
                                                arguments: arguments.map { substitute($0, bound: bound) }))
        case .union(let l, let r):
            return NSExpression(node: .union(substitute(l, bound: bound), substitute(r, bound: bound)))
        case .intersect(let l, let r):
            return NSExpression(node: .intersect(substitute(l, bound: bound), substitute(r, bound: bound)))
        case .minus(let l, let r):
            return NSExpression(node: .minus(substitute(l, bound: bound), substitute(r, bound: bound)))
        case .subquery(let collection, let variable, let predicate):
            return NSExpression(node: .subquery(collection: substitute(collection, bound: bound), variable: variable,
                                                predicate: substitute(predicate, bound: bound.union([variable]))))
        case .aggregate(let elements):
            return NSExpression(node: .aggregate(elements.map { substitute($0, bound: bound) }))
        case .block(let block, let arguments):
            return NSExpression(node: .block(block, arguments: arguments.map { substitute($0, bound: bound) }))
        case .conditional(let predicate, let yes, let no):
            return NSExpression(node: .conditional(substitute(predicate, bound: bound), substitute(yes, bound: bound),
                                                   substitute(no, bound: bound)))
        }
    }
}
