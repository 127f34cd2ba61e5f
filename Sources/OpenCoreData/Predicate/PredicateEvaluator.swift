import Foundation

/// Evaluates predicates and expressions against objects with Apple's in-memory semantics:
///
/// - `nil` and `NSNull` are equal to each other and to nothing else; `!=` with `nil` is true (no three-valued logic);
///   ordering with `nil` is false; string operators never match `nil`.
/// - `BEGINSWITH ''`, `ENDSWITH ''` and `CONTAINS ''` are never true; `LIKE '*'` matches `''`.
/// - `ANY` is false and `ALL` true over an empty (or `nil`) collection; `NONE` is `NOT ANY`.
/// - Inside `SUBQUERY`, key paths still refer to the evaluated object; the element is the iterator variable.
struct PredicateEvaluator {
    /// The deepest predicate or expression tree evaluated (programmatic trees can be deeper than parsed ones).
    static let maximumDepth = 1_000

    private var bindings: [String: Any]
    private let context: NSMutableDictionary?
    private var depth = 0
    private let stack = StackGuard()

    init(bindings: [String: Any]) {
        self.bindings = bindings
        self.context = nil
    }

    init(context: NSMutableDictionary?) {
        var bindings: [String: Any] = [:]
        if let context {
            for (key, value) in context {
                if let name = PredicateValue.string(key) { bindings[name] = value }
            }
        }
        self.bindings = bindings
        self.context = context
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth || !stack.hasRoom() {
            throw PredicateError.evaluation("the predicate is nested too deeply (more than \(Self.maximumDepth) levels, or more than this thread's stack allows)")
        }
    }

    // MARK: Predicates

    mutating func evaluate(_ predicate: NSPredicate, object: Any?) throws -> Bool {
        try enter()
        defer { depth -= 1 }
        if let comparison = predicate as? NSComparisonPredicate {
            return try evaluate(comparison, object: object)
        }
        if let compound = predicate as? NSCompoundPredicate {
            switch compound.compoundPredicateType {
            case .and:
                for sub in compound.predicates where !(try evaluate(sub, object: object)) { return false }
                return true
            case .or:
                for sub in compound.predicates where try evaluate(sub, object: object) { return true }
                return false
            case .not:
                guard let sub = compound.predicates.first else { return true }
                return !(try evaluate(sub, object: object))
            }
        }
        switch predicate.kind {
        case .value(let value): return value
        case .block(let block): return block(object, bindings)
        case .subclass: throw PredicateError.evaluation("cannot evaluate a predicate of class \(type(of: predicate))")
        }
    }

    private mutating func evaluate(_ predicate: NSComparisonPredicate, object: Any?) throws -> Bool {
        if let uti = predicate.utiOperator {
            throw PredicateError.evaluation("\(uti.rawValue) cannot be evaluated: uniform type identifiers are not available on this platform")
        }
        let lhs = try value(of: predicate.leftExpression, object: object)
        let rhs = try value(of: predicate.rightExpression, object: object)
        if predicate.predicateOperatorType == .customSelector {
            return try PredicateFunctions.customComparison(predicate.customSelector?.name ?? "", lhs, rhs)
        }
        var modifier = predicate.comparisonPredicateModifier
        if modifier == .direct, case .anyKey = predicate.leftExpression.node { modifier = .any }
        switch modifier {
        case .direct:
            return try Self.compare(lhs, rhs, predicate.predicateOperatorType, predicate.options)
        case .any, .all:
            guard let left = PredicateValue.normalize(lhs) else { return modifier == .all }
            guard let elements = PredicateValue.collection(left)?.elements else {
                throw PredicateError.evaluation("the left side of ANY or ALL must be a collection, not \(PredicateValue.typeName(left))")
            }
            for element in elements {
                let result = try Self.compare(element, rhs, predicate.predicateOperatorType, predicate.options)
                if modifier == .any && result { return true }
                if modifier == .all && !result { return false }
            }
            return modifier == .all
        }
    }

    /// One comparison of two values.
    static func compare(_ lhs: Any?, _ rhs: Any?, _ type: NSComparisonPredicate.Operator,
                        _ options: NSComparisonPredicate.Options) throws -> Bool {
        let left = PredicateValue.normalize(lhs)
        let right = PredicateValue.normalize(rhs)
        func strings(_ name: String) throws -> (String, String)? {
            guard let left, let right else { return nil }
            guard let a = PredicateValue.string(left), let b = PredicateValue.string(right) else {
                throw PredicateError.evaluation("\(name) needs strings, not \(PredicateValue.typeName(left)) and \(PredicateValue.typeName(right))")
            }
            return (a, b)
        }
        switch type {
        case .equalTo: return PredicateValue.equal(left, right, options: options)
        case .notEqualTo: return !PredicateValue.equal(left, right, options: options)
        case .lessThan: return try PredicateValue.order(left, right, options: options) == .orderedAscending
        case .lessThanOrEqualTo: return try PredicateValue.order(left, right, options: options).map { $0 != .orderedDescending } ?? false
        case .greaterThan: return try PredicateValue.order(left, right, options: options) == .orderedDescending
        case .greaterThanOrEqualTo: return try PredicateValue.order(left, right, options: options).map { $0 != .orderedAscending } ?? false
        case .between:
            guard let right else { return false }
            guard let bounds = PredicateValue.collection(right)?.elements, bounds.count == 2 else {
                throw PredicateError.evaluation("BETWEEN needs a collection of two bounds on the right")
            }
            guard let low = try PredicateValue.order(left, bounds[0], options: options),
                  let high = try PredicateValue.order(left, bounds[1], options: options) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            guard let right else { return false }
            if let haystack = PredicateValue.string(right) {
                guard let left else { return false }
                guard let needle = PredicateValue.string(left) else {
                    throw PredicateError.evaluation("IN with a string on the right needs a string on the left")
                }
                return PredicateStringComparison.contains(haystack, needle, options: options)
            }
            if let elements = PredicateValue.collection(right)?.elements {
                return elements.contains { PredicateValue.equal(left, $0, options: options) }
            }
            if let dictionary = PredicateValue.dictionary(right) {
                return dictionary.keys.contains { PredicateValue.equal(left, $0, options: options) }
            }
            throw PredicateError.evaluation("IN needs a collection or a string on the right, not \(PredicateValue.typeName(right))")
        case .contains:
            guard let left else { return false }
            if let elements = PredicateValue.collection(left)?.elements {
                return elements.contains { PredicateValue.equal($0, right, options: options) }
            }
            guard let (a, b) = try strings("CONTAINS") else { return false }
            return PredicateStringComparison.contains(a, b, options: options)
        case .beginsWith:
            guard let (a, b) = try strings("BEGINSWITH") else { return false }
            return PredicateStringComparison.hasPrefix(a, b, options: options)
        case .endsWith:
            guard let (a, b) = try strings("ENDSWITH") else { return false }
            return PredicateStringComparison.hasSuffix(a, b, options: options)
        case .like:
            guard let (a, b) = try strings("LIKE") else { return false }
            return PredicatePatternMatching.like(a, pattern: b, options: options)
        case .matches:
            guard let (a, b) = try strings("MATCHES") else { return false }
            return try PredicatePatternMatching.matches(a, pattern: b, options: options)
        case .customSelector:
            throw PredicateError.evaluation("a custom selector comparison needs a selector")
        }
    }

    // MARK: Expressions

    mutating func value(of expression: NSExpression, object: Any?) throws -> Any? {
        try enter()
        defer { depth -= 1 }
        switch expression.node {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let name):
            guard let value = bindings[name] else {
                throw PredicateError.evaluation("no value for the variable $\(name) in the substitution variables")
            }
            return value
        case .keyPath(let operand, let path):
            let base: Any?
            if case .evaluatedObject = operand.node { base = object } else { base = try value(of: operand, object: object) }
            return try KeyValueCodingEngine.value(of: base, forKeyPath: path)
        case .function(let target, let name, let arguments):
            if let target {
                let receiver = try value(of: target, object: object)
                let values = try arguments.map { try value(of: $0, object: object) }
                if name == "valueForKeyPath:" || name == "valueForKey:" {
                    guard let key = values.first.flatMap({ PredicateValue.normalize($0) }).flatMap(PredicateValue.string) else {
                        throw PredicateError.evaluation("a key path must be a string")
                    }
                    return try KeyValueCodingEngine.value(of: receiver, forKeyPath: key)
                }
                return try PredicateFunctions.invoke(name, on: receiver, arguments: values)
            }
            let values = try arguments.map { try value(of: $0, object: object) }
            return try PredicateFunctions.call(name, values)
        case .union(let l, let r), .intersect(let l, let r), .minus(let l, let r):
            let left = try collectionElements(value(of: l, object: object), "the left side of a set expression")
            let right = try collectionElements(value(of: r, object: object), "the right side of a set expression")
            let result: [Any]
            switch expression.node {
            case .union: result = PredicateValue.uniqued(left + right)
            case .intersect: result = PredicateValue.uniqued(left.filter { e in right.contains { PredicateValue.equal(e, $0) } })
            default: result = PredicateValue.uniqued(left.filter { e in !right.contains { PredicateValue.equal(e, $0) } })
            }
            return PredicateValue.makeCollection(result, kind: .set)
        case .subquery(let collection, let variable, let predicate):
            let elements = try collectionElements(value(of: collection, object: object), "SUBQUERY")
            let saved = bindings[variable]
            defer { bindings[variable] = saved }
            var result: [Any] = []
            for element in elements {
                bindings[variable] = element
                if try evaluate(predicate, object: object) { result.append(element) }
            }
            return result
        case .aggregate(let elements):
            return try elements.map { try value(of: $0, object: object) ?? NSNull() }
        case .anyKey:
            guard let object = PredicateValue.normalize(object) else { return [Any]() }
            guard let dictionary = PredicateValue.dictionary(object) else {
                throw PredicateError.evaluation("ANYKEY needs a dictionary, not \(PredicateValue.typeName(object))")
            }
            return Array(dictionary.values)
        case .block(let block, let arguments):
            // The block is the app's code: it gets its arguments as Apple's does, numbers as NSNumbers.
            let values = try arguments.map { FoundationBridging.object(try value(of: $0, object: object) ?? NSNull()) }
            let dictionary = context ?? NSMutableDictionary(dictionary: bindings)
            return block(object, values, dictionary)
        case .conditional(let predicate, let yes, let no):
            return try value(of: evaluate(predicate, object: object) ? yes : no, object: object)
        }
    }

    private func collectionElements(_ value: Any?, _ what: String) throws -> [Any] {
        guard let value = PredicateValue.normalize(value) else { return [] }
        guard let elements = PredicateValue.collection(value)?.elements else {
            throw PredicateError.evaluation("\(what) needs a collection, not \(PredicateValue.typeName(value))")
        }
        return elements
    }
}
