// Adding stores: SQLite with options, in-memory for tests, and a second store for another configuration.
import OpenCoreData

func openStores(model: NSManagedObjectModel, directory: URL) throws -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)

    // Apple's SQLite format, with persistent history and remote-change notifications.
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
                                       at: directory.appendingPathComponent("Moody.sqlite"), options: [
        NSPersistentHistoryTrackingKey: true,
        NSPersistentStoreRemoteChangeNotificationPostOptionKey: true,
        NSPersistentStoreConnectionPoolMaxSizeKey: 4,          // reads continue while a save writes
        NSSQLitePragmasOption: ["synchronous": "FULL"],
    ])
    return coordinator
}

/// An in-memory stack for a test.
func inMemoryContext(model: NSManagedObjectModel) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}
