/// A container that sets up the Core Data stack — model, coordinator, stores and contexts — in a few lines, with
/// Apple's API.
///
/// The portable form loads the model from your target's resources (`Bundle.module`, which a library cannot see) and
/// passes it in:
/// ```swift
/// // Package.swift: .executableTarget(name: "App", resources: [.copy("Resources/Moody.xcdatamodeld")])
/// let modelURL = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!
/// let container = NSPersistentContainer(name: "Moody", managedObjectModel: NSManagedObjectModel(contentsOf: modelURL)!)
/// container.loadPersistentStores { description, error in
///     if let error { fatalError("Cannot open \(description): \(error)") }
/// }
/// try container.viewContext.performAndWait {
///     let mood = Mood(context: container.viewContext)
///     mood.rating = 4
///     try container.viewContext.save()
/// }
/// ```
///
/// `NSPersistentContainer(name: "Moody")` finds `Moody.xcdatamodeld` itself when it is in `Bundle.main` or in a
/// SwiftPM resource bundle beside the executable. The store is `defaultDirectoryURL()/Moody.sqlite` unless
/// `persistentStoreDescriptions` says otherwise.
///
/// `viewContext` is a main-queue context. A synchronous command-line program uses it with `performAndWait` from the
/// main thread (which runs the block at once); `perform` blocks and automatic merges run when the program services
/// the main queue — `dispatchMain()`, `RunLoop.main.run()`, or an `async` main while it awaits — and there
/// `await viewContext.perform { … }` is the form to use (README, "Persistent containers").
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: name, coordinator and model are immutable; the store descriptions, the lazily created
    // view context and the model-lookup error are read and written under `lock`.

    private let lock = NSLock()
    private let _name: String
    private let coordinator: NSPersistentStoreCoordinator
    private var _persistentStoreDescriptions: [NSPersistentStoreDescription]?
    private var _viewContext: NSManagedObjectContext?
    /// Set by `init(name:)` when no model was found: every store load reports it.
    private var modelLoadError: NSError?

    // MARK: Creating a container

    /// Creates a container whose model is the one named `name`: the first `<name>.xcdatamodeld` (or
    /// `.xcdatamodel`, `.momd`, `.mom`) in `Bundle.main` or in a SwiftPM resource bundle beside the executable or
    /// test bundle. The store is named after `name` too.
    ///
    /// When no model is found, this logs `Failed to load model named <name>` as Apple does (whose initializer then
    /// returns an unusable nil object); the container gets an empty model and `loadPersistentStores` reports an
    /// `NSCoreDataError` (134060) for every description, saying where it looked. Prefer
    /// `init(name:managedObjectModel:)` with a model loaded from `Bundle.module`, which works everywhere.
    ///
    /// For example:
    /// ```swift
    /// let container = NSPersistentContainer(name: "Moody")   // finds Moody.xcdatamodeld
    /// ```
    public convenience init(name: String) {
        switch ContainerModelLookup.model(named: name) {
        case .success(let model):
            self.init(name: name, managedObjectModel: model)
        case .failure(let error):
            self.init(name: name, managedObjectModel: NSManagedObjectModel())
            lock.withLock { modelLoadError = error }
        }
    }

    /// Creates a container with `model`; `name` names the store (`<name>.sqlite` in `defaultDirectoryURL()`).
    ///
    /// This is the portable way to make a container: load the model from your target's resources with
    /// `Bundle.module` and pass it in.
    /// ```swift
    /// let url = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!
    /// let container = NSPersistentContainer(name: "Moody", managedObjectModel: NSManagedObjectModel(contentsOf: url)!)
    /// ```
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        if name.isEmpty {
            ContainerModelLookup.logger.error("CoreData: fault: [NSPersistentContainer initWithName:managedObjectModel:] called with the empty string as its container name")
        } else if name != ((name as NSString).standardizingPath as NSString).lastPathComponent {
            ContainerModelLookup.logger.error("CoreData: fault: [NSPersistentContainer initWithName:managedObjectModel:] called with invalid container name '\(name)'")
        }
        _name = name
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        super.init()
    }

    /// The directory where stores go by default. On Linux (and other XDG systems): `$XDG_DATA_HOME` — or
    /// `~/.local/share` when it is unset or not an absolute path — plus a folder named after the application
    /// (`Bundle.main.bundleIdentifier`, else the process name). Elsewhere: the user's Application Support
    /// directory plus that folder. Apple's is the Application Support directory (on iOS and sandboxed macOS apps a
    /// per-app folder). The directory is created when a store is first added there.
    ///
    /// Override it in a subclass to move every default store:
    /// ```swift
    /// final class AppContainer: NSPersistentContainer, @unchecked Sendable {   // Swift 6 restates it, as with Apple's
    ///     override class func defaultDirectoryURL() -> URL { URL(fileURLWithPath: "/var/lib/moody") }
    /// }
    /// ```
    open class func defaultDirectoryURL() -> URL {
        #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = URL(fileURLWithPath: dataHome, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        #else
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
        #endif
        let application = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        return base.appendingPathComponent(application.isEmpty ? "OpenCoreData" : application, isDirectory: true)
    }

    // MARK: The stack

    /// The container's name: it names the default store (and, with `init(name:)`, the model).
    ///
    /// For example:
    /// ```swift
    /// print(container.name)   // "Moody"
    /// ```
    open var name: String { _name }

    /// The model of the container's stores.
    ///
    /// For example:
    /// ```swift
    /// let entityNames = container.managedObjectModel.entities.compactMap(\.name)
    /// ```
    open var managedObjectModel: NSManagedObjectModel { coordinator.managedObjectModel }

    /// The coordinator the container's stores are added to.
    ///
    /// For example:
    /// ```swift
    /// let stores = container.persistentStoreCoordinator.persistentStores
    /// ```
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator { coordinator }

    /// The stores `loadPersistentStores` adds. By default one SQLite store at `defaultDirectoryURL()/<name>.sqlite`;
    /// set it before loading to choose others.
    ///
    /// For example:
    /// ```swift
    /// let description = NSPersistentStoreDescription()
    /// description.type = NSInMemoryStoreType
    /// container.persistentStoreDescriptions = [description]
    /// ```
    open var persistentStoreDescriptions: [NSPersistentStoreDescription] {
        get {
            if let descriptions = lock.withLock({ _persistentStoreDescriptions }) { return descriptions }
            let url = Self.defaultDirectoryURL().appendingPathComponent(name + ".sqlite", isDirectory: false)
            let defaults = [NSPersistentStoreDescription(url: url)]
            return lock.withLock {
                if let descriptions = _persistentStoreDescriptions { return descriptions }
                _persistentStoreDescriptions = defaults
                return defaults
            }
        }
        set { lock.withLock { _persistentStoreDescriptions = newValue } }
    }

    /// Adds a store for every description in `persistentStoreDescriptions`, calling `block` once per description
    /// with a copy of the description and the error, if the store could not be added (for example
    /// `NSPersistentStoreIncompatibleVersionHashError`, 134100, for a store written with another model version).
    ///
    /// Stores are added, and `block` called, on the calling thread before this method returns — except those whose
    /// description has `shouldAddStoreAsynchronously` set, which are added afterwards on a background queue, where
    /// `block` is called. With no descriptions, the program stops (Apple raises `NSInvalidArgumentException`).
    ///
    /// For example:
    /// ```swift
    /// container.loadPersistentStores { description, error in
    ///     if let error = error as NSError? {
    ///         fatalError("Cannot open \(description.url?.path ?? "-"): \(error), \(error.userInfo)")
    ///     }
    /// }
    /// ```
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) {
        let descriptions = persistentStoreDescriptions.map { $0.copy() as! NSPersistentStoreDescription }
        guard !descriptions.isEmpty else {
            preconditionFailure("-[NSPersistentContainer loadPersistentStoresWithCompletionHandler:] called on an instance with no store descriptions")
        }
        // As Apple's: the synchronous descriptions first, in order, then the asynchronous ones.
        for description in descriptions where !description.shouldAddStoreAsynchronously {
            addStore(description, completionHandler: block)
        }
        for description in descriptions where description.shouldAddStoreAsynchronously {
            addStore(description, completionHandler: block)
        }
    }

    private func addStore(_ description: NSPersistentStoreDescription, completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) {
        guard let error = lock.withLock({ modelLoadError }) else {
            coordinator.addPersistentStore(with: description, completionHandler: block)
            return
        }
        if description.shouldAddStoreAsynchronously {
            let work = UncheckedSendableBox(block)
            DispatchQueue.global(qos: .userInitiated).async { work.value(description, error) }
        } else {
            block(description, error)
        }
    }

    // MARK: Contexts

    /// The main-queue context connected to the coordinator, created on first use. It does not merge other
    /// contexts' saves unless you set `automaticallyMergesChangesFromParent` (false by default, as Apple's).
    ///
    /// From the main thread of a synchronous program, use it directly or with `performAndWait` (which runs at once);
    /// from other threads, with `perform`/`performAndWait`, which run on the main queue — so the program must service
    /// the main queue (`dispatchMain()`, `RunLoop.main.run()`, an `async` main that awaits) and must not block it
    /// waiting for that work. In an `async` main, use `await perform`.
    /// ```swift
    /// let viewContext = container.viewContext
    /// viewContext.automaticallyMergesChangesFromParent = true
    /// let moods = try await viewContext.perform {
    ///     try viewContext.fetch(NSFetchRequest<Mood>(entityName: "Mood"))
    /// }
    /// ```
    open var viewContext: NSManagedObjectContext {
        lock.withLock {
            if let context = _viewContext { return context }
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            _viewContext = context
            return context
        }
    }

    /// A new private-queue context connected to the coordinator (to the view context's parent, if you gave it one).
    /// Each call makes a new context; use it inside its `perform`/`performAndWait`.
    ///
    /// For example:
    /// ```swift
    /// let importer = container.newBackgroundContext()
    /// try importer.performAndWait {
    ///     for rating in 0..<5 { Mood(context: importer).rating = Int16(rating) }
    ///     try importer.save()
    /// }
    /// ```
    open func newBackgroundContext() -> NSManagedObjectContext {
        if coordinator.persistentStores.isEmpty {
            ContainerModelLookup.logger.warning("CoreData: warning:  Background context created for persistent container \(name) with no stores loaded")
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        if let parent = lock.withLock({ _viewContext?.parent }) {
            context.parent = parent
        } else {
            context.persistentStoreCoordinator = coordinator
        }
        return context
    }

    /// Runs `block` on a new private-queue context (see `newBackgroundContext()`), asynchronously on its queue.
    ///
    /// For example:
    /// ```swift
    /// container.performBackgroundTask { context in
    ///     Mood(context: context).rating = 3
    ///     try? context.save()
    /// }
    /// ```
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new private-queue context and returns its result (or throws its error).
    ///
    /// Apple declares it `rethrows`; this form throws the closure's own error type, which callers write the same
    /// way (no `try` for a closure that does not throw).
    ///
    /// For example:
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: NSFetchRequest<Mood>(entityName: "Mood"))
    /// }
    /// ```
    public func performBackgroundTask<T, E: Error>(_ block: @escaping (NSManagedObjectContext) throws(E) -> T) async throws(E) -> T {
        let context = newBackgroundContext()
        return try await context.perform { () throws(E) -> T in try block(context) }
    }
}
