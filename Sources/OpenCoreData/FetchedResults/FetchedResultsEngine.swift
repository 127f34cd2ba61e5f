import Logging

/// The part of a fetched results controller that does not depend on its result type: the results, the fetch, the
/// cache, change tracking and delivery. A controller owns one; the type-erased controller a delegate receives
/// (`NSFetchedResultsController<NSFetchRequestResult>`) shares it.
///
/// Confined to the context's queue, like the context.
final class FetchedResultsEngine {
    let context: NSManagedObjectContext
    let request: any FetchedResultsRequest
    let sectionNameKeyPath: String?
    let cacheName: String?

    /// The controller the user created (for overridable methods and the delegate's view of it).
    weak var owner: (any FetchedResultsOwner)?

    weak var delegate: (any NSFetchedResultsControllerDelegate)? {
        didSet { differenceFormSupport = nil; delegateDidChange() }
    }

    /// Extension: also re-evaluate objects when related objects their key paths read change.
    var tracksRelatedKeyPaths = false {
        didSet { if tracksRelatedKeyPaths != oldValue, let configuration { self.configuration = configuration.with(related: tracksRelatedKeyPaths) } }
    }

    /// The current results (nil before `performFetch()`).
    private(set) var state: FetchedResultsState?
    /// Increases with every new state (typed views cache their arrays per version).
    private(set) var stateVersion = 0
    private var sectionInfos: [FetchedResultsSection]?
    var configuration: TrackingConfiguration?

    var observers: [NSObjectProtocol] = []
    let streams = SnapshotBroadcaster()
    /// Changes arrived while nobody listened: the results are stale until a delegate or stream appears.
    var isStale = false
    /// The objects the last `ObjectsDidChange` reported (a merge's ID notification follows its objects notification).
    var handledByLastObjectsNotification = Set<ObjectIdentifier>()
    var handledClearScheduled = false
    var isDelivering = false
    var deferredWork: [() -> Void] = []
    /// The object IDs as last delivered to a difference delegate, in order (they change when objects are saved).
    var deliveredIDs: [NSManagedObjectID]?
    /// Set by the delegate protocol's default difference method: the delegate does not implement the difference form.
    var differenceFormIsDefault = false
    /// Whether the delegate (by identity) implements the difference form, once a call has shown it.
    var differenceFormSupport: (delegate: ObjectIdentifier, implemented: Bool)?
    /// The cache configuration of this controller's last fetch (to detect an illegally mutated request).
    private var usedCacheConfiguration: FetchedResultsCache.Configuration?
    var cacheWriteScheduled = false
    /// The stores' state when the results a scheduled cache write will record were last brought up to date.
    var pendingCacheToken: String?

    // For tests: how the last `performFetch()` got its results, and how many fetches the controller ran.
    private(set) var lastFetchUsedCache = false
    var fetchCount = 0

    static let logger = Logger(label: "OpenCoreData.NSFetchedResultsController")

    init(request: any FetchedResultsRequest, context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.request = request
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        streams.finishAll()
    }

    var isTracking: Bool { delegate != nil || streams.hasSubscribers }

    // MARK: Fetching

    func performFetch() throws {
        context.checkConfinement()
        // Apple raises for a request whose sortDescriptors is nil; an empty array is accepted (store order).
        guard let sortDescriptors = request.sortDescriptors else {
            preconditionFailure("An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        }
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError,
                                     "NSFetchedResultsController supports only fetch requests whose resultType is managedObjectResultType.")
        }
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The context has no persistent store coordinator, so it cannot fetch.")
        }
        let model = coordinator.managedObjectModel
        guard let entity = request.entity.flatMap({ $0.owningModel === model ? $0 : model.entitiesByName[$0.name ?? ""] })
            ?? request.entityName.flatMap({ model.entitiesByName[$0] })
        else {
            throw CoreDataError.make(NSCoreDataError, "The fetch request has no entity, or its entity '\(request.entityName ?? "")' is not in the coordinator's model.")
        }
        var newConfiguration = TrackingConfiguration(
            entity: entity, predicate: request.predicate, sortDescriptors: sortDescriptors, includesSubentities: request.includesSubentities,
            refetches: !request.includesPendingChanges || request.fetchLimit > 0 || request.fetchOffset > 0,
            sectionNameKeyPath: sectionNameKeyPath, related: nil)
        newConfiguration = newConfiguration.with(related: tracksRelatedKeyPaths)

        var newState: FetchedResultsState?
        var cacheConfiguration: FetchedResultsCache.Configuration?
        let tokenBeforeFetch = cacheName == nil ? nil : FetchedResultsCache.storeToken(for: coordinator)
        if let cacheName {
            cacheConfiguration = request.cacheConfiguration(sectionNameKeyPath: sectionNameKeyPath, context: context)
            if let used = usedCacheConfiguration, used != cacheConfiguration, FetchedResultsCache.storedRecord(name: cacheName)?.configuration == used {
                preconditionFailure("FATAL ERROR: The persistent cache of section information does not match the current configuration.  You have illegally mutated the NSFetchedResultsController's fetch request, its predicate, or its sort descriptor without either disabling caching or using +deleteCacheWithName:")
            }
            if let cacheConfiguration, canUseCache,
                let record = FetchedResultsCache.load(name: cacheName, configuration: cacheConfiguration, coordinator: coordinator)
            {
                newState = state(from: record, coordinator: coordinator)
                if newState == nil { FetchedResultsCache.delete(name: cacheName) }
            }
        }
        lastFetchUsedCache = newState != nil
        let fetched: FetchedResultsState
        if let newState {
            fetched = newState
        } else {
            fetched = try fetchState(entityOf: newConfiguration)
            if let outOfOrder = fetched.outOfOrderSection {
                throw CoreDataError.make(NSCoreDataError, "The fetched object at index \(outOfOrder.index) has an out of order section name '\(outOfOrder.name). Objects must be sorted by section name'")
            }
        }
        let previous = state
        configuration = newConfiguration
        usedCacheConfiguration = cacheConfiguration
        isStale = false
        replaceState(with: fetched)
        if cacheName != nil && !lastFetchUsedCache, tokenBeforeFetch != nil, tokenBeforeFetch == FetchedResultsCache.storeToken(for: coordinator) {
            writeCache(token: tokenBeforeFetch)
        }
        startObserving()
        deliverWholeContent(previous: previous)
    }

    /// Whether this context's results may come from or go to a cache: a context without a parent, with nothing unsaved.
    var canUseCache: Bool { context.parent == nil && !context.hasChanges }

    /// Fetches the results and computes every object's section name.
    func fetchState(entityOf configuration: TrackingConfiguration) throws -> FetchedResultsState {
        fetchCount += 1
        let objects = try request.fetchObjects(in: context).compactMap { $0 as? NSManagedObject }
        let names = sectionNameKeyPath.map { keyPath in objects.map { Self.sectionName(of: $0, keyPath: keyPath) } }
            ?? [String](repeating: "", count: objects.count)
        return FetchedResultsState(objects: objects, names: names, isSectioned: sectionNameKeyPath != nil)
    }

    /// The results a cache recorded, as faults; nil when an object cannot be found.
    private func state(from record: FetchedResultsCache.Record, coordinator: NSPersistentStoreCoordinator) -> FetchedResultsState? {
        guard record.sections.reduce(0, { $0 + $1.count }) == record.objectURIs.count else { return nil }
        var objects: [NSManagedObject] = []
        var names: [String] = []
        objects.reserveCapacity(record.objectURIs.count)
        var uris = record.objectURIs.makeIterator()
        for section in record.sections {
            for _ in 0..<section.count {
                guard let text = uris.next(), let url = URL(string: text),
                    let objectID = coordinator.managedObjectID(forURIRepresentation: url)
                else { return nil }
                objects.append(context.object(with: objectID))
                names.append(section.name)
            }
        }
        let state = FetchedResultsState(objects: objects, names: names, isSectioned: sectionNameKeyPath != nil)
        return state.outOfOrderSection == nil ? state : nil
    }

    /// The section name an object's value at `keyPath` gives: strings as they are, nil as "", numbers and booleans
    /// as `NSNumber` prints them, anything else by its description.
    static func sectionName(of object: NSManagedObject, keyPath: String) -> String {
        switch object.value(forKeyPath: keyPath) {
        case nil, is NSNull: return ""
        case let string as String: return string
        case let bool as Bool: return bool ? "1" : "0"
        case let number as NSNumber: return number.stringValue
        case let uuid as UUID: return uuid.uuidString
        case let value?: return String(describing: value)
        }
    }

    func replaceState(with newState: FetchedResultsState) {
        state = newState
        sectionInfos = nil
        stateVersion += 1
    }

    // MARK: Reading

    func checkFetched(_ function: StaticString = #function) -> FetchedResultsState? {
        context.checkConfinement(function)
        return state
    }

    func object(at indexPath: IndexPath) -> NSManagedObject {
        guard let state = checkFetched() else {
            preconditionFailure("NSFetchedResultsController: object(at:) called before performFetch()")
        }
        guard let index = state.flatIndex(of: indexPath) else {
            let section = indexPath.count == 2 ? indexPath[0] : -1, row = indexPath.count == 2 ? indexPath[1] : -1
            if section >= 0 && section < state.sectionCount {
                preconditionFailure("NSFetchedResultsController: no object at index \(row) in section at index \(section)")
            }
            preconditionFailure("NSFetchedResultsController: no section at index \(section)")
        }
        return state.objects[index]
    }

    func indexPath(for object: Any) -> IndexPath? {
        guard let state = checkFetched(), let object = object as? NSManagedObject, let index = state.flatIndex(of: object) else { return nil }
        return state.indexPath(ofFlatIndex: index)
    }

    var sections: [FetchedResultsSection]? {
        guard let state = checkFetched() else { return nil }
        if let sectionInfos { return sectionInfos }
        let built = sections(of: state)
        sectionInfos = built
        return built
    }

    /// The section infos of a state, with their index titles.
    func sections(of state: FetchedResultsState) -> [FetchedResultsSection] {
        (0..<state.sectionCount).map { section in
            let name = state.sectionName(section)
            return FetchedResultsSection(name: name, indexTitle: sectionNameKeyPath == nil ? nil : indexTitle(forSectionName: name),
                                         objects: state.objects, range: state.sectionRange(section))
        }
    }

    /// A section's index title: the delegate's, else the controller's (which a subclass may override).
    func indexTitle(forSectionName name: String) -> String? {
        if let delegate, let view = owner?.erasedController {
            return delegate.controller(view, sectionIndexTitleForSectionName: name)
        }
        return owner?.ownerSectionIndexTitle(forSectionName: name) ?? Self.defaultIndexTitle(forSectionName: name)
    }

    /// Apple's default: the capitalized first letter of the section name.
    static func defaultIndexTitle(forSectionName name: String) -> String? {
        guard let first = name.first else { return nil }
        return String(first).capitalized
    }

    /// The distinct index titles of the sections, in section order.
    func sectionIndexTitles() -> [String] {
        var seen = Set<String>()
        return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The first section whose index title is `title`; when none, the section of the title at `sectionIndex` of the
    /// index, else the last section whose title sorts before `title` (0 when there is none).
    func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let sections = self.sections ?? []
        if let index = sections.firstIndex(where: { $0.indexTitle == title }) { return index }
        let titles = owner?.ownerSectionIndexTitles ?? sectionIndexTitles()
        if titles.indices.contains(sectionIndex), let index = sections.firstIndex(where: { $0.indexTitle == titles[sectionIndex] }) {
            return index
        }
        return sections.lastIndex(where: { ($0.indexTitle ?? "") < title }) ?? 0
    }

    // MARK: Delegate and streams

    private func delegateDidChange() {
        sectionInfos = nil
        if delegate != nil { resumeTrackingIfStale() }
    }

    /// Brings stale results up to date without reporting (nobody was listening while they changed).
    func resumeTrackingIfStale() {
        guard isStale, let configuration, state != nil else { return }
        isStale = false
        if let fresh = try? withoutReprocessingEvent({ try fetchState(entityOf: configuration) }) {
            replaceState(with: fresh)
            deliveredIDs = nil
        }
    }

    // MARK: Cache

    /// Records the current results under the cache name, as computed from the stores in the state `token` names, if
    /// the context has nothing unsaved and the stores are still in that state.
    func writeCache(token: String?) {
        guard let cacheName, let state, canUseCache, let coordinator = context.persistentStoreCoordinator, let token,
            token == FetchedResultsCache.storeToken(for: coordinator),
            let configuration = request.cacheConfiguration(sectionNameKeyPath: sectionNameKeyPath, context: context),
            configuration == usedCacheConfiguration
        else { return }
        let sections = (0..<state.sectionCount).map { FetchedResultsCache.Section(name: state.sectionName($0), count: state.sectionRange($0).count) }
        let record = FetchedResultsCache.Record(configuration: configuration, sections: sections,
                                                objectURIs: state.objects.map { $0.objectID.uriRepresentation().absoluteString },
                                                storeToken: token)
        FetchedResultsCache.store(record, name: cacheName, coordinator: coordinator)
    }

    /// Writes the cache once the current event is over, if the stores are then still as they are now (the results
    /// reflect them now; a save elsewhere in between would make them stale).
    func scheduleCacheWrite() {
        guard cacheName != nil, canUseCache, let coordinator = context.persistentStoreCoordinator else { return }
        pendingCacheToken = FetchedResultsCache.storeToken(for: coordinator)
        guard !cacheWriteScheduled else { return }
        cacheWriteScheduled = true
        let engine = WeakEngine(self)
        context.perform {
            guard let engine = engine.engine else { return }
            engine.cacheWriteScheduled = false
            engine.writeCache(token: engine.pendingCacheToken)
        }
    }
}

/// What the engine reads of the controller's fetch request, whatever its result type.
protocol FetchedResultsRequest: AnyObject {
    var predicate: NSPredicate? { get }
    var sortDescriptors: [NSSortDescriptor]? { get }
    var entity: NSEntityDescription? { get }
    var entityName: String? { get }
    var includesSubentities: Bool { get }
    var includesPendingChanges: Bool { get }
    var fetchLimit: Int { get }
    var fetchOffset: Int { get }
    var resultType: NSFetchRequestResultType { get }
    func fetchObjects(in context: NSManagedObjectContext) throws -> [Any]
    func cacheConfiguration(sectionNameKeyPath: String?, context: NSManagedObjectContext) -> FetchedResultsCache.Configuration?
}

extension NSFetchRequest: FetchedResultsRequest {
    func fetchObjects(in context: NSManagedObjectContext) throws -> [Any] {
        try context.executeFetch(self)
    }

    func cacheConfiguration(sectionNameKeyPath: String?, context: NSManagedObjectContext) -> FetchedResultsCache.Configuration? {
        FetchedResultsCache.configuration(for: self, sectionNameKeyPath: sectionNameKeyPath, context: context)
    }
}

/// The controller a user created, as its engine sees it.
protocol FetchedResultsOwner: AnyObject {
    /// The controller as delegates receive it.
    var erasedController: NSFetchedResultsController<NSFetchRequestResult> { get }
    /// The owner's `sectionIndexTitle(forSectionName:)` (a subclass may override it).
    func ownerSectionIndexTitle(forSectionName name: String) -> String?
    /// The owner's `sectionIndexTitles` (a subclass may override it).
    var ownerSectionIndexTitles: [String] { get }
}

/// What a controller tracks, fixed at `performFetch()` (Apple: change the request, then fetch again).
struct TrackingConfiguration {
    let entity: NSEntityDescription
    let predicate: NSPredicate?
    let sortDescriptors: [NSSortDescriptor]
    let includesSubentities: Bool
    /// Results are recomputed by fetching (`includesPendingChanges` false, a fetch limit or offset) rather than by
    /// placing the changed objects.
    let refetches: Bool
    let sectionNameKeyPath: String?
    let related: RelatedKeyPaths?

    func with(related tracked: Bool) -> TrackingConfiguration {
        TrackingConfiguration(
            entity: entity, predicate: predicate, sortDescriptors: sortDescriptors, includesSubentities: includesSubentities, refetches: refetches,
            sectionNameKeyPath: sectionNameKeyPath,
            related: tracked ? RelatedKeyPaths(predicate: predicate, sortDescriptors: sortDescriptors, sectionNameKeyPath: sectionNameKeyPath, entity: entity) : nil)
    }

    func matchesEntity(_ object: NSManagedObject) -> Bool {
        includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
    }

    func matchesEntity(_ objectID: NSManagedObjectID) -> Bool {
        includesSubentities ? objectID.entity.isKindOf(entity: entity) : objectID.entity === entity
    }
}

/// A weak reference to an engine for notification observers and deferred work.
final class WeakEngine: @unchecked Sendable {
    // @unchecked Sendable: the engine is only reached on its context's queue (where the context posts and performs).
    weak var engine: FetchedResultsEngine?
    let contextIdentity: ObjectIdentifier
    init(_ engine: FetchedResultsEngine) {
        self.engine = engine
        contextIdentity = ObjectIdentifier(engine.context)
    }
}
