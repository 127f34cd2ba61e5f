/// An attribute whose value the store computes from other values of the object (for example
/// `photos.@count` or `name.lowercase:`), kept up to date on save.
///
/// For example:
/// ```swift
/// let count = NSDerivedAttributeDescription()
/// count.name = "photoCount"
/// count.attributeType = .integer64AttributeType
/// count.derivationExpression = NSExpression(format: "photos.@count")
/// ```
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: as NSPropertyDescription — mutable only until the model is frozen.

    var _derivationExpressionFormat: String?

    public override init() { super.init() }

    /// The derivation expression in NSExpression format syntax.
    var derivationExpressionFormat: String? {
        get { _derivationExpressionFormat }
        set { willMutate("derivationExpression"); _derivationExpressionFormat = newValue }
    }

    /// Derived attributes are read-only: the store writes them.
    override var isReadOnlyForHashing: Bool { true }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSDerivedAttributeDescription()
        copyFields(into: copy)
        return copy
    }

    override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        (copy as? NSDerivedAttributeDescription)?._derivationExpressionFormat = _derivationExpressionFormat
    }
}

/// An attribute made of several attributes stored together (iOS 17+), such as a point of two doubles.
///
/// For example:
/// ```swift
/// let location = NSCompositeAttributeDescription()
/// location.name = "location"
/// location.elements = [latitude, longitude]
/// ```
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: as NSPropertyDescription — mutable only until the model is frozen.

    var _elements: [NSAttributeDescription] = []

    public override init() {
        super.init()
        _attributeType = .compositeAttributeType
    }

    /// The attributes the composite is made of.
    public var elements: [NSAttributeDescription] {
        get { _elements }
        set { willMutate("elements"); _elements = newValue }
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSCompositeAttributeDescription()
        copyFields(into: copy)
        return copy
    }

    override func copyFields(into copy: NSPropertyDescription) {
        super.copyFields(into: copy)
        (copy as? NSCompositeAttributeDescription)?._elements = _elements.map { $0.copy() as! NSAttributeDescription }
    }
}

extension NSDerivedAttributeDescription {
    /// The text a derived attribute contributes to its version hash: its expression's `predicateFormat`.
    /// The expression's format as Core Data hashes it: Apple stores `x.@count` as the function `count:(x)` (the
    /// corpus model cache of CoreDataPlus SampleModel2 holds `count:(pages)` for a model built with
    /// `NSExpression(format: "pages.@count")`), and hashes that form.
    var derivationExpressionHashText: String? {
        guard let expression = derivationExpression else { return _derivationExpressionFormat }
        if case .keyPath(let operand, let path) = expression.node, path.hasSuffix(".@count"), case .evaluatedObject = operand.node {
            let collection = NSExpression(forKeyPath: String(path.dropLast(".@count".count)))
            return NSExpression(node: .function(target: nil, name: "count:", arguments: [collection])).description
        }
        return expression.description
    }
}
