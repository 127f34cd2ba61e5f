import OpenCoreData

/// The data access layer: reads run on the main context, writes on a write context below it, and every change is
/// saved down to the store (CQRS: `read` for queries, `write…` for commands).
///
/// - `read { context in … }` runs on the main context and waits.
/// - `writeSync { context in … }` (also spelled `write`, the seed's first name) runs on the write context, saves it,
///   then saves the main and root contexts to the store, all before returning.
/// - `writeAsync { context in … }` does the same without blocking the caller.
/// - `read`, `write` and `writeSync` return the service, so calls chain and run in order:
///   `dal.write { … }.write { … }.read { … }`.
/// - `try await read { … }` and `try await write { … }` are the async/await forms.
///
/// There is one shared write context by default (writes run one after another); with `allowsConcurrentWritings`
/// each write gets its own child of the main context.
///
/// **Completions** (`writeSync(_:completion:)`, `writeAsync(_:completion:)`) run on `completionQueue`, the main
/// queue by default as in the seed. On Linux a program receives them only while its main queue runs: call
/// `dispatchMain()` or `RunLoop.main.run()`, or use an async `main` (Swift runs the main queue for it). A
/// command-line program that never runs its main queue passes another queue (`completionQueue:`), or uses the
/// async/await forms. The same holds for anything that needs the main context from another thread (`read` off the
/// main queue, `writeAsync`): the main queue must run. From the main thread itself, `read` and `writeSync` run
/// inline and need no main loop. As with Core Data, don't block the main queue on `writeSync` while `writeAsync`
/// writes on the shared write context are under way: they wait for the main queue to save into the main context.
///
/// **Errors**: every error the layer meets (the model or store failing to load, a save, a fetch in the `SK_`
/// helpers) is passed to `handleError(_:)`, on the queue where it happened; override it in a subclass. A write
/// whose save fails is rolled back, so the next write starts clean.
///
/// For example:
/// ```swift
/// let dal = DALService(coreDataStack: CoreDataStack(storeType: .sqlite, modelURL: modelURL, storeURL: storeURL))
/// dal.writeSync { context in
///     let user = User.SK_create(context)
///     user.firstname = "John"
/// }.read { context in
///     print(User.SK_all(context).count)
/// }
/// ```
open class DALService: @unchecked Sendable {  // immutable after init; contexts are used only on their own queues
    /// The stack reads and writes go through.
    public let coreDataStack: CoreDataStack
    /// Whether each write gets its own write context (otherwise one shared context serializes writes).
    public let allowsConcurrentWritings: Bool
    /// Where completions run (the main queue by default).
    public let completionQueue: DispatchQueue
    /// The shared write context (used when `allowsConcurrentWritings` is false).
    private let singleScratchContext: NSManagedObjectContext
    private var errorObserver: NSObjectProtocol?

    /// The notification the `SK_` helpers post for an error met in a context that belongs to no service (outside
    /// every read or write block); every service reports it through `handleError(_:)` (the seed's mechanism).
    /// `userInfo["error"]` is the error.
    public static let handleErrorNotification = Notification.Name("handleErrorNotification")

    /// The service whose read or write block is running on this thread (the `SK_` helpers report errors to it).
    @TaskLocal static var current: DALService?

    /// Makes a service on `coreDataStack`; errors met while setting the stack up are reported right away.
    ///
    /// For example:
    /// ```swift
    /// let dal = DALService(coreDataStack: stack, allowsConcurrentWritings: true)
    /// ```
    public init(coreDataStack: CoreDataStack, allowsConcurrentWritings: Bool = false, completionQueue: DispatchQueue = .main) {
        self.coreDataStack = coreDataStack
        self.allowsConcurrentWritings = allowsConcurrentWritings
        self.completionQueue = completionQueue
        singleScratchContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        singleScratchContext.name = "Skopelos scratch"
        singleScratchContext.parent = coreDataStack.mainContext
        errorObserver = NotificationCenter.default.addObserver(forName: Self.handleErrorNotification, object: nil, queue: nil) { [weak self] notification in
            guard let error = notification.userInfo?["error"] as? NSError else { return }
            self?.handleError(error)
        }
        Self.register(self)
        for error in coreDataStack.setupErrors {
            handleError(error)
        }
    }

    deinit {
        if let errorObserver { NotificationCenter.default.removeObserver(errorObserver) }
    }

    /// Called for every error the layer meets; does nothing here. Override it to log, alert or stop.
    ///
    /// For example:
    /// ```swift
    /// final class SkopelosClient: Skopelos {
    ///     override func handleError(_ error: NSError) { print(error.localizedDescription) }
    /// }
    /// ```
    open func handleError(_ error: NSError) {}

    // MARK: Reading

    /// Runs `statements` on the main context and waits for them.
    ///
    /// For example:
    /// ```swift
    /// dal.read { context in print(User.SK_numberOfEntities(context)) }
    /// ```
    @discardableResult
    public func read(_ statements: (NSManagedObjectContext) throws -> Void) rethrows -> Self {
        let context = coreDataStack.mainContext
        try context.performAndWait {
            try Self.$current.withValue(self) { try statements(context) }
        }
        return self
    }

    // MARK: Writing

    /// Runs `changes` on a write context and saves them down to the store before returning; `completion` then
    /// runs on `completionQueue` with the first error (nil when saved). A write whose block throws is rolled back
    /// and the error rethrown (it is the caller's, not reported).
    ///
    /// For example:
    /// ```swift
    /// dal.writeSync({ context in
    ///     User.SK_create(context).firstname = "John"
    /// }, completion: { error in print(error == nil ? "in the store" : "failed") })
    /// ```
    @discardableResult
    public func writeSync(_ changes: (NSManagedObjectContext) throws -> Void,
                          completion: (@Sendable (NSError?) -> Void)? = nil) rethrows -> Self {
        let context = writeContext()
        let writeError = try context.performAndWait { try saveWrite(changes, in: context) }
        var error = writeError
        if writeError == nil {
            let stackErrors = coreDataStack.saveSynchronously()
            stackErrors.forEach(handleError)
            error = stackErrors.first
        }
        deliver(completion, error)
        return self
    }

    /// The seed's first name for `writeSync(_:completion:)`.
    ///
    /// For example:
    /// ```swift
    /// dal.write { context in User.SK_create(context) }.write { context in User.SK_removeAll(context) }
    /// ```
    @discardableResult
    public func write(_ changes: (NSManagedObjectContext) throws -> Void,
                      completion: (@Sendable (NSError?) -> Void)? = nil) rethrows -> Self {
        try writeSync(changes, completion: completion)
    }

    /// Runs `changes` on a write context without blocking the caller, saves it, then saves the main and root
    /// contexts; `completion` runs on `completionQueue` once the changes are in the store (or with the error).
    /// Writes on the shared write context run in the order they were asked for.
    ///
    /// For example:
    /// ```swift
    /// dal.writeAsync({ context in User.SK_create(context) }, completion: { error in … })
    /// ```
    public func writeAsync(_ changes: @escaping (NSManagedObjectContext) -> Void,
                           completion: (@Sendable (NSError?) -> Void)? = nil) {
        let context = writeContext()
        let stack = coreDataStack
        stack.writesInFlight.enter()
        context.perform {
            let writeError = self.saveWrite(changes, in: context)
            stack.writesInFlight.leave()
            if let writeError {
                self.deliver(completion, writeError)
                return
            }
            stack.save { error in
                if let error { self.handleError(error) }
                self.deliver(completion, error)
            }
        }
    }

    // MARK: Internals

    /// A write context: the shared one, or a new child of the main context.
    func writeContext() -> NSManagedObjectContext {
        guard allowsConcurrentWritings else { return singleScratchContext }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.name = "Skopelos write"
        context.parent = coreDataStack.mainContext
        return context
    }

    /// Runs `changes` and saves the write context into the main context (on the write context's queue). A save
    /// error is reported, the write rolled back and the error returned; an error thrown by `changes` rolls back
    /// and is rethrown.
    func saveWrite(_ changes: (NSManagedObjectContext) throws -> Void, in context: NSManagedObjectContext) rethrows -> NSError? {
        do {
            try Self.$current.withValue(self) { try changes(context) }
        } catch {
            context.rollback()
            throw error
        }
        guard context.hasChanges else { return nil }
        do {
            // Permanent IDs before the save, so that the write, main and root contexts share them: obtained later
            // from a write context, after the root context saved the row, an ID would be a new one.
            let inserted = context.insertedObjects.filter(\.objectID.isTemporaryID)
            if !inserted.isEmpty { try context.obtainPermanentIDs(for: Array(inserted)) }
            try context.save()
            return nil
        } catch {
            context.rollback()
            handleError(error as NSError)
            return error as NSError
        }
    }

    /// Runs `completion` on `completionQueue`.
    func deliver(_ completion: (@Sendable (NSError?) -> Void)?, _ error: NSError?) {
        guard let completion else { return }
        completionQueue.async { completion(error) }
    }

    /// Reports an error a helper met in `context`: to the service whose block is running, else to the service whose
    /// stack `context` belongs to, else (a context of no service) to every service through the notification.
    static func report(_ error: NSError, in context: NSManagedObjectContext?) {
        if let service = current ?? context.flatMap(owner(of:)) {
            service.handleError(error)
        } else {
            NotificationCenter.default.post(name: handleErrorNotification, object: nil, userInfo: ["error": error])
        }
    }

    /// The services by their root context.
    private static let owners = LockedBox<[ObjectIdentifier: WeakService]>([:])

    private struct WeakService {
        weak var service: DALService?
    }

    private static func register(_ service: DALService) {
        owners.update { table in
            table = table.filter { $0.value.service != nil }
            table[ObjectIdentifier(service.coreDataStack.rootContext)] = WeakService(service: service)
        }
    }

    /// The service whose stack `context` belongs to (found by walking up to the root context).
    private static func owner(of context: NSManagedObjectContext) -> DALService? {
        var top = context
        while let parent = top.parent { top = parent }
        return owners.get()[ObjectIdentifier(top)]?.service
    }
}
