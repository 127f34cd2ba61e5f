extension PredicateRewriting {
    /// `predicate` with every `NSFetchRequestExpression` replaced by its value (the fetched objects or their count),
    /// computed once before a store sees the predicate.
    static func evaluatingFetchRequestExpressions(_ predicate: NSPredicate) throws -> NSPredicate {
        var failure: Error?
        let result = rewrite(predicate, { $0 }, replacing: { expression in
            guard let fetch = expression as? NSFetchRequestExpression else { return nil }
            do {
                return NSExpression(forConstantValue: try fetch.evaluatedValue(with: nil, context: nil))
            } catch {
                failure = error
                return nil
            }
        })
        if let failure { throw failure }
        return result
    }
}
