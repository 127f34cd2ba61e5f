// NSPersistentContainer: the whole stack from a model, with its store descriptions and background tasks.
import OpenCoreData

final class Mood: NSManagedObject {
    @Managed var rating: Int16
}

// snippet.load
/// A container for the model package a target ships as a resource. A library cannot see its caller's
/// `Bundle.module`, so the portable form finds the model there and passes it in:
/// `modelURL = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!`.
func makeContainer(modelURL: URL) -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Moody", managedObjectModel: NSManagedObjectModel(contentsOf: modelURL)!)
    container.loadPersistentStores { description, error in
        if let error { fatalError("Cannot open \(description.url?.path ?? "-"): \(error)") }
    }
    return container
}

func addMood(to container: NSPersistentContainer) {
    container.performBackgroundTask { context in           // a new private-queue context per task
        Mood(context: context).rating = 3
        try? context.save()
    }
}

func countMoods(in container: NSPersistentContainer) async throws -> Int {
    try await container.performBackgroundTask { context in   // in async code: awaited, returning the result
        try context.count(for: NSFetchRequest<Mood>(entityName: "Mood"))
    }
}
// snippet.end

// snippet.descriptions
/// Stores chosen before loading: a file with options, or an in-memory store for tests.
func configureStores(of container: NSPersistentContainer, storeURL: URL, forTests: Bool) {
    if forTests {
        let memory = NSPersistentStoreDescription()
        memory.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [memory]
        return
    }
    let description = NSPersistentStoreDescription(url: storeURL)
    description.timeout = 10                                     // seconds to wait for a lock held by another writer
    description.setValue("FULL" as NSString, forPragmaNamed: "synchronous")
    description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    description.shouldAddStoreAsynchronously = true              // loadPersistentStores returns at once
    description.shouldMigrateStoreAutomatically = true           // the default
    container.persistentStoreDescriptions = [description]
}

/// A container whose stores live in a directory of your choosing unless a description names another URL.
final class ServerContainer: NSPersistentContainer, @unchecked Sendable {   // adds no state
    override class func defaultDirectoryURL() -> URL { URL(fileURLWithPath: "/var/lib/moody") }
}
// snippet.end
