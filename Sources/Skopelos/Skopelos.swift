import OpenCoreData

/// The data access layer under the seed's name: a `DALService` with initializers that make its stack. Subclass it
/// to override `handleError(_:)` and to keep a shared instance.
///
/// For example:
/// ```swift
/// final class SkopelosClient: Skopelos, @unchecked Sendable {
///     static let sharedInstance = SkopelosClient(sqliteStack: "DataModel", bundle: .module)
///     override func handleError(_ error: NSError) { print(error.localizedDescription) }
/// }
/// SkopelosClient.sharedInstance.writeSync { context in User.SK_create(context).firstname = "John" }
/// ```
open class Skopelos: DALService, @unchecked Sendable {  // adds no state to DALService
    /// A stack on an SQLite store for the model file named `dataModelFileName` in `bundle`'s resources (`.momd`,
    /// `.mom`, `.xcdatamodeld` or `.xcdatamodel`; see `ModelLocator` for where it looks on Linux).
    ///
    /// For example:
    /// ```swift
    /// let skopelos = Skopelos(sqliteStack: "Moody", bundle: .module, storeURL: URL(fileURLWithPath: "/var/lib/moody/Moody.sqlite"))
    /// ```
    /// - Parameters:
    ///   - dataModelFileName: the model file's name, without its extension.
    ///   - bundle: the bundle whose resources hold the model file.
    ///   - storeURL: the SQLite file; by default `<Documents>/<name>.sqlite`, as the seed.
    ///   - allowsConcurrentWritings: whether writes may run at the same time, each on its own context.
    ///   - completionQueue: where the asynchronous calls' completion blocks run.
    ///   - appStateReactor: what saves the stack when the process is told to stop.
    public convenience init(sqliteStack dataModelFileName: String, bundle: Bundle = .main, storeURL: URL? = nil,
                            allowsConcurrentWritings: Bool = false, completionQueue: DispatchQueue = .main,
                            appStateReactor: AppStateReactor = AppStateReactor()) {
        self.init(coreDataStack: Self.stack(.sqlite, dataModelFileName, bundle, storeURL, appStateReactor),
                  allowsConcurrentWritings: allowsConcurrentWritings, completionQueue: completionQueue)
    }

    /// A stack on an in-memory store for the model file named `dataModelFileName` in `bundle`'s resources.
    ///
    /// For example:
    /// ```swift
    /// let skopelos = Skopelos(inMemoryStack: "Moody", bundle: .module)
    /// ```
    public convenience init(inMemoryStack dataModelFileName: String, bundle: Bundle = .main,
                            allowsConcurrentWritings: Bool = false, completionQueue: DispatchQueue = .main,
                            appStateReactor: AppStateReactor = AppStateReactor()) {
        self.init(coreDataStack: Self.stack(.inMemory, dataModelFileName, bundle, nil, appStateReactor),
                  allowsConcurrentWritings: allowsConcurrentWritings, completionQueue: completionQueue)
    }

    /// A stack on an SQLite store for the model at `modelURL` (the later library's form).
    ///
    /// For example:
    /// ```swift
    /// let skopelos = Skopelos(sqliteStack: Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!,
    ///                         allowsConcurrentWritings: true)
    /// ```
    public convenience init(sqliteStack modelURL: URL, storeURL: URL? = nil, allowsConcurrentWritings: Bool = false,
                            completionQueue: DispatchQueue = .main, appStateReactor: AppStateReactor = AppStateReactor()) {
        self.init(coreDataStack: CoreDataStack(storeType: .sqlite, modelURL: modelURL, storeURL: storeURL, appStateReactor: appStateReactor),
                  allowsConcurrentWritings: allowsConcurrentWritings, completionQueue: completionQueue)
    }

    /// A stack on an in-memory store for the model at `modelURL` (the later library's form).
    ///
    /// For example:
    /// ```swift
    /// let skopelos = Skopelos(inMemoryStack: modelURL)
    /// ```
    public convenience init(inMemoryStack modelURL: URL, allowsConcurrentWritings: Bool = false,
                            completionQueue: DispatchQueue = .main, appStateReactor: AppStateReactor = AppStateReactor()) {
        self.init(coreDataStack: CoreDataStack(storeType: .inMemory, modelURL: modelURL, appStateReactor: appStateReactor),
                  allowsConcurrentWritings: allowsConcurrentWritings, completionQueue: completionQueue)
    }

    /// The stack for a model found by name; a stack without a model or store, whose error is reported, when it is
    /// not found.
    private static func stack(_ storeType: StoreType, _ name: String, _ bundle: Bundle, _ storeURL: URL?,
                              _ reactor: AppStateReactor) -> CoreDataStack {
        guard let modelURL = ModelLocator.url(forModelNamed: name, in: bundle) else {
            return CoreDataStack(missingModel: ModelLocator.missingModelError(name, bundle: bundle), storeType: storeType, appStateReactor: reactor)
        }
        return CoreDataStack(storeType: storeType, modelURL: modelURL, storeURL: storeURL, appStateReactor: reactor)
    }
}
