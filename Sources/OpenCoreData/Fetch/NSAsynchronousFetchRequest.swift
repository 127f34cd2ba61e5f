/// A fetch that runs after `execute(_:)` returns: the context runs it on its queue (as a later `perform` block)
/// and hands the objects to `completionBlock` there; the returned `NSAsynchronousFetchResult` reports progress
/// and can cancel it before it runs.
///
/// For example:
/// ```swift
/// let request = NSAsynchronousFetchRequest(fetchRequest: Mood.fetchRequest()) { result in
///     print(result.finalResult?.count ?? 0)
/// }
/// let pending = try context.execute(request) as! NSAsynchronousFetchResult<Mood>
/// pending.progress?.fractionCompleted
/// ```
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue with the result (objects, or an error when the fetch failed or was cancelled).
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// The expected number of results, used as the progress's total (0: unknown).
    open var estimatedResultCount = 0

    /// A request for `fetchRequest` whose result goes to `completionBlock`.
    public init(fetchRequest request: NSFetchRequest<ResultType>, completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}

/// The pending or finished result of an asynchronous request.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult {
    /// The context the request runs in.
    public let managedObjectContext: NSManagedObjectContext
    /// Why the request failed (`NSUserCancelledError` when it was cancelled), if it did.
    open internal(set) var operationError: Error?
    /// The request's progress (from 0 to the result count when it finishes).
    public let progress: Progress?
    var isCancelled = false

    init(context: NSManagedObjectContext, progress: Progress) {
        managedObjectContext = context
        self.progress = progress
        super.init()
    }

    /// Cancels the request if it has not run yet: its completion block then gets `NSUserCancelledError`.
    open func cancel() {
        isCancelled = true
        progress?.cancel()
    }
}

/// The result of an `NSAsynchronousFetchRequest` (also what `execute(_:)` returns for a plain fetch request,
/// already final).
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult {
    /// The request this is the result of.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The fetched results, once the fetch has run (nil if it failed or was cancelled).
    open internal(set) var finalResult: [ResultType]?

    init(request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext) {
        fetchRequest = request
        let progress = Progress(totalUnitCount: Int64(max(request.estimatedResultCount, 1)))
        super.init(context: context, progress: progress)
    }
}

/// An asynchronous fetch of any result type.
protocol AnyAsynchronousFetchRequest: NSPersistentStoreRequest {
    /// Schedules the fetch on `context`'s queue; returns its pending result.
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult
}

extension NSAsynchronousFetchRequest: AnyAsynchronousFetchRequest {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult {
        let result = NSAsynchronousFetchResult(request: self, context: context)
        let box = UncheckedSendableBox((request: self, result: result, context: context))
        context.perform {
            let (request, result, context) = box.value
            if result.isCancelled {
                result.operationError = CoreDataError.make(NSUserCancelledError, "The asynchronous fetch was cancelled")
            } else {
                do {
                    let objects = try context.executeFetch(request.fetchRequest).compactMap { $0 as? ResultType }
                    result.finalResult = objects
                    result.progress?.totalUnitCount = Int64(max(objects.count, 1))
                    result.progress?.completedUnitCount = result.progress?.totalUnitCount ?? 1
                } catch {
                    result.operationError = error
                }
            }
            request.completionBlock?(result)
        }
        return result
    }
}

extension NSFetchRequest {
    /// The result `execute(_:)` gives for this (synchronous) fetch: an already final asynchronous result.
    func finishedResult(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let request = NSAsynchronousFetchRequest(fetchRequest: self)
        let result = NSAsynchronousFetchResult(request: request, context: context)
        let objects = try context.executeFetch(self).compactMap { $0 as? ResultType }
        result.finalResult = objects
        result.progress?.completedUnitCount = result.progress?.totalUnitCount ?? 1
        return result
    }
}

/// The completion block of an `NSAsynchronousFetchRequest<NSFetchRequestResult>`, as Apple names its type.
///
/// For example:
/// ```swift
/// let completion: NSPersistentStoreAsynchronousFetchResultCompletionBlock = { result in print(result.finalResult?.count ?? 0) }
/// let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Mood"), completionBlock: completion)
/// ```
public typealias NSPersistentStoreAsynchronousFetchResultCompletionBlock = (NSAsynchronousFetchResult<any NSFetchRequestResult>) -> Void
