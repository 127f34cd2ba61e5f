extension NSExpressionDescription {
    /// The type of the expression's value in the iOS 15+ spelling: `expressionResultType` as an
    /// `NSAttributeDescription.AttributeType`.
    ///
    /// ```swift
    /// let total = NSExpressionDescription()
    /// total.resultType = .integer64
    /// ```
    public var resultType: NSAttributeDescription.AttributeType {
        get { NSAttributeDescription.AttributeType(rawValue: expressionResultType) }
        set { expressionResultType = newValue.rawValue }
    }
}
