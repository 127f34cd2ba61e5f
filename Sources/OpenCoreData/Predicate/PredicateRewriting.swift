import Foundation

/// Rebuilds predicates and expressions with their constants replaced — to turn managed objects into object IDs
/// (or a store's row views) before a store evaluates a predicate, and IDs into objects for in-memory evaluation.
package enum PredicateRewriting {
    /// `predicate` with every constant passed through `transform` (collections element by element).
    package static func rewrite(_ predicate: NSPredicate, _ transform: (Any?) -> Any?) -> NSPredicate {
        rewrite(predicate, transform, replacing: nil)
    }

    /// `predicate` with every constant passed through `transform`, and every expression for which `replacement`
    /// returns a value replaced by it.
    package static func rewrite(_ predicate: NSPredicate, _ transform: (Any?) -> Any?, replacing replacement: ((NSExpression) -> NSExpression?)?) -> NSPredicate {
        switch predicate {
        case let compound as NSCompoundPredicate:
            let subpredicates = compound.subpredicates.compactMap { $0 as? NSPredicate }.map { rewrite($0, transform, replacing: replacement) }
            return NSCompoundPredicate(type: compound.compoundPredicateType, subpredicates: subpredicates)
        case let comparison as NSComparisonPredicate:
            let left = rewrite(comparison.leftExpression, transform, replacing: replacement)
            let right = rewrite(comparison.rightExpression, transform, replacing: replacement)
            if comparison.predicateOperatorType == .customSelector, let selector = comparison.customSelector {
                return NSComparisonPredicate(leftExpression: left, rightExpression: right, customSelector: selector)
            }
            return NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: comparison.comparisonPredicateModifier,
                                         type: comparison.predicateOperatorType, options: comparison.options)
        default:
            return predicate
        }
    }

    /// `expression` with every constant passed through `transform`.
    package static func rewrite(_ expression: NSExpression, _ transform: (Any?) -> Any?, replacing replacement: ((NSExpression) -> NSExpression?)? = nil) -> NSExpression {
        if let replaced = replacement?(expression) { return rewrite(replaced, transform) }
        func rewrite(_ expression: NSExpression, _ transform: (Any?) -> Any?) -> NSExpression {
            PredicateRewriting.rewrite(expression, transform, replacing: replacement)
        }
        func rewrite(_ predicate: NSPredicate, _ transform: (Any?) -> Any?) -> NSPredicate {
            PredicateRewriting.rewrite(predicate, transform, replacing: replacement)
        }
        let node: NSExpression.Node
        switch expression.node {
        case .constant(let value):
            node = .constant(mapConstant(value, transform))
        case .evaluatedObject, .variable, .anyKey:
            return expression
        case .keyPath(let operand, let path):
            node = .keyPath(operand: rewrite(operand, transform), path: path)
        case .function(let target, let name, let arguments):
            node = .function(target: target.map { rewrite($0, transform) }, name: name, arguments: arguments.map { rewrite($0, transform) })
        case .union(let left, let right):
            node = .union(rewrite(left, transform), rewrite(right, transform))
        case .intersect(let left, let right):
            node = .intersect(rewrite(left, transform), rewrite(right, transform))
        case .minus(let left, let right):
            node = .minus(rewrite(left, transform), rewrite(right, transform))
        case .subquery(let collection, let variable, let predicate):
            node = .subquery(collection: rewrite(collection, transform), variable: variable, predicate: rewrite(predicate, transform))
        case .aggregate(let elements):
            node = .aggregate(elements.map { rewrite($0, transform) })
        case .block(let block, let arguments):
            node = .block(block, arguments: arguments.map { rewrite($0, transform) })
        case .conditional(let predicate, let whenTrue, let whenFalse):
            node = .conditional(rewrite(predicate, transform), rewrite(whenTrue, transform), rewrite(whenFalse, transform))
        }
        return NSExpression(node: node)
    }

    private static func mapConstant(_ value: Any?, _ transform: (Any?) -> Any?) -> Any? {
        switch value {
        case let array as [Any]: return array.map { mapConstant($0, transform) ?? NSNull() }
        case let set as NSSet: return NSSet(array: set.allObjects.map { mapConstant($0, transform) ?? NSNull() })
        case let ordered as NSOrderedSet: return NSOrderedSet(array: ordered.array.map { mapConstant($0, transform) ?? NSNull() })
        case let set as Set<AnyHashable>: return set.map { mapConstant($0.base, transform) ?? NSNull() }
        default: return transform(value)
        }
    }

    /// Whether `predicate` contains a constant for which `test` is true.
    static func containsConstant(_ predicate: NSPredicate, where test: (Any) -> Bool) -> Bool {
        var found = false
        _ = rewrite(predicate) { value in
            if let value, test(value) { found = true }
            return value
        }
        return found
    }
}
