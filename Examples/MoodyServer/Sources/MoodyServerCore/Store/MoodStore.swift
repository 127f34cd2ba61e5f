import Logging
import OpenCoreData
import Synchronization

/// The server's Core Data stack over one SQLite store.
///
/// - Reads: every request gets a context of its own on a private queue (`newBackgroundContext()`), used through
///   `await context.perform { … }` so that no event-loop thread waits on the store.
/// - Writes: one long-lived private-queue writer context; its queue serializes every write of this process (each
///   write starts from `reset()`, so it never works on objects another process has changed since).
/// - The store records persistent history and posts `.NSPersistentStoreRemoteChange` for every write, this
///   process's and others' (the library notices other processes' writes by polling the file); ``LiveFeed`` merges
///   the history of other authors into the context its fetched results controller watches.
public final class MoodStore: Sendable {
    let container: NSPersistentContainer
    let writer: NSManagedObjectContext
    /// The `transactionAuthor` of this process's writes (unique per server instance, so that two servers on one
    /// file merge each other's transactions and not their own).
    let author: String
    let location: StoreLocation
    let logger: Logger

    private static let registration: Void = {
        ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
        NSManagedObjectModel.registerManagedObjectClasses([Mood.self, GeographicRegion.self, Country.self, Continent.self])
    }()

    /// The model, loaded once from this module's resources.
    private static let model: Result<NSManagedObjectModel, ConfigurationError> = {
        guard let url = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld"),
              let model = NSManagedObjectModel(contentsOf: url) else {
            return .failure(ConfigurationError("the Moody model is missing from the server's resources"))
        }
        return .success(model)
    }()

    /// Opens (or creates) the store; throws if the file cannot be opened as a Moody store.
    public init(location: StoreLocation, logger: Logger) throws {
        _ = Self.registration
        let model = try Self.model.get()
        let container = NSPersistentContainer(name: "Moody", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: location.fileURL)
        description.type = NSSQLiteStoreType
        description.shouldAddStoreAsynchronously = false
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        // Reads on up to three read-only connections while the writer saves (WAL mode, the default).
        description.setOption(4 as NSNumber, forKey: NSPersistentStoreConnectionPoolMaxSizeKey)
        container.persistentStoreDescriptions = [description]
        let failure = Mutex<(any Error)?>(nil)
        container.loadPersistentStores { _, error in
            if let error { failure.withLock { $0 = error } }
        }
        if let error = failure.withLock({ $0 }) {
            throw ConfigurationError("cannot open the store at \(location.fileURL.path): \((error as NSError).localizedDescription)")
        }
        self.container = container
        self.location = location
        self.logger = logger
        author = "MoodyServer.\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString.prefix(8))"
        writer = container.newBackgroundContext()
        writer.name = "writer"
        writer.transactionAuthor = author
        // Two servers on one file may create the same country at once: the uniqueness constraint
        // (numericISO3166Code) then keeps one row, and the save merges onto it instead of failing.
        writer.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    }

    /// Runs `body` on a new private-queue context of its own (a read).
    func read<T: Sendable>(_ body: @escaping (NSManagedObjectContext) throws -> T) async throws -> T {
        let context = container.newBackgroundContext()
        context.name = "read"
        return try await context.perform { try body(context) }
    }

    /// Runs `body` on the writer context's queue, after resetting it, saves what it changed, then runs
    /// `afterSave` (still on the writer's queue). Writes run one at a time, in the order they were asked for. A
    /// failed save is rolled back and thrown.
    func write<T: Sendable>(_ body: @escaping (NSManagedObjectContext) throws -> T, afterSave: @escaping (T) -> Void = { _ in }) async throws -> T {
        let writer = self.writer
        return try await writer.perform {
            writer.reset()
            defer { writer.reset() }
            do {
                let result = try body(writer)
                if writer.hasChanges { try writer.save() }
                afterSave(result)
                return result
            } catch {
                writer.rollback()
                throw error
            }
        }
    }

    /// The object ID a mood's `id` (its URI) names, or nil if it names no mood of this store.
    func moodID(fromURI text: String) -> NSManagedObjectID? {
        guard let url = URL(string: text), url.scheme == "x-coredata",
              let id = container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: url),
              !id.isTemporaryID, id.entity.name == "Mood" else { return nil }
        return id
    }
}
