/// How a context is confined to a queue.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable, Hashable {
    /// Deprecated by Apple: the context may be used from the thread that owns it, with no queue.
    case confinementConcurrencyType = 0
    /// The context runs on a private serial queue; use it inside `perform`/`performAndWait`.
    case privateQueueConcurrencyType = 1
    /// The context runs on the main queue.
    case mainQueueConcurrencyType = 2
}

/// A scratch pad of managed objects: it fetches objects from its coordinator (or parent), tracks every change to
/// them, keeps the graph consistent (inverse relationships, delete rules), validates, undoes, and saves.
///
/// A context is confined to its queue: use it, and its objects, inside `perform`/`performAndWait` (or on the
/// main queue for a main-queue context).
///
/// For example:
/// ```swift
/// let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// try context.performAndWait {
///     let mood = Mood(context: context)
///     mood.date = Date()
///     try context.save()
/// }
/// ```
///
/// "The end of an event" — where Core Data processes pending changes (delete propagation), posts
/// `ObjectsDidChange` and closes the undo group — is, on Linux: the end of each `perform`/`performAndWait` block,
/// an explicit `processPendingChanges()`, the start of `save()` and of every fetch, and, for a main-queue context
/// used outside `perform`, the next turn of the main queue.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the object graph is confined to the context's queue (checked in concurrency debug
    // mode); the configuration properties (name, merge policy, coordinator, …) are set up before the context is
    // shared, as Apple documents ("setter methods on queue-based contexts are thread-safe").

    /// How the context is confined.
    public let concurrencyType: NSManagedObjectContextConcurrencyType
    let queue: DispatchQueue?
    // Exclusivity: the state that every object registration, change or save reads or writes is marked
    // `@exclusivity(unchecked)` (each check was a thread-local look-up, about 80 instructions). It is confined to the
    // context's queue, and every access is this module's own and instantaneous: a plain read or write, or a call of a
    // collection's own method that runs no code of the application; none is passed `inout` across a call. The
    // registry stays checked: a fault's class initializer, the application's code, runs while its slot is claimed.
    @exclusivity(unchecked) var eventDepth = 0
    /// Above zero while change processing is off (around `awakeFromFetch`): setters then neither dirty objects
    /// nor register undo nor maintain inverses, as Apple documents.
    @exclusivity(unchecked) var changeProcessingSuspended = 0
    @exclusivity(unchecked) var mainQueueEventScheduled = false

    @exclusivity(unchecked) var _coordinator: NSPersistentStoreCoordinator?
    @exclusivity(unchecked) var _parent: NSManagedObjectContext?

    // MARK: Object registry and change sets

    /// Every object of the context by ID, held strongly: an unchanged object nobody else holds is let go at the end
    /// of an event (see `releaseCandidates`), so no object needs a weak reference (which would put its retain and
    /// release on Swift's slow path for good).
    var registry = ObjectRegistry()
    /// Inserted, updated and deleted objects, in the order they changed.
    @exclusivity(unchecked) var insertedSet = OrderedObjectSet()
    @exclusivity(unchecked) var updatedSet = OrderedObjectSet()
    @exclusivity(unchecked) var deletedSet = OrderedObjectSet()
    /// Deleted objects whose delete rules have not been applied yet.
    @exclusivity(unchecked) var unpropagatedDeletes = OrderedObjectSet()
    /// Inserted objects `refresh(_:mergeChanges: false)` turned into faults, which a save resolves first
    /// (``fireFaultedInsertions()``).
    var faultedInsertions: [NSManagedObject] = []
    /// Objects deleted here (unsaved) whose rows a merge brought newer values of: their committed values are older
    /// than the store's, so `rollback()` makes them faults, which read the row again.
    var deletionsWithMergedRows: Set<NSManagedObjectID> = []

    /// Objects changed during the current event, for `ObjectsDidChange`.
    @exclusivity(unchecked) var eventChanges = EventChanges()
    /// The objects with values from before the current event (`eventOldValues`): the event's undo restores them.
    /// A list: an object is added once per event, when it is not yet ``NSManagedObject/isEventTouched``.
    @exclusivity(unchecked) var eventTouchedObjects: [NSManagedObject] = []
    /// The class of the faults the context makes, for the entity of the last one.
    let faultClasses = FaultClassCache()
    /// ``entity(forObjectClass:)``'s last answer, with the frozen model it came from.
    private var lastClassEntity: (objectClass: ObjectIdentifier, model: NSManagedObjectModel, entity: NSEntityDescription)?
    /// The changes of its objects between `willChangeValue(forKey:)` and `didChangeValue(forKey:)`. One short list
    /// for the context (usually one key of one object is changing at a time, found without hashing): a list per
    /// object would stay allocated with every object ever changed.
    @exclusivity(unchecked) var pendingChanges: [NSManagedObject.PendingChange] = []
    /// The pending batch of each fault a batched fetch (`fetchBatchSize`) returned.
    @exclusivity(unchecked) var faultBatches: [NSManagedObjectID: FaultBatch] = [:]
    /// Objects registered, saved or reverted during the current event: at its end, those that are unchanged and
    /// held by nobody else leave the registry (and are freed).
    @exclusivity(unchecked) var releaseCandidates: [NSManagedObjectID] = []
    /// The registry's size after the last scan of every object for ones nobody holds (scans run when it has doubled,
    /// and at most `registryScanInterval` apart at event ends, so that objects dropped late do not stay for good).
    var registryCountAfterPurge = 0
    /// When every registered object was last examined.
    var lastRegistryScan = ContinuousClock.now
    /// The longest time between such scans at event ends (tests shorten it).
    var registryScanInterval: Duration = .seconds(1)
    /// Whether the end of an event is being processed (observers of `ObjectsDidChange` run inside it).
    var isProcessingPendingChanges = false
    /// Temporary IDs this context's saves replaced with permanent ones (children may still use them).
    @exclusivity(unchecked) var replacedTemporaryIDs: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// The objects observed with `observe(_:options:changeHandler:)`, looked at when an event ends (made at the first
    /// observation).
    var keyValueObservers: KeyValueObserverTable?
    /// Whether a child context has used this one as its parent (only then are replaced IDs remembered).
    @exclusivity(unchecked) var servesChildren = false
    /// The stores `assign(_:to:)` chose for inserted objects, by temporary ID (until they get permanent IDs).
    @exclusivity(unchecked) var storeAssignments: [NSManagedObjectID: NSPersistentStore] = [:]

    // MARK: Settings

    var _undoManager: UndoManager?
    private var _name: String?
    private var _transactionAuthor: String?
    /// The query generation the context is pinned to (nil: unpinned); see NSManagedObjectContext+QueryGeneration.swift.
    var _queryGeneration: NSQueryGenerationToken?
    private let _userInfo = NSMutableDictionary()
    var _mergePolicy: Any = NSErrorMergePolicy
    @exclusivity(unchecked) var _stalenessInterval: TimeInterval = -1
    var _shouldDeleteInaccessibleFaults = true
    @exclusivity(unchecked) var _retainsRegisteredObjects = false
    @exclusivity(unchecked) var _propagatesDeletesAtEndOfEvent = true
    var _automaticallyMergesChangesFromParent = false
    private let legacyLock = NSRecursiveLock()
    var autoMergeObserver: NSObjectProtocol?

    /// Creates a context with the given confinement.
    ///
    /// For example:
    /// ```swift
    /// let viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    /// ```
    public init(concurrencyType ct: NSManagedObjectContextConcurrencyType) {
        concurrencyType = ct
        switch ct {
        case .privateQueueConcurrencyType:
            queue = DispatchQueue(label: "OpenCoreData.NSManagedObjectContext")
        case .mainQueueConcurrencyType:
            queue = DispatchQueue.main
            _ = MainQueueMark.key
        case .confinementConcurrencyType:
            queue = nil
        }
        super.init()
        if ct == .privateQueueConcurrencyType {
            queue?.setSpecific(key: QueueIdentity.key, value: QueueIdentity(self))
        }
    }

    deinit {
        if let autoMergeObserver { NotificationCenter.default.removeObserver(autoMergeObserver) }
    }

    /// Creates a confinement context (Apple's deprecated default).
    public convenience override init() {
        self.init(concurrencyType: .confinementConcurrencyType)
    }

    /// Decodes a context archived with `encode(with:)`: a new, empty context of the archived concurrency type with
    /// the archived settings, attached to no coordinator (NSManagedObjectContext+Coding.swift, DEVIATIONS.md).
    ///
    /// ```swift
    /// let context = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectContext.self, from: data)
    /// ```
    public required convenience init?(coder: NSCoder) {
        guard let settings = ArchivedContextSettings(coder: coder) else { return nil }
        self.init(concurrencyType: settings.concurrencyType)
        settings.apply(to: self)
    }

    /// Creates a context in the iOS 15+ spelling (`.mainQueue`, `.privateQueue`).
    public convenience init(_ type: ConcurrencyType) {
        self.init(concurrencyType: type.rawValue)
    }

    /// The iOS 15+ spelling of the concurrency type.
    public struct ConcurrencyType: RawRepresentable, Hashable, Sendable {
        /// The Objective-C concurrency type this Swift type wraps.
        public typealias RawValue = NSManagedObjectContextConcurrencyType
        public var rawValue: NSManagedObjectContextConcurrencyType
        public init(rawValue: NSManagedObjectContextConcurrencyType) { self.rawValue = rawValue }
        public static let mainQueue = ConcurrencyType(rawValue: .mainQueueConcurrencyType)
        public static let privateQueue = ConcurrencyType(rawValue: .privateQueueConcurrencyType)
    }

    // MARK: Stack

    /// The coordinator the context fetches from and saves to (through its parent, if it has one).
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { _coordinator ?? _parent?.persistentStoreCoordinator }
        set {
            precondition(_parent == nil || newValue == nil, "A context cannot have both a parent and a coordinator.")
            _coordinator = newValue
        }
    }

    /// The parent context: saves push changes into it instead of the store.
    open var parent: NSManagedObjectContext? {
        get { _parent }
        set {
            precondition(_coordinator == nil || newValue == nil, "A context cannot have both a parent and a coordinator.")
            _parent = newValue
        }
    }

    /// The model entities are looked up in for `init(context:)`.
    var modelForEntityLookup: NSManagedObjectModel? { persistentStoreCoordinator?.managedObjectModel }

    /// The entity of the managed object class `objectClass` in ``modelForEntityLookup`` (what `Mood(context:)`
    /// inserts). The last answer is kept with its model, so that a loop creating objects of one class asks the
    /// process-wide registry (a lock and a weak reference per model) once.
    func entity(forObjectClass objectClass: AnyClass) -> NSEntityDescription? {
        let model = modelForEntityLookup
        if let last = lastClassEntity, last.objectClass == ObjectIdentifier(objectClass), last.model === model { return last.entity }
        guard let entity = ManagedObjectClassRegistry.entity(for: objectClass, in: model) else { return nil }
        if let model, model.isFrozen { lastClassEntity = (ObjectIdentifier(objectClass), model, entity) }
        return entity
    }

    // MARK: Settings

    /// A name for debugging; also recorded in persistent history.
    open var name: String? {
        get { _name }
        set { _name = newValue }
    }

    /// The author recorded in persistent history for this context's saves.
    open var transactionAuthor: String? {
        get { _transactionAuthor }
        set { _transactionAuthor = newValue }
    }

    /// Your own data, kept with the context.
    open var userInfo: NSMutableDictionary { _userInfo }

    /// How long after the coordinator read a row from the store a fault firing or a `refresh(_:mergeChanges:)` may
    /// still use it instead of reading the store again: negative (the default) forever, 0 never.
    ///
    /// ```swift
    /// context.stalenessInterval = 0
    /// context.refresh(mood, mergeChanges: false)   // its next access reads the store
    /// ```
    open var stalenessInterval: TimeInterval {
        get { _stalenessInterval }
        set { _stalenessInterval = newValue }
    }

    /// Whether faults whose rows were deleted elsewhere fire as deleted, empty objects instead of stopping
    /// the program. Defaults to true, as Apple's.
    open var shouldDeleteInaccessibleFaults: Bool {
        get { _shouldDeleteInaccessibleFaults }
        set { _shouldDeleteInaccessibleFaults = newValue }
    }

    /// Whether the context keeps strong references to every registered object (not only changed ones).
    open var retainsRegisteredObjects: Bool {
        get { checkConfinement(); return _retainsRegisteredObjects }
        set {
            checkConfinement()
            _retainsRegisteredObjects = newValue
            if !newValue { registryCountAfterPurge = 0 }   // the next event's end looks at every object
        }
    }

    /// Whether delete rules are applied at the end of each event (true) or only at save.
    open var propagatesDeletesAtEndOfEvent: Bool {
        get { _propagatesDeletesAtEndOfEvent }
        set { _propagatesDeletesAtEndOfEvent = newValue }
    }

    /// Whether the context merges the changes its parent saves (or, without a parent, other contexts of its
    /// coordinator save).
    open var automaticallyMergesChangesFromParent: Bool {
        get { _automaticallyMergesChangesFromParent }
        set {
            _automaticallyMergesChangesFromParent = newValue
            updateAutomaticMerging()
        }
    }

    /// The merge policy used when a save conflicts (`NSErrorMergePolicy` by default).
    open var mergePolicy: Any {
        get { _mergePolicy }
        set { _mergePolicy = newValue }
    }

    /// The undo manager that records the context's changes (nil by default, as on iOS: set one to make changes
    /// undoable). Changes of one event form one undo group when `groupsByEvent` is on.
    ///
    /// For example:
    /// ```swift
    /// context.undoManager = UndoManager()
    /// mood.rating = 5
    /// context.processPendingChanges()
    /// context.undo()   // rating is back to its old value
    /// ```
    open var undoManager: UndoManager? {
        get { _undoManager }
        set { _undoManager = newValue }
    }

    /// Called when a fault cannot be fulfilled because its row was deleted from the store. Return true to let
    /// the context handle it as `shouldDeleteInaccessibleFaults` says (an empty, deleted object), false to stop
    /// the program. Override it to log or recover.
    open func shouldHandleInaccessibleFault(_ fault: NSManagedObject, for oid: NSManagedObjectID, triggeredByProperty property: NSPropertyDescription?) -> Bool {
        _shouldDeleteInaccessibleFaults
    }

    /// Deprecated by Apple in favour of `performAndWait`: takes a lock on the context (confinement contexts).
    open func lock() { legacyLock.lock() }
    /// Releases the lock taken with `lock()`.
    open func unlock() { legacyLock.unlock() }
    /// Takes the lock if it is free.
    open func tryLock() -> Bool { legacyLock.try() }
    /// Runs `body` holding the context's lock.
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        legacyLock.lock()
        defer { legacyLock.unlock() }
        return try body()
    }

    // MARK: Queue confinement

    /// Runs `block` asynchronously on the context's queue, as one event.
    ///
    /// For example:
    /// ```swift
    /// context.perform {
    ///     mood.rating = 3
    /// }
    /// ```
    open func perform(_ block: @escaping () -> Void) {
        guard let queue else {
            runEvent(block)
            return
        }
        let work = UncheckedSendableBox(block)
        queue.async { self.runEvent(work.value) }
    }

    /// Runs `block` on the context's queue and waits for it (inline if already on the queue).
    ///
    /// For example:
    /// ```swift
    /// let count = try context.performAndWait { try context.count(for: request) }
    /// ```
    open func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try runAndWait(block)
    }

    /// Runs `block` on the context's queue and waits for it (inline if already on the queue): Apple's Objective-C
    /// form (`-performBlockAndWait:`), which code also uses as a function value of type `(() -> Void) -> Void`.
    ///
    /// For example:
    /// ```swift
    /// let runInContext: (() -> Void) -> Void = context.performAndWait
    /// runInContext { mood.rating = 3 }
    /// ```
    open func performAndWait(_ block: () -> Void) {
        runAndWait(block)
    }

    /// The one implementation of both `performAndWait` forms.
    private func runAndWait<T>(_ block: () throws -> T) rethrows -> T {
        guard let queue, !isOnQueue else { return try runEvent(block) }
        return try withoutActuallyEscaping(block) { escapable in
            let box = UncheckedSendableBox(escapable)
            // Called from the main queue running off the main thread (Linux, after `dispatchMain()` or in an async
            // `main`): the thread keeps holding the main queue while it waits, so a main-queue context used inside
            // the block (a child saving into it) runs inline instead of waiting for the main queue forever.
            if !Thread.isMainThread && MainQueueMark.isHeld {
                return try MainQueueMark.$heldBySyncCaller.withValue(true) { try queue.sync { try self.runEvent(box.value) } }
            }
            return try queue.sync { try self.runEvent(box.value) }
        }
    }

    /// When `perform(schedule:_:)` runs its block.
    public enum ScheduledTaskType: Sendable, Hashable {
        /// Run it right away if already on the context's queue, otherwise enqueue it.
        case immediate
        /// Always enqueue it behind the work already scheduled.
        case enqueued

        // Equatable and Hashable are written out so they are declared API, as Apple's are.

        /// Whether `a` and `b` are the same scheduling.
        public static func == (a: ScheduledTaskType, b: ScheduledTaskType) -> Bool {
            switch (a, b) {
            case (.immediate, .immediate), (.enqueued, .enqueued): true
            default: false
            }
        }

        /// Feeds the scheduling into `hasher`.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(self == .immediate ? 0 : 1)
        }

        /// The scheduling's hash value.
        public var hashValue: Int {
            var hasher = Hasher()
            hash(into: &hasher)
            return hasher.finalize()
        }
    }

    /// Runs `block` on the context's queue and returns its result (Swift concurrency).
    ///
    /// For example:
    /// ```swift
    /// let names = try await context.perform {
    ///     try context.fetch(Country.fetchRequest()).map(\.name)
    /// }
    /// ```
    open func perform<T, E: Error>(schedule: ScheduledTaskType = .immediate, _ block: @escaping () throws(E) -> T) async throws(E) -> T {
        if schedule == .immediate && (queue == nil || isOnQueue) {
            return try runEvent(block)
        }
        let work = UncheckedSendableBox(block)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<UncheckedSendableBox<Result<T, E>>, Never>) in
            (queue ?? DispatchQueue.global()).async {
                let result = self.runEvent { () -> Result<T, E> in
                    do throws(E) { return .success(try work.value()) } catch { return .failure(error) }
                }
                continuation.resume(returning: UncheckedSendableBox(result))
            }
        }
        return try outcome.value.get()
    }

    /// Runs `block` as one event: pending changes are processed when the outermost block ends.
    func runEvent<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        eventDepth += 1
        defer {
            eventDepth -= 1
            if eventDepth == 0 { endEvent() }
        }
        let result: Result<T, E> = Self.$currentContext.withValue(UncheckedSendableBox(self)) {
            do throws(E) { return .success(try block()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Whether the current thread is on the context's queue.
    var isOnQueue: Bool {
        switch concurrencyType {
        case .confinementConcurrencyType: return true
        // On Linux the main queue does not always run on the main thread (async `main` after its first `await`,
        // `dispatchMain()`): the queue carries a mark of its own.
        case .mainQueueConcurrencyType: return Thread.isMainThread || MainQueueMark.isHeld
        case .privateQueueConcurrencyType: return DispatchQueue.getSpecific(key: QueueIdentity.key)?.context === self
        }
    }

    /// In concurrency debug mode, stops the program when the context is used off its queue.
    @inline(__always)
    func checkConfinement(_ function: StaticString = #function) {
        guard ConcurrencyDebug.isEnabled, !isOnQueue else { return }
        ConcurrencyDebug.violation("NSManagedObjectContext \(_name.map { "'\($0)' " } ?? "")(\(concurrencyType)) used off its queue in \(function)")
    }

    private var name_: String? { _name }
}

/// Marks a private queue with the context that owns it.
final class QueueIdentity: @unchecked Sendable {
    // @unchecked Sendable: holds only a weak reference, read to compare identity.
    static let key = DispatchSpecificKey<QueueIdentity>()
    weak var context: NSManagedObjectContext?
    init(_ context: NSManagedObjectContext) { self.context = context }
}

/// A set of objects that remembers insertion order (so notifications and saves are deterministic).
struct OrderedObjectSet: Sequence {
    private var indexByObject = ObjectIndexTable()
    private var objects: [NSManagedObject?] = []
    private(set) var count = 0
    /// No live object is stored before this index (so taking the first object does not rescan removed slots).
    private var head = 0
    /// The object inserted last, while it is a member: inserting it again needs no hash look-up (a new object's
    /// setters note it as changed once per property).
    private var lastInserted: ObjectIdentifier?

    var isEmpty: Bool { count == 0 }

    func contains(_ object: NSManagedObject) -> Bool { indexByObject[ObjectIdentifier(object)] != nil }

    /// Whether `object` is the member inserted last (no hash look-up).
    func isLastInserted(_ object: NSManagedObject) -> Bool { lastInserted == ObjectIdentifier(object) }

    @discardableResult
    mutating func insert(_ object: NSManagedObject) -> Bool {
        let identifier = ObjectIdentifier(object)
        if identifier == lastInserted { return false }
        guard indexByObject.insert(identifier, objects.count) else { return false }
        objects.append(object)
        count += 1
        lastInserted = identifier
        return true
    }

    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> Bool {
        guard let index = indexByObject.removeValue(for: ObjectIdentifier(object)) else { return false }
        if lastInserted == ObjectIdentifier(object) { lastInserted = nil }
        objects[index] = nil
        count -= 1
        if objects.count > 32 && count < objects.count / 2 { compact() }
        return true
    }

    mutating func removeAll() {
        indexByObject.removeAll()
        objects.removeAll()
        count = 0
        head = 0
        lastInserted = nil
    }

    /// Removes and returns the earliest inserted object (amortized constant time).
    mutating func popFirst() -> NSManagedObject? {
        while head < objects.count, objects[head] == nil { head += 1 }
        guard head < objects.count, let first = objects[head] else { return nil }
        remove(first)
        return first
    }

    private mutating func compact() {
        let live = objects.compactMap { $0 }
        head = 0
        // Mapped, not assigned: assigning `[NSManagedObject]` to `[NSManagedObject?]` casts each element at run
        // time (about 1,300 instructions an object).
        objects = live.map(Optional.some)
        indexByObject = ObjectIndexTable(minimumCapacity: live.count)
        for (index, object) in live.enumerated() { indexByObject.insert(ObjectIdentifier(object), index) }
    }

    /// Iterates the members in order, over the set as it was when iteration began (a copy: the set may change
    /// meanwhile). Checking or filtering the members this way builds no array of all of them first.
    func makeIterator() -> some IteratorProtocol<NSManagedObject> {
        objects.lazy.compactMap { $0 }.makeIterator()
    }

    var underestimatedCount: Int { count }

    var array: [NSManagedObject] { objects.compactMap { $0 } }
    var set: Set<NSManagedObject> { Set(self) }
}

/// What changed during the current event.
struct EventChanges {
    var inserted = OrderedObjectSet()
    var updated = OrderedObjectSet()
    var deleted = OrderedObjectSet()
    var refreshed = OrderedObjectSet()
    var invalidated = OrderedObjectSet()
    var invalidatedAll = false

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll
    }
}
