import Foundation
import OpenCoreData
import OpenCombine

extension NSManagedObjectContext {
    /// A publisher of a fetch request's results: the results at the first demand, then again after every change of
    /// the context that changes them (inserts, updates, deletes, saves merged in), as a fetched results controller
    /// sees them. It emits on the context's queue; read the objects there. OpenCoreData's own API: Apple has none
    /// (DEVIATIONS O24).
    ///
    /// ```swift
    /// let request = Mood.fetchRequest()
    /// request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
    /// let cancellable = viewContext.fetchedResultsPublisher(for: request)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { moods in print(moods.count, "moods") })
    /// ```
    public func fetchedResultsPublisher<ResultType>(for fetchRequest: NSFetchRequest<ResultType>) -> FetchedResultsPublisher<ResultType> {
        FetchedResultsPublisher(fetchRequest: fetchRequest, context: self)
    }
}

/// The results of a fetch request in a context, published again whenever they change (see
/// `NSManagedObjectContext.fetchedResultsPublisher(for:)`; not named `publisher(for:)`, which on Apple platforms is a
/// context's key-value observing). The request needs sort descriptors, as a fetched results
/// controller's does; without them, or when the fetch fails, the publisher completes with the error.
///
/// ```swift
/// let moods: FetchedResultsPublisher<Mood> = viewContext.fetchedResultsPublisher(for: request)
/// ```
public struct FetchedResultsPublisher<ResultType>: OpenCombine.Publisher {
    /// The results, in the request's order.
    public typealias Output = [ResultType]
    /// The fetch's error (an `NSError` of Core Data's domain and code).
    public typealias Failure = any Error

    /// The request whose results are published.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// The context it is fetched in.
    public let context: NSManagedObjectContext

    /// A publisher of `fetchRequest`'s results in `context`.
    ///
    /// ```swift
    /// let publisher = FetchedResultsPublisher(fetchRequest: request, context: viewContext)
    /// ```
    public init(fetchRequest: NSFetchRequest<ResultType>, context: NSManagedObjectContext) {
        self.fetchRequest = fetchRequest
        self.context = context
    }

    /// Attaches `subscriber`: the first fetch runs on the context's queue at its first demand.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == [ResultType], S.Failure == any Error {
        subscriber.receive(subscription: FetchedResultsSubscription(fetchRequest: fetchRequest, context: context, subscriber: subscriber))
    }
}

/// One subscriber's fetched results controller. Results that change while there is no demand are kept (the latest
/// only) and emitted at the next demand.
private final class FetchedResultsSubscription<ResultType, Downstream: Subscriber>: NSObject, Subscription,
    NSFetchedResultsControllerDelegate, @unchecked Sendable
    where Downstream.Input == [ResultType], Downstream.Failure == any Error
{
    // @unchecked Sendable: `downstream`, `demand`, `pending` and `started` are read and written under `lock`; the
    // controller is made, used and released on the context's queue only.
    private let lock = NSLock()
    private let fetchRequest: NSFetchRequest<ResultType>
    private let context: NSManagedObjectContext
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var pending: [ResultType]?
    private var started = false
    private var controller: NSFetchedResultsController<ResultType>?

    init(fetchRequest: NSFetchRequest<ResultType>, context: NSManagedObjectContext, subscriber: Downstream) {
        self.fetchRequest = fetchRequest
        self.context = context
        downstream = subscriber
    }

    func request(_ demand: Subscribers.Demand) {
        let start = lock.withLock { () -> Bool in
            self.demand += demand
            defer { started = true }
            return !started && downstream != nil
        }
        context.perform { [self] in
            if start { self.start() } else { emitPending() }
        }
    }

    /// Makes the controller and emits the first results (on the context's queue).
    private func start() {
        guard fetchRequest.sortDescriptors != nil else {
            finish(with: NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "A fetched results publisher needs a fetch request with sort descriptors (an empty array keeps the store's order)",
            ]))
            return
        }
        let controller = NSFetchedResultsController(fetchRequest: fetchRequest, managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        do {
            try controller.performFetch()
        } catch {
            finish(with: error)
            return
        }
        guard lock.withLock({ downstream != nil }) else { return }   // cancelled meanwhile
        controller.delegate = self
        self.controller = controller
        emit(controller.fetchedObjects ?? [])
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard let results = self.controller?.fetchedObjects else { return }
        emit(results)
    }

    /// Emits `results` if there is demand, or keeps them for the next demand.
    private func emit(_ results: [ResultType]) {
        let target: Downstream? = lock.withLock {
            guard let downstream else { return nil }
            guard demand > 0 else {
                pending = results
                return nil
            }
            demand -= 1
            pending = nil
            return downstream
        }
        guard let target else { return }
        let more = target.receive(results)
        if more > 0 { lock.withLock { demand += more } }
    }

    private func emitPending() {
        guard let results = lock.withLock({ pending }) else { return }
        emit(results)
    }

    private func finish(with error: any Error) {
        let target: Downstream? = lock.withLock {
            defer { downstream = nil }
            return downstream
        }
        target?.receive(completion: .failure(error))
    }

    func cancel() {
        lock.withLock {
            downstream = nil
            pending = nil
        }
        context.perform { [self] in
            controller?.delegate = nil
            controller = nil
        }
    }
}
