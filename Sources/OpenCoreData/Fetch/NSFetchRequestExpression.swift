/// An expression whose value is the result of a fetch request run in a context: the fetched objects, or their
/// count for a count-only request. Use it in a predicate (`SELF IN %@`) or as a dictionary fetch column.
///
/// For example:
/// ```swift
/// let recent = NSFetchRequest<NSFetchRequestResult>(entityName: "Mood")
/// recent.predicate = NSPredicate(format: "date > %@", cutoff as NSDate)
/// let expression = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: recent),
///                                                      context: NSExpression(forConstantValue: context), countOnly: false)
/// let countries = NSFetchRequest<Country>(entityName: "Country")
/// countries.predicate = NSPredicate(format: "ANY moods IN %@", expression)
/// ```
open class NSFetchRequestExpression: NSExpression, @unchecked Sendable {
    // @unchecked Sendable: immutable after init, as every NSExpression.

    /// The expression whose value is the fetch request.
    public let requestExpression: NSExpression
    /// The expression whose value is the managed object context to fetch in.
    public let contextExpression: NSExpression
    /// Whether the value is the number of results rather than the results.
    public let isCountOnlyRequest: Bool

    init(request: NSExpression, context: NSExpression, countOnly: Bool) {
        requestExpression = request
        contextExpression = context
        isCountOnlyRequest = countOnly
        super.init(node: .function(target: NSExpression(forConstantValue: FetchInvocation(request: request, context: context, countOnly: countOnly)),
                                   name: FetchInvocation.selector, arguments: []))
    }

    /// `NSFetchRequestExpressionType`.
    open override var expressionType: ExpressionType { .fetchRequest }

    /// An expression that runs `fetch` (an expression whose value is an `NSFetchRequest`) in `context` (an
    /// expression whose value is an `NSManagedObjectContext`).
    open class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool) -> NSExpression {
        NSFetchRequestExpression(request: fetch, context: context, countOnly: countFlag)
    }
}

/// What evaluating an `NSFetchRequestExpression` does: run the fetch in the context (on its queue).
struct FetchInvocation: PredicateFunctionTarget, @unchecked Sendable {
    // @unchecked Sendable: holds expressions (immutable); the fetch runs on the context's own queue.
    static let selector = "executeFetchRequest:"
    let request: NSExpression
    let context: NSExpression
    let countOnly: Bool

    func invokePredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        guard selector == Self.selector else { throw CoreDataError.make(NSCoreDataError, "A fetch request expression has no function \(selector)") }
        guard let fetch = try request.evaluatedValue(with: nil, context: nil) as? AnyFetchRequest else {
            throw CoreDataError.make(NSCoreDataError, "The request expression of an NSFetchRequestExpression must evaluate to an NSFetchRequest")
        }
        guard let context = try self.context.evaluatedValue(with: nil, context: nil) as? NSManagedObjectContext else {
            throw CoreDataError.make(NSCoreDataError, "The context expression of an NSFetchRequestExpression must evaluate to an NSManagedObjectContext")
        }
        let results = try context.performAndWait { try fetch.results(in: context) }
        return countOnly ? results.count : results
    }
}

/// The expression type of an `NSFetchRequestExpression` (raw value 50, as Apple's).
///
/// For example:
/// ```swift
/// if expression.expressionType == NSFetchRequestExpressionType { /* a fetch inside a predicate */ }
/// ```
public let NSFetchRequestExpressionType: NSExpression.ExpressionType = .fetchRequest
