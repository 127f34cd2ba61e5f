import OpenCoreData

/// Where a `CoreDataStack` keeps its data.
public enum StoreType: Sendable, Hashable {
    /// An SQLite file (Apple's layout).
    case sqlite
    /// Memory only; gone when the stack is.
    case inMemory
}

/// The seed's stack (after Marcus Zarra): a private-queue root context that writes to the store, and a main-queue
/// context, its child, for reads. Write contexts are children of the main context, so a write's changes flow write
/// context → main → root → store, in one direction.
///
/// When the model cannot be loaded or the store cannot be opened, the stack is still made (with an empty model or
/// no store), the error is kept in `setupErrors` and `DALService` reports it through `handleError(_:)`. The store
/// file is never deleted.
///
/// For example:
/// ```swift
/// let stack = CoreDataStack(storeType: .sqlite, modelURL: modelURL, storeURL: storeURL)
/// let dal = DALService(coreDataStack: stack)
/// ```
public final class CoreDataStack: @unchecked Sendable {  // immutable after init; each context is used on its own queue
    /// The main-queue context: the source of truth that reads run on.
    public let mainContext: NSManagedObjectContext
    /// The private-queue context that saves to the store.
    public let rootContext: NSManagedObjectContext
    /// The kind of store.
    public let storeType: StoreType
    /// The model file the stack was made from (nil when made from a model object).
    public let modelURL: URL?
    /// The SQLite file (nil in memory).
    public let storeURL: URL?
    /// The store, or nil when it failed to open.
    public let persistentStore: NSPersistentStore?
    /// The errors met while loading the model and opening the store, in order (empty when all went well).
    public let setupErrors: [NSError]
    /// Saves pending changes on SIGTERM/SIGINT, `saveNow()` and normal exit.
    public let appStateReactor: AppStateReactor
    /// Writes whose changes are not yet in the main context (the reactor waits for them before saving).
    let writesInFlight = DispatchGroup()

    /// The seed's store options: automatic lightweight migration.
    public static var autoMigratingOptions: [String: Any] {
        [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    }

    /// Makes a stack from a model file (`.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom`).
    ///
    /// For example:
    /// ```swift
    /// let stack = CoreDataStack(storeType: .sqlite, modelURL: Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!)
    /// ```
    /// - Parameters:
    ///   - storeType: SQLite or in-memory.
    ///   - modelURL: the model file.
    ///   - storeURL: the SQLite file; by default `<Documents>/<model name>.sqlite`, as the seed.
    ///   - options: the store options; by default automatic lightweight migration.
    ///   - appStateReactor: what saves the stack when the process is told to stop.
    public convenience init(storeType: StoreType, modelURL: URL, storeURL: URL? = nil,
                            options: [String: Any] = CoreDataStack.autoMigratingOptions,
                            appStateReactor: AppStateReactor = AppStateReactor()) {
        do {
            let model = try NSManagedObjectModel(validatingContentsOf: modelURL)
            self.init(storeType: storeType, model: model, modelURL: modelURL, storeURL: storeURL, options: options,
                      appStateReactor: appStateReactor, earlierErrors: [])
        } catch {
            self.init(storeType: storeType, model: NSManagedObjectModel(), modelURL: modelURL, storeURL: nil, options: options,
                      appStateReactor: appStateReactor, earlierErrors: [error as NSError])
        }
    }

    /// Makes a stack from a model object.
    ///
    /// For example:
    /// ```swift
    /// let stack = CoreDataStack(storeType: .inMemory, model: model)
    /// ```
    public convenience init(storeType: StoreType, model: NSManagedObjectModel, storeURL: URL? = nil,
                            options: [String: Any] = CoreDataStack.autoMigratingOptions,
                            appStateReactor: AppStateReactor = AppStateReactor()) {
        self.init(storeType: storeType, model: model, modelURL: nil, storeURL: storeURL, options: options,
                  appStateReactor: appStateReactor, earlierErrors: [])
    }

    /// A stack whose model could not be found: no store, and the error reported.
    init(missingModel error: NSError, storeType: StoreType, appStateReactor: AppStateReactor) {
        self.storeType = storeType
        modelURL = nil
        storeURL = nil
        rootContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        rootContext.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        mainContext.parent = rootContext
        persistentStore = nil
        setupErrors = [error]
        self.appStateReactor = appStateReactor
        appStateReactor.delegate = self
    }

    private init(storeType: StoreType, model: NSManagedObjectModel, modelURL: URL?, storeURL: URL?, options: [String: Any],
                 appStateReactor: AppStateReactor, earlierErrors: [NSError]) {
        self.storeType = storeType
        self.modelURL = modelURL
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        rootContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        rootContext.name = "Skopelos root"
        rootContext.persistentStoreCoordinator = coordinator
        mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        mainContext.name = "Skopelos main"
        mainContext.parent = rootContext
        var errors = earlierErrors
        var store: NSPersistentStore?
        let location: URL?
        if earlierErrors.isEmpty {
            switch storeType {
            case .inMemory:
                location = nil
                do {
                    store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
                } catch {
                    errors.append(error as NSError)
                }
            case .sqlite:
                let url = storeURL ?? Self.defaultStoreURL(modelName: modelURL?.deletingPathExtension().lastPathComponent ?? "Model")
                location = url
                do {
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
                } catch {
                    // Unlike the seed, never delete the file: the error is reported and the data kept.
                    errors.append(error as NSError)
                }
            }
        } else {
            location = storeURL
        }
        self.storeURL = location
        persistentStore = store
        setupErrors = errors
        self.appStateReactor = appStateReactor
        appStateReactor.delegate = self
    }

    /// The seed's store location: `<Documents>/<model name>.sqlite` (on Linux `~/Documents`, created when missing).
    public static func defaultStoreURL(modelName: String) -> URL {
        let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).last
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Documents")
        return documents.appendingPathComponent(modelName + ".sqlite")
    }

    // MARK: Saving

    /// Saves the main context, then the root context to the store, waiting for both; returns the errors met.
    ///
    /// For example:
    /// ```swift
    /// let errors = stack.saveSynchronously()
    /// ```
    /// - Parameter mainQueueTimeout: how long to wait for the main queue when called off it (nil: as long as it
    ///   takes). When it runs out, the main context's changes are left unsaved and the root context is saved.
    @discardableResult
    public func saveSynchronously(mainQueueTimeout: DispatchTimeInterval? = nil) -> [NSError] {
        var errors: [NSError] = []
        let main = mainContext
        if MainQueue.isCurrent || mainQueueTimeout == nil {
            if let error = Self.save(main) { errors.append(error) }
        } else if let mainQueueTimeout {
            let outcome = LockedBox<NSError?>(nil)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                outcome.set(Self.save(main))
                done.signal()
            }
            if done.wait(timeout: .now() + mainQueueTimeout) == .timedOut {
                errors.append(NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreSaveError, userInfo: [
                    NSLocalizedDescriptionKey: "The main queue did not run within the time allowed, so the main context's changes were not saved. Run the main queue (dispatchMain(), RunLoop.main.run() or an async main).",
                ]))
            } else if let error = outcome.get() {
                errors.append(error)
            }
        }
        if let error = Self.save(rootContext) { errors.append(error) }
        return errors
    }

    /// Saves the main context and then the root context on their queues without waiting; `completion` runs on the
    /// root context's queue with the first error, once every change saved into the main context before the call is
    /// in the store (saves run in order on each queue, so a later call's completion never overtakes an earlier one).
    ///
    /// For example:
    /// ```swift
    /// stack.save { error in print(error ?? "saved") }
    /// ```
    public func save(_ completion: @escaping @Sendable (NSError?) -> Void) {
        let (main, root) = (mainContext, rootContext)
        main.perform {
            let mainError = Self.save(main)
            root.perform {
                let rootError = Self.save(root)
                completion(mainError ?? rootError)
            }
        }
    }

    /// Saves `context` on its queue when it has changes; nil when all went well.
    static func save(_ context: NSManagedObjectContext) -> NSError? {
        context.performAndWait {
            guard context.hasChanges else { return nil }
            do {
                try context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
    }
}

extension CoreDataStack: AppStateReactorDelegate {
    /// Saves everything the stack holds: waits (a few seconds at most) for writes already under way, then saves the
    /// main and root contexts.
    public func didReceiveStateChange(_ appStateReactor: AppStateReactor) {
        _ = writesInFlight.wait(timeout: .now() + appStateReactor.timeout)
        let errors = saveSynchronously(mainQueueTimeout: appStateReactor.timeout)
        appStateReactor.record(errors)
    }
}
