/// A column of a dictionary fetch computed by an expression — an aggregate such as `sum:` or `count:`, or any
/// expression over the fetched entity — named `name` in each result dictionary.
///
/// For example:
/// ```swift
/// let total = NSExpressionDescription()
/// total.name = "total"
/// total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "rating")])
/// total.expressionResultType = .integer64AttributeType
/// request.resultType = .dictionaryResultType
/// request.propertiesToFetch = [total]
/// ```
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: as NSPropertyDescription — configured before use, then read-only.

    /// The expression evaluated for each result (or group).
    open var expression: NSExpression?

    /// The type of the expression's value (it decides how the value is converted, e.g. integer or double).
    open var expressionResultType: NSAttributeType = .undefinedAttributeType

    public override init() { super.init() }

    override var kindName: String { "expression" }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSExpressionDescription()
        copyFields(into: copy)
        return copy
    }

    override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        guard let copy = copy as? NSExpressionDescription else { return }
        copy.expression = expression
        copy.expressionResultType = expressionResultType
    }
}
