/// Keeps the results of a fetch request — in sections, if you give a section key path — in step with its context, and
/// reports every change to a delegate in the form a table or collection view applies: Apple's
/// `NSFetchedResultsController`.
///
/// The fetch request needs at least one sort descriptor; with a `sectionNameKeyPath` its first sort descriptor must
/// order the sections. Without a delegate (or a snapshot stream) the controller does not track changes: it gives access
/// to the results as they were fetched. Use it on its context's queue.
///
/// For example:
/// ```swift
/// let request = NSFetchRequest<Mood>(entityName: "Mood")
/// request.sortDescriptors = [NSSortDescriptor(key: "country.name", ascending: true), NSSortDescriptor(key: "date", ascending: false)]
/// let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                             sectionNameKeyPath: "country.name", cacheName: "MoodsByCountry")
/// controller.delegate = self
/// try controller.performFetch()
/// for section in controller.sections ?? [] { print(section.name, section.numberOfObjects) }
/// ```
///
/// Differences from Apple's (see `DEVIATIONS.md`): the result type is unconstrained; delegates receive the controller as
/// `NSFetchedResultsController<NSFetchRequestResult>`, a view that shares this controller's results (`==` to it, not
/// `===`); the snapshot form of the delegate is a separate protocol.
open class NSFetchedResultsController<ResultType>: NSObject {
    let engine: FetchedResultsEngine
    private let typedRequest: NSFetchRequest<ResultType>
    /// The type-erased view delegates receive (when this controller is not already of that type).
    private var erasedView: NSFetchedResultsController<NSFetchRequestResult>?
    private var typedObjects: (version: Int, objects: [ResultType])?

    /// Creates a controller for a fetch request (with at least one sort descriptor) in a context. `sectionNameKeyPath`
    /// groups the results into sections (nil: one section); `name` names the section cache (nil: no cache).
    ///
    /// For example:
    /// ```swift
    /// let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: viewContext,
    ///                                             sectionNameKeyPath: nil, cacheName: nil)
    /// ```
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        typedRequest = fetchRequest
        engine = FetchedResultsEngine(request: fetchRequest, context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
        super.init()
        engine.owner = self
    }

    /// A view sharing another controller's engine.
    init(sharing engine: FetchedResultsEngine, request: NSFetchRequest<ResultType>) {
        self.engine = engine
        typedRequest = request
        super.init()
    }

    // MARK: Configuration

    /// The fetch request. To change it, delete the controller's cache (if any), change it, and call `performFetch()`.
    ///
    /// For example:
    /// ```swift
    /// controller.fetchRequest.predicate = NSPredicate(format: "rating >= 3")
    /// try controller.performFetch()
    /// ```
    open var fetchRequest: NSFetchRequest<ResultType> { typedRequest }

    /// The context the controller fetches from and follows.
    ///
    /// For example:
    /// ```swift
    /// controller.managedObjectContext.perform { try? controller.managedObjectContext.save() }
    /// ```
    open var managedObjectContext: NSManagedObjectContext { engine.context }

    /// The key path whose value names each object's section (nil: a single section).
    ///
    /// For example:
    /// ```swift
    /// print(controller.sectionNameKeyPath ?? "no sections")
    /// ```
    open var sectionNameKeyPath: String? { engine.sectionNameKeyPath }

    /// The name of the section cache (nil: no cache).
    ///
    /// For example:
    /// ```swift
    /// if let name = controller.cacheName { NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: name) }
    /// ```
    open var cacheName: String? { engine.cacheName }

    /// The object told about changes (held weakly). Setting one turns change tracking on; nil turns it off.
    ///
    /// For example:
    /// ```swift
    /// controller.delegate = self
    /// ```
    open var delegate: (any NSFetchedResultsControllerDelegate)? {
        get { engine.delegate }
        set { engine.delegate = newValue }
    }

    /// An extension beyond Apple's controller: when true, an edit to a *related* object that a key path of the predicate,
    /// the sort descriptors or the section key path reads (`country.name` of a mood) re-evaluates the fetched objects that
    /// reach it, so their membership, order and section follow. Apple's controller (and this one by default) sees only
    /// changes to the fetched entity's own objects. Takes effect immediately.
    ///
    /// For example:
    /// ```swift
    /// controller.tracksRelatedKeyPaths = true
    /// country.name = "Deutschland"   // the moods of the country move to the "Deutschland" section
    /// ```
    public var tracksRelatedKeyPaths: Bool {
        get { engine.tracksRelatedKeyPaths }
        set { engine.tracksRelatedKeyPaths = newValue }
    }

    // MARK: Fetching

    /// Fetches the results (from the section cache when it is valid). Call it again after changing the fetch request.
    /// Throws when the fetch fails or when the objects are not grouped by section name (the first sort descriptor must
    /// order the sections).
    ///
    /// For example:
    /// ```swift
    /// do { try controller.performFetch() } catch { print("Could not fetch: \(error)") }
    /// ```
    open func performFetch() throws {
        try engine.performFetch()
    }

    /// The fetched objects, in order (nil before `performFetch()`).
    ///
    /// For example:
    /// ```swift
    /// let moods = controller.fetchedObjects ?? []
    /// ```
    open var fetchedObjects: [ResultType]? {
        guard let state = engine.checkFetched() else { return nil }
        if let typedObjects, typedObjects.version == engine.stateVersion { return typedObjects.objects }
        let objects = state.objects.map(Self.typed)
        typedObjects = (engine.stateVersion, objects)
        return objects
    }

    /// The object at an index path (stops the program for an index path outside the results, as Apple's raises).
    ///
    /// For example:
    /// ```swift
    /// let mood = controller.object(at: IndexPath(row: 0, section: 0))
    /// ```
    open func object(at indexPath: IndexPath) -> ResultType {
        Self.typed(engine.object(at: indexPath))
    }

    /// The index path of an object, or nil when it is not in the results.
    ///
    /// For example:
    /// ```swift
    /// if let indexPath = controller.indexPath(forObject: mood) { print(indexPath) }
    /// ```
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        engine.indexPath(for: object)
    }

    /// The sections (nil before `performFetch()`; without a section key path, exactly one).
    ///
    /// For example:
    /// ```swift
    /// let rows = controller.sections?[section].numberOfObjects ?? 0
    /// ```
    open var sections: [any NSFetchedResultsSectionInfo]? {
        engine.sections
    }

    /// The section index: the distinct index titles of the sections, in order.
    ///
    /// For example:
    /// ```swift
    /// print(controller.sectionIndexTitles)   // ["A", "B", "F"]
    /// ```
    open var sectionIndexTitles: [String] {
        if let owner = engine.owner, owner !== self { return owner.ownerSectionIndexTitles }
        return engine.sectionIndexTitles()
    }

    /// The section to show for an entry of the section index (UIKit's `tableView(_:sectionForSectionIndexTitle:at:)`).
    ///
    /// For example:
    /// ```swift
    /// let section = controller.section(forSectionIndexTitle: "F", at: 2)
    /// ```
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        engine.section(forSectionIndexTitle: title, at: sectionIndex)
    }

    /// The section index title for a section name: by default its capitalized first letter. Override it (or implement
    /// the delegate's `controller(_:sectionIndexTitleForSectionName:)`) for other titles.
    ///
    /// For example:
    /// ```swift
    /// controller.sectionIndexTitle(forSectionName: "france")   // "F"
    /// ```
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let owner = engine.owner, owner !== self { return owner.ownerSectionIndexTitle(forSectionName: sectionName) }
        return FetchedResultsEngine.defaultIndexTitle(forSectionName: sectionName)
    }

    /// Deletes the section cache named `name`, or every cache when nil.
    ///
    /// For example:
    /// ```swift
    /// NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: "MoodsByCountry")
    /// ```
    open class func deleteCache(withName name: String?) {
        FetchedResultsCache.delete(name: name)
    }

    // MARK: Swift-native observation

    /// The results as a stream of snapshots (section names and object IDs): the current results first (or, before
    /// `performFetch()`, those it fetches), then the new results after every change set. Works without a delegate, and
    /// keeps the controller alive (and tracking) until the stream ends. Call it on the context's queue; iterate anywhere.
    ///
    /// For example:
    /// ```swift
    /// let snapshots = try await context.perform {
    ///     let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
    ///                                                 sectionNameKeyPath: nil, cacheName: nil)
    ///     try controller.performFetch()
    ///     return controller.snapshots()
    /// }
    /// for await snapshot in snapshots { print(snapshot.numberOfItems) }
    /// ```
    public func snapshots(bufferingPolicy: AsyncStream<FetchedResultsSnapshot<String, NSManagedObjectID>>.Continuation.BufferingPolicy = .unbounded)
        -> AsyncStream<FetchedResultsSnapshot<String, NSManagedObjectID>>
    {
        engine.context.checkConfinement()
        let (stream, continuation) = AsyncStream.makeStream(of: FetchedResultsSnapshot<String, NSManagedObjectID>.self, bufferingPolicy: bufferingPolicy)
        engine.resumeTrackingIfStale()
        if let state = engine.state { continuation.yield(state.snapshot()) }
        engine.streams.add(continuation, keepingAlive: engine.owner ?? self, context: engine.context)
        return stream
    }

    // MARK: Identity

    /// Controllers are equal when they share their results (a controller and the view its delegate receives).
    ///
    /// For example:
    /// ```swift
    /// func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
    ///     if controller == moodsController { reloadMoods() }
    /// }
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? any FetchedResultsEngineHolder else { return false }
        return other.sharedEngine === engine
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { ObjectIdentifier(engine).hashValue }

    // MARK: FetchedResultsOwner

    var erasedController: NSFetchedResultsController<NSFetchRequestResult> {
        if let same = self as? NSFetchedResultsController<NSFetchRequestResult> { return same }
        if let erasedView { return erasedView }
        let view = NSFetchedResultsController<NSFetchRequestResult>(sharing: engine, request: Self.erasedRequest(typedRequest))
        erasedView = view
        return view
    }

    func ownerSectionIndexTitle(forSectionName name: String) -> String? {
        sectionIndexTitle(forSectionName: name)
    }

    var ownerSectionIndexTitles: [String] { sectionIndexTitles }

    // MARK: Helpers

    private static func typed(_ object: NSManagedObject) -> ResultType {
        guard let typed = object as? ResultType else {
            preconditionFailure("The fetched results controller's object \(object.objectID) is a \(type(of: object)), not a \(ResultType.self); check the fetch request's generic type.")
        }
        return typed
    }

    /// The request as `NSFetchRequest<NSFetchRequestResult>` (a copy, for the delegate's view of the controller).
    private static func erasedRequest(_ request: NSFetchRequest<ResultType>) -> NSFetchRequest<NSFetchRequestResult> {
        let copy: NSFetchRequest<NSFetchRequestResult>
        if let entity = request.entity {
            copy = NSFetchRequest<NSFetchRequestResult>()
            copy.entity = entity
        } else if let name = request.entityName {
            copy = NSFetchRequest<NSFetchRequestResult>(entityName: name)
        } else {
            copy = NSFetchRequest<NSFetchRequestResult>()
        }
        copy.predicate = request.predicate
        copy.sortDescriptors = request.sortDescriptors
        copy.fetchLimit = request.fetchLimit
        copy.fetchOffset = request.fetchOffset
        copy.fetchBatchSize = request.fetchBatchSize
        copy.includesSubentities = request.includesSubentities
        copy.includesPendingChanges = request.includesPendingChanges
        copy.includesPropertyValues = request.includesPropertyValues
        copy.returnsObjectsAsFaults = request.returnsObjectsAsFaults
        copy.resultType = request.resultType
        copy.propertiesToFetch = request.propertiesToFetch
        copy.relationshipKeyPathsForPrefetching = request.relationshipKeyPathsForPrefetching
        copy.shouldRefreshRefetchedObjects = request.shouldRefreshRefetchedObjects
        copy.affectedStores = request.affectedStores
        return copy
    }
}

/// Lets controllers of different result types compare their engines.
protocol FetchedResultsEngineHolder: AnyObject {
    var sharedEngine: FetchedResultsEngine { get }
}

extension NSFetchedResultsController: FetchedResultsOwner {}

extension NSFetchedResultsController: FetchedResultsEngineHolder {
    var sharedEngine: FetchedResultsEngine { engine }
}
