import OpenCoreData
import Skopelos

// The test model's classes (Resources/DALModel.xcdatamodeld), written as a user of the library writes them.

final class User: NSManagedObject {
    @Managed var firstname: String?
    @Managed var lastname: String?
    @Managed var age: Int32
    @Managed var pets: Set<Pet>
}

final class Pet: NSManagedObject {
    @Managed var name: String
    @Managed var owner: User?
}

final class Counter: NSManagedObject {
    @Managed var name: String
    @Managed var value: Int64
}

final class WriteRecord: NSManagedObject {
    @Managed var chain: Int32
    @Managed var index: Int32
}

/// A class no entity of the model uses.
final class Stranger: NSManagedObject {}

/// A `Skopelos` that records every error passed to `handleError(_:)`.
final class RecordingSkopelos: Skopelos, @unchecked Sendable {  // `log` is locked
    let log = ErrorLog()

    override func handleError(_ error: NSError) {
        log.append(error)
    }
}

/// Errors recorded from any thread.
final class ErrorLog: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var errors: [NSError] = []

    func append(_ error: NSError) { lock.withLock { errors.append(error) } }
    var all: [NSError] { lock.withLock { errors } }
}

enum DALTest {
    /// Registers the model's classes once (they live in the test module, not the main executable).
    static let registered: Void = {
        NSManagedObjectModel.registerManagedObjectClasses([User.self, Pet.self, Counter.self, WriteRecord.self])
    }()

    static var modelURL: URL {
        _ = registered
        return Bundle.module.url(forResource: "DALModel", withExtension: "xcdatamodeld")!
    }

    /// A reactor that watches no signal and does not save at exit (tests must not change the runner's signals).
    static func quietReactor() -> AppStateReactor { AppStateReactor(signals: [], savesAtExit: false) }

    /// A fresh store path in a new temporary directory.
    static func newStoreURL(_ name: String = "DAL.sqlite") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("skopelos-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name)
    }

    /// A recording service on a new SQLite store.
    static func service(at url: URL? = nil, allowsConcurrentWritings: Bool = false,
                        completionQueue: DispatchQueue = .main) throws -> RecordingSkopelos {
        RecordingSkopelos(sqliteStack: modelURL, storeURL: try url ?? newStoreURL(), allowsConcurrentWritings: allowsConcurrentWritings,
                          completionQueue: completionQueue, appStateReactor: quietReactor())
    }

    /// Opens the store file on a new coordinator (independent of any stack) and runs `body` on a context.
    static func inStore<T>(_ url: URL, _ body: (NSManagedObjectContext) throws -> T) throws -> T {
        let model = try NSManagedObjectModel(validatingContentsOf: modelURL)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try body(context) }
    }

    /// The number of rows of `entity` in the store file.
    static func count(_ entity: String, in url: URL, _ predicate: NSPredicate? = nil) throws -> Int {
        try inStore(url) { context in
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.predicate = predicate
            return try context.count(for: request)
        }
    }

    /// Waits for `condition` on a polling loop (for completions delivered on another queue).
    static func waitUntil(timeout: Duration = .seconds(10), _ condition: @Sendable () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}

/// A flag or value set from a completion.
final class Box<Value: Sendable>: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// Whether the current code runs on the main queue.
enum MainQueueProbe {
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    static var isCurrent: Bool { Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true }
}
