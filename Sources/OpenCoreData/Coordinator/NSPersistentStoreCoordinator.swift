@_spi(OpenSwiftData) import OpenCoreDataSupport

/// Connects contexts to persistent stores: it routes fetches and saves to the store that holds each entity,
/// hands out object IDs, and keeps the row cache that all its contexts share.
///
/// For example:
/// ```swift
/// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
///                                    at: storeURL, options: nil)
/// let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// ```
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the store list and every store operation are guarded by `lock` (a recursive lock,
    // which `performAndWait`, `lock()` and `withLock` also take); the model is frozen.

    /// The model of every store of this coordinator (frozen: it can no longer be edited).
    public let managedObjectModel: NSManagedObjectModel
    let lockObject = NSRecursiveLock()
    private var stores: [NSPersistentStore] = [] {
        didSet { storeList.withLock { $0 = stores } }
    }
    /// A copy of `stores` readable without the lock (changed with it, under the lock): a fetch on a pooled reader
    /// (`NSPersistentStoreConnectionPoolMaxSizeKey`) finds its stores while a save holds the lock.
    private let storeList = Locked<[NSPersistentStore]>([])
    private var _name: String?
    let rowCache = RowCache()
    /// Whether a store's metadata may wait to be written (set with it, cleared by ``writePendingMetadata(for:)``), so
    /// that a save with no changes looks at the stores only when there is something to write.
    let metadataMayNeedWriting = Locked(false)
    private let queue = DispatchQueue(label: "OpenCoreData.NSPersistentStoreCoordinator")

    /// Creates a coordinator for `model` and makes the model immutable.
    ///
    /// It is `required`, so a subclass can be created through its metatype (`type.init(managedObjectModel:)`), as
    /// Objective-C initializers allow on Apple platforms; a subclass that declares its own designated initializer
    /// writes `required init(managedObjectModel:)` too.
    ///
    /// For example:
    /// ```swift
    /// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    /// ```
    public required init(managedObjectModel model: NSManagedObjectModel) {
        managedObjectModel = model
        model.freeze()
        ManagedObjectClassRegistry.noteModelInUse(model)
        super.init()
    }

    /// A name for debugging.
    open var name: String? {
        get { withLock { _name } }
        set { withLock { _name = newValue } }
    }

    /// The stores, in the order they were added.
    open var persistentStores: [NSPersistentStore] { storeList.withLock { $0 } }

    // MARK: Adding and removing stores

    /// Adds a store of a registered type (`NSSQLiteStoreType`, `NSInMemoryStoreType`, or your own), opening or
    /// creating it at `storeURL`. Throws Core Data's errors (`NSPersistentStoreInvalidTypeError`,
    /// `NSPersistentStoreIncompatibleVersionHashError`, …).
    ///
    /// For example:
    /// ```swift
    /// let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
    /// ```
    @discardableResult
    open func addPersistentStore(ofType storeType: String, configurationName configuration: String?, at storeURL: URL?, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        guard let storeClass = Self.storeClass(forType: storeType) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown persistent store type '\(storeType)' (registered: \(Self.registeredStoreTypes.keys.sorted().joined(separator: ", ")))")
        }
        if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The model has no configuration named '\(configuration)'")
        }
        let store = try addStoreWithoutNotifying(storeClass: storeClass, type: storeType, configuration: configuration, at: storeURL, options: options)
        postStoresDidChange(added: [store], removed: [])
        return store
    }

    /// Creates, loads and attaches a store (the caller posts the notifications).
    func addStoreWithoutNotifying(storeClass: NSPersistentStore.Type, type storeType: String, configuration: String?, at storeURL: URL?,
                                  options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        let url = storeURL ?? URL(fileURLWithPath: "/dev/null")
        return try withLock {
            if let storeURL, storeType != NSInMemoryStoreType, storeURL.path != StoreLocations.inMemoryPath,
                let existing = stores.first(where: { $0.url?.standardizedFileURL == storeURL.standardizedFileURL })
            {
                // Apple reports 134081 with the underlying exception "Can't add the same store twice".
                throw CoreDataError.make(134081, "Can't add the same store twice: \(storeURL.path) is already added to this coordinator (\(existing.identifier ?? ""))",
                                         userInfo: ["NSUnderlyingException": "Can't add the same store twice", NSFilePathErrorKey: storeURL.path])
            }
            let store = storeClass.init(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
            do {
                if let snapshotStore = store as? SnapshotStore {
                    try snapshotStore.load(model: managedObjectModel)
                } else {
                    try store.loadMetadata()
                }
            } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSFileReadCorruptFileError {
                // A file the store cannot read that is a store of another type (an SQLite store added as a binary
                // store, or the reverse) is a store accessed as the wrong type.
                if let storeURL, storeURL.isFileURL, let found = try? Self.recognisedStoreType(at: storeURL), found != storeType {
                    throw NSPersistentStore.typeMismatch(nil, expected: storeType, path: storeURL.path, found: found, underlying: error)
                }
                throw error
            }
            // Every store's metadata must name the type it is added as (Apple's coordinator checks it for every store,
            // custom ones included; the built-in stores refuse a mismatch before they read or write anything else).
            if !NSPersistentStore.metadata(store.metadata, namesType: storeType, allowingMissing: storeType == NSSQLiteStoreType) {
                throw NSPersistentStore.typeMismatch(store.metadata, expected: storeType, path: storeURL?.path)
            }
            store.metadataNeedsWriting = false   // as loaded (a migration's carried metadata is set after this)
            store.attach(to: self)
            stores.append(store)
            store.didAdd(to: self)
            return store
        }
    }

    /// Adds a store, in the iOS 15+ spelling.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    /// ```
    @discardableResult
    open func addPersistentStore(type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// Removes a store from the coordinator.
    open func remove(_ store: NSPersistentStore) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store) is not added to this coordinator")
        }
        postStoresWillChange(added: [], removed: [store])
        try removeStoreWithoutNotifying(store)
        postStoresDidChange(added: [], removed: [store])
    }

    /// Detaches a store (the caller posts the notifications).
    func removeStoreWithoutNotifying(_ store: NSPersistentStore) throws {
        try withLock {
            guard let index = stores.firstIndex(where: { $0 === store }) else {
                throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store) is not added to this coordinator")
            }
            store.willRemove(from: self)
            stores.remove(at: index)
            store.detach()
            rowCache.removeAll()
        }
    }

    /// The store at `URL`, if it was added to this coordinator.
    open func persistentStore(for URL: URL) -> NSPersistentStore? {
        withLock { stores.first { $0.url?.standardizedFileURL == URL.standardizedFileURL } }
    }

    /// The metadata of a store of this coordinator.
    open func metadata(for store: NSPersistentStore) -> [String: Any] {
        store.metadata ?? [:]
    }

    /// Replaces the metadata of a store. It is written to the store's file by the next save of any context of this
    /// coordinator, also a save with no changes (to write metadata without adding the store, use the class method
    /// `setMetadata(_:forPersistentStoreOfType:at:options:)`).
    ///
    /// ```swift
    /// var metadata = coordinator.metadata(for: store)
    /// metadata["importVersion"] = 3
    /// coordinator.setMetadata(metadata, for: store)
    /// try context.save()
    /// ```
    open func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        store.metadata = metadata
    }

    // MARK: Object IDs

    /// The object ID for a URI from `NSManagedObjectID.uriRepresentation()`, if one of this coordinator's stores
    /// holds such an object's entity.
    ///
    /// For example:
    /// ```swift
    /// let id = coordinator.managedObjectID(forURIRepresentation: savedURI)
    /// ```
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata" else { return nil }
        let components = url.path.split(separator: "/", omittingEmptySubsequences: true).map { $0.removingPercentEncoding ?? String($0) }
        guard components.count == 2, let entity = managedObjectModel.entitiesByName[components[0]] else { return nil }
        let identifier = url.host ?? ""
        let keyText = components[1]
        guard identifier.isEmpty == false,
            let store = persistentStores.first(where: { $0.identifier == identifier }) as? SnapshotStore
        else { return nil }
        if keyText.hasPrefix("s"), let incremental = store as? NSIncrementalStore {
            return incremental.newObjectID(for: entity, referenceObject: String(keyText.dropFirst()))
        }
        if keyText.hasPrefix("s"), let atomic = store as? NSAtomicStore {
            return atomic.objectID(for: entity, withReferenceObject: String(keyText.dropFirst()))
        }
        guard keyText.hasPrefix("p"), let primaryKey = Int64(keyText.dropFirst()), primaryKey > 0 else { return nil }
        return store.objectID(for: entity, primaryKey: primaryKey)
    }

    /// The object ID for the string form of a URI representation.
    open func managedObjectID(for string: String) -> NSManagedObjectID? {
        URL(string: string).flatMap(managedObjectID(forURIRepresentation:))
    }

    // MARK: Requests

    /// Executes a request for a context: a fetch request returns its results (objects, IDs, dictionaries or a
    /// count, as its `resultType` says); a save-changes request saves the context's changes and returns an
    /// empty array.
    ///
    /// For example:
    /// ```swift
    /// let moods = try coordinator.execute(Mood.fetchRequest(), with: context) as? [Mood]
    /// ```
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        switch request {
        case let fetch as AnyFetchRequest:
            return try fetch.results(in: context)
        case is NSSaveChangesRequest:
            try context.save()
            return [Any]()
        case let batch where BatchRequestExecution.handles(batch):
            return try BatchRequestExecution.execute(batch, in: context)
        case let history as NSPersistentHistoryChangeRequest:
            return try history.execute(in: context)
        default:
            throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "Unsupported request type \(type(of: request))")
        }
    }

    // MARK: Locking and queues

    /// Runs `block` on the coordinator's queue and waits for it, returning its value or rethrowing its error.
    ///
    /// For example:
    /// ```swift
    /// let count = coordinator.performAndWait { coordinator.persistentStores.count }
    /// ```
    open func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try withLock(block)
    }

    /// Runs `block` on the coordinator's queue and waits for it: Apple's Objective-C form
    /// (`-performBlockAndWait:`), which code also uses as a function value of type `(() -> Void) -> Void`.
    ///
    /// For example:
    /// ```swift
    /// let run: (() -> Void) -> Void = coordinator.performAndWait
    /// run { print(coordinator.persistentStores.count) }
    /// ```
    open func performAndWait(_ block: () -> Void) {
        withLock(block)
    }

    /// Runs `block` asynchronously on the coordinator's queue.
    open func perform(_ block: @escaping () -> Void) {
        let work = UncheckedSendableBox(block)
        queue.async { self.withLock { work.value() } }
    }

    /// Runs `block` on the coordinator's queue and returns its result.
    open func perform<T>(_ block: @escaping () throws -> T) async rethrows -> T {
        try withLock(block)
    }

    /// Takes the coordinator's lock (prefer `performAndWait`).
    open func lock() { lockObject.lock() }
    /// Releases the coordinator's lock.
    open func unlock() { lockObject.unlock() }
    /// Takes the coordinator's lock if it is free.
    open func tryLock() -> Bool { lockObject.try() }
    /// Runs `body` holding the coordinator's lock.
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lockObject.lock()
        defer { lockObject.unlock() }
        return try body()
    }

    /// Runs `body` holding the lock, to read `store` — unless another thread removed the store (and closed its
    /// connection) since the caller chose it: then nil, as for a store the coordinator no longer has.
    func withLock<R>(readingIfAttached store: some NSPersistentStore, _ body: () throws -> R) rethrows -> R? {
        try withLock {
            guard store.persistentStoreCoordinator === self else { return nil }
            return try body()
        }
    }

    // MARK: Store registry

    private static let registry = Locked<[String: NSPersistentStore.Type]>(BuiltInStores.classes)

    /// Registers a store class under a type string, so `addPersistentStore(ofType:…)` can create it.
    /// Passing `nil` unregisters the type.
    ///
    /// For example:
    /// ```swift
    /// NSPersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: "JSON")
    /// ```
    open class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        registry.withLock { registry in
            if let storeClass {
                guard let persistentStoreClass = storeClass as? NSPersistentStore.Type else {
                    preconditionFailure("\(storeClass) is not a subclass of NSPersistentStore")
                }
                registry[storeType] = persistentStoreClass
            } else {
                registry[storeType] = nil
            }
        }
    }

    /// Registers a store class, in the iOS 15+ spelling.
    open class func registerStoreClass(_ storeClass: AnyClass?, type: NSPersistentStore.StoreType) {
        registerStoreClass(storeClass, forStoreType: type.rawValue)
    }

    /// The registered store types and their classes, as `NSValue`s holding the class's address (Apple's hold it as a
    /// pointer, `^v`, which swift-corelibs-foundation's `NSValue` cannot hold: here it is an unsigned 64-bit integer,
    /// `Q`; see DEVIATIONS.md).
    ///
    /// For example:
    /// ```swift
    /// NSPersistentStoreCoordinator.registeredStoreTypes.keys.sorted()   // ["Binary", "InMemory", "SQLite", …]
    /// ```
    open class var registeredStoreTypes: [String: NSValue] {
        registry.withLock { registry in
            registry.mapValues { storeClass in
                var address = UInt64(UInt(bitPattern: Unmanaged.passUnretained(storeClass as AnyObject).toOpaque()))
                return NSValue(bytes: &address, objCType: "Q")
            }
        }
    }

    static func storeClass(forType type: String) -> NSPersistentStore.Type? {
        registry.withLock { $0[type] }
    }

    // MARK: Routing (internal)

    /// The store that holds objects of `entity`: the first store whose configuration contains it.
    func store(for entity: NSEntityDescription) -> SnapshotStore? {
        withLock {
            for case let store as SnapshotStore in stores where configuration(of: store, holds: entity) { return store }
            return nil
        }
    }

    /// Whether a store's configuration holds objects of `entity` (it lists the entity or one of its ancestors).
    func configuration(of store: NSPersistentStore, holds entity: NSEntityDescription) -> Bool {
        let members = managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []
        return members.contains { $0 === entity || entity.isKindOf(entity: $0) }
    }

    /// The store of an object ID (temporary IDs have none yet).
    func store(for objectID: NSManagedObjectID) -> SnapshotStore? {
        if let store = objectID.persistentStore as? SnapshotStore, store.persistentStoreCoordinator === self { return store }
        if objectID.isTemporaryID { return nil }
        // An ID made by another coordinator on the same store file: this coordinator's store with that identifier.
        if let same = persistentStores.first(where: { $0.identifier == objectID.storeIdentifier }) as? SnapshotStore { return same }
        // An ID of a store this coordinator does not have (removed, or replaced by a migration) belongs to no store
        // here: another store's key with the same number is another object.
        return objectID.storeIdentifier.isEmpty ? store(for: objectID.entity) : nil
    }
}
