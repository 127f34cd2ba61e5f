import Foundation

// Converts Foundation's `Predicate` (built by `#Predicate`) to `NSPredicate`, as Foundation does on Apple platforms.
// The expression tree is walked through a private protocol with one conformance per `PredicateExpressions` node type;
// key paths are named through `KeyPathNaming`.
//
// Supported: comparisons, `==`/`!=` (including `!= nil`), `&&`, `||`, `!`, key paths (`.count` of a collection
// becomes `@count`, of a string `length`; `.isEmpty` becomes a count test), constants, `??`, `flatMap`, force
// unwraps, `+ - * / %`, unary minus, `contains(_:)`, `contains(where:)`, `allSatisfy`, `filter { }` (and its
// `.count`), `starts(with:)` and `contains(_:)` on strings, `min()`/`max()`, subscripts, range `contains`, and the
// ternary operator. Not available on Linux: `localizedStandardContains` and `caseInsensitiveCompare` (Foundation's
// `#Predicate` has no expression for them there), regular expressions, casts and `Expression` evaluation.

extension _PredicateFormatInitializable where Self: NSPredicate {
    /// Converts a Foundation `Predicate` (from `#Predicate`) to an `NSPredicate`; `nil` when it uses an operation
    /// that has no `NSPredicate` form. Key paths are named through ``KeyPathNaming``.
    ///
    /// ```swift
    /// let adults = NSPredicate(#Predicate<Person> { $0.age >= 18 && $0.name.starts(with: "A") })
    /// adults?.predicateFormat // "age >= 18 AND name BEGINSWITH \"A\""
    /// ```
    public init?<Input>(_ predicate: Predicate<Input>) {
        guard let converted = try? Self(converting: predicate) else { return nil }
        self = converted
    }

    /// Converts a Foundation `Predicate` to an `NSPredicate`, throwing an `NSError` that names the part it could not
    /// convert.
    ///
    /// ```swift
    /// do {
    ///     let p = try NSPredicate(converting: #Predicate<Person> { $0.age > 3 })
    /// } catch {
    ///     print(error.localizedDescription)
    /// }
    /// ```
    public init<Input>(converting predicate: Predicate<Input>) throws {
        var state = PredicateConversionState()
        state.variables[predicate.variable.key] = NSExpression.expressionForEvaluatedObject()
        let converted = try state.predicate(predicate.expression)
        guard let result = converted as? Self else {
            throw PredicateConversionState.failure("the predicate converts to \(type(of: converted)), not \(Self.self)")
        }
        self = result
    }
}

/// The result of converting one node: a predicate (Boolean structure) or an expression (a value).
enum ConvertedNode {
    case predicate(NSPredicate)
    case expression(NSExpression)
}

/// The walk's state: which `NSExpression` each `#Predicate` variable stands for, and fresh names for subquery
/// variables (`$_local_1`, … as Foundation names them).
struct PredicateConversionState {
    var variables: [PredicateExpressions.VariableID: NSExpression] = [:]
    private var counter = 0

    static func failure(_ message: String) -> NSError {
        let description = "Cannot convert the Predicate to an NSPredicate: \(message)"
        return NSError(domain: NSCocoaErrorDomain, code: PredicateError.code, userInfo: [
            NSLocalizedDescriptionKey: description, NSDebugDescriptionErrorKey: description,
            PredicateErrorKey.phase: "convert",
        ])
    }

    mutating func freshVariable() -> String {
        counter += 1
        return "_local_\(counter)"
    }

    mutating func convert(_ node: Any) throws -> ConvertedNode {
        guard let convertible = node as? any NSPredicateConvertibleExpression else {
            throw Self.failure("\(Self.typeName(node)) has no NSPredicate equivalent")
        }
        return try convertible.convert(&self)
    }

    static func typeName(_ node: Any) -> String {
        let name = "\(type(of: node))"
        return "PredicateExpressions." + (name.firstIndex(of: "<").map { String(name[..<$0]) } ?? name)
    }

    mutating func expression(_ node: Any) throws -> NSExpression {
        switch try convert(node) {
        case .expression(let expression): return expression
        case .predicate(let predicate):
            return NSExpression(forConditional: predicate, trueExpression: NSExpression(forConstantValue: true),
                                falseExpression: NSExpression(forConstantValue: false))
        }
    }

    mutating func predicate(_ node: Any) throws -> NSPredicate {
        switch try convert(node) {
        case .predicate(let predicate): return predicate
        case .expression(let expression):
            if case .constant(let value) = expression.node, let flag = value as? Bool { return NSPredicate(value: flag) }
            return Self.comparison(expression, .equalTo, NSExpression(forConstantValue: true))
        }
    }

    static func comparison(_ lhs: NSExpression, _ type: NSComparisonPredicate.Operator, _ rhs: NSExpression,
                           modifier: NSComparisonPredicate.Modifier = .direct) -> NSPredicate {
        NSComparisonPredicate(leftExpression: lhs, rightExpression: rhs, modifier: modifier, type: type)
    }

    static func function(_ name: String, _ arguments: [NSExpression]) -> NSExpression {
        NSExpression(node: .function(target: nil, name: name, arguments: arguments))
    }

    static func notNil(_ expression: NSExpression) -> NSPredicate {
        comparison(expression, .notEqualTo, NSExpression(forConstantValue: nil))
    }

    /// `SUBQUERY(sequence, $v, test)` with the closure's variable bound to `$v`.
    mutating func subquery(_ sequence: Any, variable: PredicateExpressions.VariableID, test: Any, negate: Bool = false) throws -> NSExpression {
        let collection = try expression(sequence)
        let name = freshVariable()
        variables[variable] = NSExpression(forVariable: name)
        var body = try predicate(test)
        if negate { body = NSCompoundPredicate(notPredicateWithSubpredicate: body) }
        return NSExpression(forSubquery: collection, usingIteratorVariable: name, predicate: body)
    }
}

/// One conformance per `PredicateExpressions` node type that has an `NSPredicate` form.
protocol NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode
}

extension PredicateExpressions.Value: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let constant = PredicateValue.normalize(value)
        if let special = constant as? any _PredicateConstantValue { return .expression(NSExpression(forConstantValue: special._predicateConstantValue)) }
        // An enum compares by its raw value (the value a model stores for it).
        if let raw = constant as? any RawRepresentable { return .expression(NSExpression(forConstantValue: raw.rawValue)) }
        return .expression(NSExpression(forConstantValue: constant))
    }
}

/// A value a converted `#Predicate` compares by another value: OpenSwiftData's `PersistentIdentifier` by its
/// `NSManagedObjectID` (public for that module; not API).
///
/// ```swift
/// extension PersistentIdentifier: _PredicateConstantValue {
///     public var _predicateConstantValue: Any? { objectID }
/// }
/// ```
public protocol _PredicateConstantValue {
    /// The value the predicate compares.
    var _predicateConstantValue: Any? { get }
}

extension PredicateExpressions.NilLiteral: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(NSExpression(forConstantValue: nil))
    }
}

extension PredicateExpressions.Variable: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        guard let expression = state.variables[key] else { throw PredicateConversionState.failure("an unbound variable") }
        return .expression(expression)
    }
}

/// `count` and `isEmpty` of the collection types, written concretely (`\Array<Element>.count`): a key path through the
/// `Collection` requirement would not compare equal to the one `#Predicate` builds.
protocol CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension Set: CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension Dictionary: CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension ContiguousArray: CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension String: CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension Substring: CountKeyPathProviding {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension PredicateExpressions.KeyPath: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let base = try state.expression(root)
        let path: AnyKeyPath = keyPath
        if let collectionType = Root.Output.self as? any CountKeyPathProviding.Type {
            let isString = Root.Output.self is any StringProtocol.Type
            let count = PredicateParser.appendingKey(isString ? "length" : "@count", to: base)
            if path == collectionType.countKeyPath { return .expression(count) }
            if path == collectionType.isEmptyKeyPath {
                return .predicate(PredicateConversionState.comparison(count, .equalTo, NSExpression(forConstantValue: 0)))
            }
        }
        guard let name = KeyPathNames.string(for: path) else {
            throw PredicateConversionState.failure("the key path \(path) has no name: make \(Root.Output.self) adopt KeyPathNaming")
        }
        return .expression(PredicateParser.appendingKey(name, to: base))
    }
}

extension PredicateExpressions.TypeCheck: NSPredicateConvertibleExpression {
    /// `$0 is BusinessTrip`: the object's entity is BusinessTrip's or one of its sub-entities.
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        guard let naming = Desired.self as? any PredicateEntityNaming.Type else {
            throw PredicateConversionState.failure("\(PredicateConversionState.typeName(self)) has no NSPredicate equivalent: an 'is' check needs a type naming its entity (PredicateEntityNaming), not \(Desired.self)")
        }
        let object = try state.expression(input)
        return .predicate(PredicateConversionState.comparison(PredicateParser.appendingKey("entity", to: object), .equalTo,
                                                              NSExpression(forConstantValue: EntityKind(name: naming.predicateEntityName))))
    }
}

extension PredicateExpressions.Equal: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let left = try state.convert(lhs)
        let right = try state.expression(rhs)
        // `test == true` (also `optional.flatMap { … } == true`) is the test itself.
        if case .predicate(let p) = left, case .constant(let value) = right.node,
           let flag = PredicateValue.normalize(value) as? Bool {
            return .predicate(flag ? p : NSCompoundPredicate(notPredicateWithSubpredicate: p))
        }
        let leftExpression: NSExpression
        switch left {
        case .expression(let e): leftExpression = e
        case .predicate(let p):
            leftExpression = NSExpression(forConditional: p, trueExpression: NSExpression(forConstantValue: true),
                                          falseExpression: NSExpression(forConstantValue: false))
        }
        return .predicate(PredicateConversionState.comparison(leftExpression, .equalTo, right))
    }
}

extension PredicateExpressions.NotEqual: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .predicate(PredicateConversionState.comparison(try state.expression(lhs), .notEqualTo, try state.expression(rhs)))
    }
}

extension PredicateExpressions.Comparison: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let type: NSComparisonPredicate.Operator
        switch op {
        case .lessThan: type = .lessThan
        case .lessThanOrEqual: type = .lessThanOrEqualTo
        case .greaterThan: type = .greaterThan
        case .greaterThanOrEqual: type = .greaterThanOrEqualTo
        }
        return .predicate(PredicateConversionState.comparison(try state.expression(lhs), type, try state.expression(rhs)))
    }
}

extension PredicateExpressions.Conjunction: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .predicate(NSCompoundPredicate(andPredicateWithSubpredicates: [try state.predicate(lhs), try state.predicate(rhs)]))
    }
}

extension PredicateExpressions.Disjunction: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .predicate(NSCompoundPredicate(orPredicateWithSubpredicates: [try state.predicate(lhs), try state.predicate(rhs)]))
    }
}

extension PredicateExpressions.Negation: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .predicate(NSCompoundPredicate(notPredicateWithSubpredicate: try state.predicate(wrapped)))
    }
}

extension PredicateExpressions.Arithmetic: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let name: String
        switch op {
        case .add: name = "add:to:"
        case .subtract: name = "from:subtract:"
        case .multiply: name = "multiply:by:"
        }
        return .expression(PredicateConversionState.function(name, [try state.expression(lhs), try state.expression(rhs)]))
    }
}

extension PredicateExpressions.FloatDivision: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("divide:by:", [try state.expression(lhs), try state.expression(rhs)]))
    }
}

extension PredicateExpressions.IntDivision: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let quotient = PredicateConversionState.function("divide:by:", [try state.expression(lhs), try state.expression(rhs)])
        return .expression(PredicateConversionState.function("trunc:", [quotient]))
    }
}

extension PredicateExpressions.IntRemainder: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("modulus:by:", [try state.expression(lhs), try state.expression(rhs)]))
    }
}

extension PredicateExpressions.UnaryMinus: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("from:subtract:", [NSExpression(forConstantValue: 0), try state.expression(wrapped)]))
    }
}

extension PredicateExpressions.SequenceContains: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .predicate(PredicateConversionState.comparison(try state.expression(element), .in, try state.expression(sequence)))
    }
}

extension PredicateExpressions.SequenceContainsWhere: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let matches = try state.subquery(sequence, variable: variable.key, test: test)
        return .predicate(PredicateConversionState.comparison(PredicateParser.appendingKey("@count", to: matches),
                                                              .greaterThan, NSExpression(forConstantValue: 0)))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let failures = try state.subquery(sequence, variable: variable.key, test: test, negate: true)
        return .predicate(PredicateConversionState.comparison(PredicateParser.appendingKey("@count", to: failures),
                                                              .equalTo, NSExpression(forConstantValue: 0)))
    }
}

extension PredicateExpressions.Filter: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(try state.subquery(sequence, variable: variable.key, test: filter))
    }
}

extension PredicateExpressions.SequenceStartsWith: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        guard Base.Output.self is any StringProtocol.Type else {
            throw PredicateConversionState.failure("starts(with:) on a non-string sequence has no NSPredicate equivalent")
        }
        return .predicate(PredicateConversionState.comparison(try state.expression(base), .beginsWith, try state.expression(prefix)))
    }
}

extension PredicateExpressions.CollectionContainsCollection: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        guard Base.Output.self is any StringProtocol.Type else {
            throw PredicateConversionState.failure("contains(_:) of a collection in a non-string collection has no NSPredicate equivalent")
        }
        return .predicate(PredicateConversionState.comparison(try state.expression(base), .contains, try state.expression(other)))
    }
}

extension PredicateExpressions.Conditional: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(NSExpression(forConditional: try state.predicate(test), trueExpression: try state.expression(trueBranch),
                                 falseExpression: try state.expression(falseBranch)))
    }
}

extension PredicateExpressions.NilCoalesce: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let value = try state.expression(lhs)
        return .expression(NSExpression(forConditional: PredicateConversionState.notNil(value), trueExpression: value,
                                        falseExpression: try state.expression(rhs)))
    }
}

extension PredicateExpressions.OptionalFlatMap: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let value = try state.expression(wrapped)
        state.variables[variable.key] = value
        switch try state.convert(transform) {
        case .predicate(let body):
            return .predicate(NSCompoundPredicate(andPredicateWithSubpredicates: [PredicateConversionState.notNil(value), body]))
        case .expression(let body):
            return .expression(NSExpression(forConditional: PredicateConversionState.notNil(value), trueExpression: body,
                                            falseExpression: NSExpression(forConstantValue: nil)))
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        try state.convert(inner)
    }
}

extension PredicateExpressions.CollectionIndexSubscript: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("objectFrom:withIndex:", [try state.expression(wrapped), try state.expression(index)]))
    }
}

extension PredicateExpressions.DictionaryKeySubscript: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("objectFrom:withIndex:", [try state.expression(wrapped), try state.expression(key)]))
    }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let value = PredicateConversionState.function("objectFrom:withIndex:", [try state.expression(wrapped), try state.expression(key)])
        return .expression(NSExpression(forConditional: PredicateConversionState.notNil(value), trueExpression: value,
                                        falseExpression: try state.expression(self.default)))
    }
}

extension PredicateExpressions.SequenceMaximum: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("max:", [try state.expression(elements)]))
    }
}

extension PredicateExpressions.SequenceMinimum: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        .expression(PredicateConversionState.function("min:", [try state.expression(elements)]))
    }
}

/// Range nodes give their bounds to `RangeExpressionContains`.
protocol ConvertibleRangeBounds {
    var isClosed: Bool { get }
    func bounds(_ state: inout PredicateConversionState) throws -> (NSExpression, NSExpression)
}

extension PredicateExpressions.Range: ConvertibleRangeBounds {
    var isClosed: Bool { false }
    func bounds(_ state: inout PredicateConversionState) throws -> (NSExpression, NSExpression) {
        (try state.expression(lower), try state.expression(upper))
    }
}

extension PredicateExpressions.ClosedRange: ConvertibleRangeBounds {
    var isClosed: Bool { true }
    func bounds(_ state: inout PredicateConversionState) throws -> (NSExpression, NSExpression) {
        (try state.expression(lower), try state.expression(upper))
    }
}

extension PredicateExpressions.RangeExpressionContains: NSPredicateConvertibleExpression {
    func convert(_ state: inout PredicateConversionState) throws -> ConvertedNode {
        let value = try state.expression(element)
        let low: NSExpression, high: NSExpression, closed: Bool
        if let range = range as? any ConvertibleRangeBounds {
            (low, high) = try range.bounds(&state)
            closed = range.isClosed
        } else if let constant = range as? any ConstantRangeBounds {
            (low, high, closed) = constant.constantBounds
        } else {
            throw PredicateConversionState.failure("\(PredicateConversionState.typeName(range)) as a range has no NSPredicate equivalent")
        }
        if closed {
            return .predicate(PredicateConversionState.comparison(value, .between, NSExpression(forAggregate: [low, high])))
        }
        return .predicate(NSCompoundPredicate(andPredicateWithSubpredicates: [
            PredicateConversionState.comparison(value, .greaterThanOrEqualTo, low),
            PredicateConversionState.comparison(value, .lessThan, high),
        ]))
    }
}

/// A constant `Range`/`ClosedRange` captured into a `#Predicate` (`(1...5).contains($0.age)`).
protocol ConstantRangeBounds {
    var constantBounds: (NSExpression, NSExpression, Bool) { get }
}

extension PredicateExpressions.Value: ConstantRangeBounds where Output: RangeExpression {
    var constantBounds: (NSExpression, NSExpression, Bool) {
        if let range = value as? any ClosedRangeBounds {
            return (NSExpression(forConstantValue: range.lowerAny), NSExpression(forConstantValue: range.upperAny), true)
        }
        if let range = value as? any HalfOpenRangeBounds {
            return (NSExpression(forConstantValue: range.lowerAny), NSExpression(forConstantValue: range.upperAny), false)
        }
        return (NSExpression(forConstantValue: nil), NSExpression(forConstantValue: nil), true)
    }
}

protocol ClosedRangeBounds {
    var lowerAny: Any { get }
    var upperAny: Any { get }
}

extension ClosedRange: ClosedRangeBounds {
    var lowerAny: Any { lowerBound }
    var upperAny: Any { upperBound }
}

protocol HalfOpenRangeBounds {
    var lowerAny: Any { get }
    var upperAny: Any { get }
}

extension Range: HalfOpenRangeBounds {
    var lowerAny: Any { lowerBound }
    var upperAny: Any { upperBound }
}
