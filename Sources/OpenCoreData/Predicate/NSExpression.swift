import Foundation

/// An expression in a predicate: a constant, the evaluated object, a variable, a key path, a function, a set
/// operation, a subquery, an aggregate, `ANYKEY`, a block or a conditional — Apple's `NSExpression` for Linux.
///
/// ```swift
/// let total = NSExpression(format: "items.@sum.price * 1.2")
/// total.expressionValue(with: order, context: nil) // 42.0
/// NSExpression(forKeyPath: "name").keyPath          // "name"
/// ```
///
/// Expressions are immutable and compare structurally (`==` and `hash` look at the tree, not at identity).
open class NSExpression: NSObject, NSCopying, @unchecked Sendable { // Immutable after init: every stored property is a `let`.
    /// The kinds of expression, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
        /// A constant value (``NSExpression/constantValue``).
        case constantValue = 0
        /// The object being evaluated (`SELF`).
        case evaluatedObject = 1
        /// A variable (`$name`).
        case variable = 2
        /// A key path (`name`, `$item.price`).
        case keyPath = 3
        /// A function (`sum:`, `FUNCTION(…)`, `CAST`, indexing, arithmetic).
        case function = 4
        /// The union of two collections.
        case unionSet = 5
        /// The intersection of two collections.
        case intersectSet = 6
        /// The first collection minus the second.
        case minusSet = 7
        /// `SUBQUERY(collection, $variable, predicate)`.
        case subquery = 13
        /// An aggregate `{a, b, c}`.
        case aggregate = 14
        /// `ANYKEY`.
        case anyKey = 15
        /// A block expression.
        case block = 19
        /// `TERNARY(predicate, a, b)`.
        case conditional = 20
        /// A fetch request expression (`NSFetchRequestExpression`); Apple declares this case only as the constant
        /// `NSFetchRequestExpressionType`, with the raw value 50.
        case fetchRequest = 50
    }

    /// The signature of a block expression: the evaluated object, the evaluated arguments and the context.
    public typealias ExpressionBlock = (Any?, [Any], NSMutableDictionary?) -> Any

    /// The tree node behind an expression.
    package enum Node {
        case constant(Any?)
        case evaluatedObject
        case variable(String)
        /// A key path on `operand` (the evaluated object for plain key paths).
        case keyPath(operand: NSExpression, path: String)
        /// A function; `target` is `nil` for Apple's predefined functions and the receiver for `FUNCTION(…)`.
        case function(target: NSExpression?, name: String, arguments: [NSExpression])
        case union(NSExpression, NSExpression)
        case intersect(NSExpression, NSExpression)
        case minus(NSExpression, NSExpression)
        case subquery(collection: NSExpression, variable: String, predicate: NSPredicate)
        case aggregate([NSExpression])
        case anyKey
        case block(ExpressionBlock, arguments: [NSExpression])
        case conditional(NSPredicate, NSExpression, NSExpression)
    }

    package let node: Node

    package init(node: Node) {
        self.node = node
        super.init()
    }

    // MARK: Creating expressions

    /// Parses an expression from a format string with variadic arguments; stops the program on a malformed string
    /// (Apple raises). Use ``init(validatingFormat:argumentArray:)`` for untrusted text.
    ///
    /// ```swift
    /// let e = NSExpression(format: "%K * %d", "price", 2)
    /// ```
    public convenience init(format expressionFormat: String, _ args: any CVarArg...) {
        do {
            let parsed = try PredicateParser.parseExpression(expressionFormat, arguments: .variadic(args))
            self.init(node: parsed.node)
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// Parses an expression from a format string with an array of arguments; stops the program on a malformed string.
    ///
    /// ```swift
    /// let e = NSExpression(format: "%K + 1", argumentArray: ["count"])
    /// ```
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            let parsed = try PredicateParser.parseExpression(expressionFormat, arguments: .array(arguments))
            self.init(node: parsed.node)
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// Parses an expression from untrusted text, throwing an `NSError` (see ``PredicateErrorKey``) instead of
    /// stopping the program.
    ///
    /// ```swift
    /// let e = try NSExpression(validatingFormat: "sum:(%@)", argumentArray: [[1, 2, 3]])
    /// ```
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any]?) throws {
        let parsed = try PredicateParser.parseExpression(expressionFormat, arguments: .array(arguments ?? []))
        self.init(node: parsed.node)
    }

    /// An expression that always evaluates to `value`.
    ///
    /// ```swift
    /// NSExpression(forConstantValue: 42).constantValue // 42
    /// ```
    public convenience init(forConstantValue value: Any?) {
        self.init(node: .constant(value))
    }

    /// The expression for the object being evaluated (`SELF`).
    ///
    /// ```swift
    /// NSExpression.expressionForEvaluatedObject().expressionType // .evaluatedObject
    /// ```
    open class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(node: .evaluatedObject)
    }

    /// A variable, bound at evaluation time or by ``NSPredicate/withSubstitutionVariables(_:)``.
    ///
    /// ```swift
    /// NSExpression(forVariable: "limit").description // "$limit"
    /// ```
    public convenience init(forVariable string: String) {
        self.init(node: .variable(string))
    }

    /// A key path evaluated on the object (`"department.name"`, `"items.@count"`).
    ///
    /// ```swift
    /// NSExpression(forKeyPath: "department.name").keyPath // "department.name"
    /// ```
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(operand: NSExpression(node: .evaluatedObject), path: keyPath))
    }

    /// A key path expression from a Swift key path, named through ``KeyPathNaming``; stops the program if the key path
    /// cannot be named.
    ///
    /// ```swift
    /// NSExpression(forKeyPath: \Book.title).keyPath // "title"
    /// ```
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        guard let name = KeyPathNames.string(for: keyPath) else {
            fatalError("Cannot name the key path \(keyPath): make \(Root.self) adopt KeyPathNaming")
        }
        self.init(forKeyPath: name)
    }

    /// One of the predefined functions (`"sum:"`, `"add:to:"`, `"now"`, …; see the grammar) applied to arguments.
    /// Stops the program for an unknown function name, as Apple raises.
    ///
    /// ```swift
    /// let e = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: [1, 2, 3])])
    /// e.expressionValue(with: nil, context: nil) // 6
    /// ```
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        guard PredicateFunctions.isPredefined(name) else {
            fatalError("Unknown function name \"\(name)\": it is not one of NSExpression's predefined functions")
        }
        self.init(node: .function(target: nil, name: name, arguments: parameters.map(NSExpression.wrap)))
    }

    /// A method invoked on the value of `target` (`FUNCTION(target, 'selectorName', args…)`).
    ///
    /// ```swift
    /// let e = NSExpression(forFunction: NSExpression(forKeyPath: "name"), selectorName: "uppercaseString", arguments: nil)
    /// ```
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(node: .function(target: target, name: name, arguments: (parameters ?? []).map(NSExpression.wrap)))
    }

    /// The aggregate `{e1, e2, …}`.
    ///
    /// ```swift
    /// NSExpression(forAggregate: [NSExpression(forConstantValue: 1)]).description // "{1}"
    /// ```
    public convenience init(forAggregate subexpressions: [NSExpression]) {
        self.init(node: .aggregate(subexpressions))
    }

    /// The union of two collections (a set).
    ///
    /// ```swift
    /// NSExpression(forUnionSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
    /// ```
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .union(left, right))
    }

    /// The intersection of two collections (a set).
    ///
    /// ```swift
    /// NSExpression(forIntersectSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
    /// ```
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .intersect(left, right))
    }

    /// The elements of the first collection that are not in the second (a set).
    ///
    /// ```swift
    /// NSExpression(forMinusSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
    /// ```
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .minus(left, right))
    }

    /// `SUBQUERY(expression, $variable, predicate)`: the elements of a collection for which the predicate is true,
    /// with the element bound to `variable`.
    ///
    /// ```swift
    /// let cheap = NSExpression(forSubquery: NSExpression(forKeyPath: "items"), usingIteratorVariable: "x",
    ///                          predicate: NSPredicate(format: "$x.price < 5"))
    /// ```
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate) {
        self.init(node: .subquery(collection: expression, variable: variable, predicate: predicate))
    }

    /// `ANYKEY`: any key of the evaluated object.
    ///
    /// ```swift
    /// NSExpression.expressionForAnyKey().expressionType // .anyKey
    /// ```
    open class func expressionForAnyKey() -> NSExpression {
        NSExpression(node: .anyKey)
    }

    /// An expression computed by a closure from the evaluated object and the values of `arguments`.
    ///
    /// ```swift
    /// let twice = NSExpression(block: { _, args, _ in (args[0] as! Int) * 2 },
    ///                          arguments: [NSExpression(forConstantValue: 21)])
    /// ```
    public convenience init(block: @escaping ExpressionBlock, arguments: [NSExpression]?) {
        self.init(node: .block(block, arguments: arguments ?? []))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    ///
    /// ```swift
    /// let e = NSExpression(forConditional: NSPredicate(format: "age >= 18"),
    ///                      trueExpression: NSExpression(forConstantValue: "adult"),
    ///                      falseExpression: NSExpression(forConstantValue: "minor"))
    /// ```
    public convenience init(forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(node: .conditional(predicate, trueExpression, falseExpression))
    }

    /// Arguments given as values become constant expressions; expressions are used as they are.
    static func wrap(_ value: Any) -> NSExpression {
        value as? NSExpression ?? NSExpression(forConstantValue: value)
    }

    // MARK: Accessors

    /// The kind of this expression.
    ///
    /// ```swift
    /// NSExpression(format: "a + 1").expressionType // .function
    /// ```
    open var expressionType: ExpressionType {
        switch node {
        case .constant: return .constantValue
        case .evaluatedObject: return .evaluatedObject
        case .variable: return .variable
        case .keyPath: return .keyPath
        case .function: return .function
        case .union: return .unionSet
        case .intersect: return .intersectSet
        case .minus: return .minusSet
        case .subquery: return .subquery
        case .aggregate: return .aggregate
        case .anyKey: return .anyKey
        case .block: return .block
        case .conditional: return .conditional
        }
    }

    private func wrongAccessor(_ name: String) -> Never {
        fatalError("NSExpression.\(name) is not valid for an expression of type \(expressionType) (\(self))")
    }

    /// The constant of a constant expression (`nil` for `NULL`), as Apple's Foundation hands it out: numbers and
    /// booleans as `NSNumber` (so `as? Int`, `as? Double` and `as? Bool` succeed wherever they do on Apple platforms),
    /// decimals as `NSDecimalNumber`, collections element by element (see `FoundationBridging`).
    ///
    /// ```swift
    /// NSExpression(format: "'x'").constantValue // "x"
    /// NSExpression(format: "TRUE").constantValue as? Int // 1
    /// ```
    open var constantValue: Any? {
        guard case .constant(let value) = node else { wrongAccessor("constantValue") }
        return FoundationBridging.object(value)
    }

    /// The key path of a key path expression.
    ///
    /// ```swift
    /// NSExpression(format: "$item.price").keyPath // "price"
    /// ```
    open var keyPath: String {
        guard case .keyPath(_, let path) = node else { wrongAccessor("keyPath") }
        return path
    }

    /// The selector name of a function expression (`"sum:"`, `"add:to:"`, `"castObject:toType:"`,
    /// `"objectFrom:withIndex:"`, or the name given to `FUNCTION`).
    ///
    /// ```swift
    /// NSExpression(format: "1 + 2").function // "add:to:"
    /// ```
    open var function: String {
        guard case .function(_, let name, _) = node else { wrongAccessor("function") }
        return name
    }

    /// The name of a variable expression, or the iterator variable of a subquery.
    ///
    /// ```swift
    /// NSExpression(format: "$limit").variable // "limit"
    /// ```
    open var variable: String {
        switch node {
        case .variable(let name): return name
        case .subquery(_, let name, _): return name
        default: wrongAccessor("variable")
        }
    }

    /// The receiver: the object a key path is evaluated on, or the target of a function (for predefined functions a
    /// constant standing for Apple's `NSPredicateUtilities`).
    ///
    /// ```swift
    /// NSExpression(format: "$item.price").operand.variable // "item"
    /// ```
    open var operand: NSExpression {
        switch node {
        case .keyPath(let operand, _): return operand
        case .function(let target, _, _): return target ?? NSExpression(forConstantValue: PredicateUtilities.shared)
        default: wrongAccessor("operand")
        }
    }

    /// The arguments of a function or block expression.
    ///
    /// ```swift
    /// NSExpression(format: "modulus:by:(7, 2)").arguments?.count // 2
    /// ```
    open var arguments: [NSExpression]? {
        switch node {
        case .function(_, _, let arguments): return arguments
        case .block(_, let arguments): return arguments
        default: wrongAccessor("arguments")
        }
    }

    /// The collection of an aggregate (`[NSExpression]`) or of a subquery (its collection expression).
    ///
    /// ```swift
    /// (NSExpression(format: "{1, 2}").collection as? [NSExpression])?.count // 2
    /// ```
    open var collection: Any {
        switch node {
        case .aggregate(let elements): return elements
        case .subquery(let collection, _, _): return collection
        default: wrongAccessor("collection")
        }
    }

    /// The predicate of a subquery or conditional expression.
    ///
    /// ```swift
    /// NSExpression(format: "TERNARY(a > 1, 'x', 'y')").predicate.predicateFormat // "a > 1"
    /// ```
    open var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate): return predicate
        case .conditional(let predicate, _, _): return predicate
        default: wrongAccessor("predicate")
        }
    }

    /// The left collection of a set expression.
    ///
    /// ```swift
    /// NSExpression(forUnionSet: a, with: b).left // a
    /// ```
    open var left: NSExpression {
        switch node {
        case .union(let left, _), .intersect(let left, _), .minus(let left, _): return left
        default: wrongAccessor("left")
        }
    }

    /// The right collection of a set expression.
    ///
    /// ```swift
    /// NSExpression(forUnionSet: a, with: b).right // b
    /// ```
    open var right: NSExpression {
        switch node {
        case .union(_, let right), .intersect(_, let right), .minus(_, let right): return right
        default: wrongAccessor("right")
        }
    }

    /// The expression a conditional yields when its predicate is true.
    ///
    /// ```swift
    /// NSExpression(format: "TERNARY(YES, 1, 2)").true.constantValue // 1
    /// ```
    open var `true`: NSExpression {
        guard case .conditional(_, let yes, _) = node else { wrongAccessor("true") }
        return yes
    }

    /// The expression a conditional yields when its predicate is false.
    ///
    /// ```swift
    /// NSExpression(format: "TERNARY(YES, 1, 2)").false.constantValue // 2
    /// ```
    open var `false`: NSExpression {
        guard case .conditional(_, _, let no) = node else { wrongAccessor("false") }
        return no
    }

    /// The closure of a block expression.
    ///
    /// ```swift
    /// let block = expression.expressionBlock
    /// ```
    open var expressionBlock: ExpressionBlock {
        guard case .block(let block, _) = node else { wrongAccessor("expressionBlock") }
        return block
    }

    /// Enables evaluation of an expression that was decoded securely. Expressions here are always evaluable; the method
    /// exists for source compatibility.
    ///
    /// ```swift
    /// expression.allowEvaluation()
    /// ```
    open func allowEvaluation() {}

    // MARK: Evaluating

    /// The value of the expression for `object`, with variables bound from `context`; stops the program on an
    /// evaluation error (Apple raises). Use ``expressionValueThrowing(with:context:)`` for untrusted expressions.
    /// Numbers come back as `NSNumber`s, as on Apple platforms (``constantValue``).
    ///
    /// ```swift
    /// NSExpression(format: "price * quantity").expressionValue(with: ["price": 2, "quantity": 3], context: nil) // 6
    /// NSExpression(format: "2 ** 3").expressionValue(with: nil, context: nil) as? Int // 8
    /// ```
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        do {
            return try expressionValueThrowing(with: object, context: context)
        } catch {
            fatalError(PredicateError.message(of: error))
        }
    }

    /// The value of the expression for `object`, throwing an `NSError` (see ``PredicateErrorKey``) where Apple raises:
    /// unknown keys, unbound variables, operations on values of the wrong type.
    ///
    /// ```swift
    /// let value = try NSExpression(format: "$x + 1").expressionValueThrowing(with: nil, context: ["x": 1])
    /// ```
    open func expressionValueThrowing(with object: Any?, context: NSMutableDictionary?) throws -> Any? {
        FoundationBridging.object(try evaluatedValue(with: object, context: context))
    }

    /// The value in the evaluator's own representation (Swift numbers, not bridged to `NSNumber`), for the library's
    /// own use: stores, derived attributes, migrations and dictionary fetches bridge (or store) it themselves.
    package final func evaluatedValue(with object: Any?, context: NSMutableDictionary?) throws -> Any? {
        var evaluator = PredicateEvaluator(context: context)
        return try evaluator.value(of: self, object: object)
    }

    // MARK: Description, equality, copying

    /// The expression in format-string syntax.
    ///
    /// ```swift
    /// NSExpression(format: "a+b+c").description // "(a + b) + c"
    /// ```
    open override var description: String {
        PredicateFormatter.format(self)
    }

    /// Structural equality: same kind and equal parts (constants compare by value, numbers numerically).
    ///
    /// ```swift
    /// NSExpression(format: "a.b") == NSExpression(forKeyPath: "a.b") // true
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        return PredicateStructure.equal(self, other)
    }

    /// A hash consistent with ``isEqual(_:)``.
    ///
    /// ```swift
    /// Set([NSExpression(forKeyPath: "a"), NSExpression(forKeyPath: "a")]).count // 1
    /// ```
    open override var hash: Int {
        PredicateStructure.hash(self)
    }

    /// Expressions are immutable, so a copy is the expression itself.
    ///
    /// ```swift
    /// let same = expression.copy() as! NSExpression
    /// ```
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }
}

/// Stands for Apple's `NSPredicateUtilities`, the receiver of the predefined functions (``NSExpression/operand``).
package final class PredicateUtilities: NSObject, @unchecked Sendable { // Stateless singleton.
    package static let shared = PredicateUtilities()
    package override var description: String { "NSPredicateUtilities" }
}
