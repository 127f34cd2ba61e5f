// The predicate-bearing parts of a model (derivation expressions, fetched-property and fetch-index
// predicates), parsed from the model file's text once and kept as predicate-layer objects.

extension NSDerivedAttributeDescription {
    /// The expression the store evaluates to compute the attribute (`photos.@count`, `name.lowercase:` …).
    ///
    /// For example:
    /// ```swift
    /// let count = NSDerivedAttributeDescription()
    /// count.name = "photoCount"
    /// count.attributeType = .integer64AttributeType
    /// count.derivationExpression = NSExpression(format: "photos.@count")
    /// ```
    public var derivationExpression: NSExpression? {
        get { _derivationExpressionFormat.flatMap { try? NSExpression(validatingFormat: $0, argumentArray: nil) } }
        set { derivationExpressionFormat = newValue?.description }
    }
}

extension NSFetchedPropertyDescription {
    /// The predicate of the fetched property's request (`$FETCH_SOURCE` is the object, `$FETCHED_PROPERTY` this
    /// description).
    var fetchRequestPredicate: NSPredicate? {
        _fetchRequestPredicateFormat.flatMap { try? NSPredicate(validatingFormat: $0, argumentArray: nil) }
    }
}

extension NSFetchIndexDescription {
    /// The predicate that limits the index to some rows, if any.
    public var partialIndexPredicate: NSPredicate? {
        get { _partialIndexPredicateFormat.flatMap { try? NSPredicate(validatingFormat: $0, argumentArray: nil) } }
        set { partialIndexPredicateFormat = newValue?.predicateFormat }
    }
}
