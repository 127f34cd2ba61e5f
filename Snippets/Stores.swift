// Adding stores: SQLite with options, in-memory for tests, your own store type, several stores per coordinator,
// owner-only files, and replacing or destroying a store.
import OpenCoreData

// snippet.basic
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
// snippet.end

// snippet.custom
/// A store type of your own (an `NSIncrementalStore` or `NSAtomicStore` subclass), registered under a name and
/// added like any other.
func addJSONStore(_ storeClass: NSPersistentStore.Type, to coordinator: NSPersistentStoreCoordinator,
                  directoryURL: URL) throws -> NSPersistentStore {
    NSPersistentStoreCoordinator.registerStoreClass(storeClass, forStoreType: "JSON")
    return try coordinator.addPersistentStore(ofType: "JSON", configurationName: nil, at: directoryURL, options: nil)
}
// snippet.end

// snippet.configurations
/// One model, two configurations ("Library" and "Archive"), two stores: entities are routed by configuration.
func archive(_ tag: NSManagedObject, coordinator: NSPersistentStoreCoordinator, libraryURL: URL, archiveURL: URL,
             binaryURL: URL) throws -> [NSManagedObject] {
    try coordinator.addPersistentStore(type: .sqlite, configuration: "Library", at: libraryURL)
    let archive = try coordinator.addPersistentStore(type: .sqlite, configuration: "Archive", at: archiveURL)
    let context = tag.managedObjectContext!
    context.assign(tag, to: archive)                       // an entity in both configurations: choose the store
    let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
    request.affectedStores = [archive]                     // fetch from one store only
    let archived = try context.fetch(request)
    _ = try coordinator.migratePersistentStore(archive, to: binaryURL, type: .binary)   // a copy in another format
    return archived
}
// snippet.end

// snippet.protection
/// Owner-only files (0600) for the store, its -wal/-shm and its external-data files.
func addPrivateStore(to coordinator: NSPersistentStoreCoordinator, at url: URL) throws {
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                       options: [NSPersistentStoreFileProtectionKey: FileProtectionType.complete])
}
// snippet.end

// snippet.replace
/// Restores a backup over a store in place, then empties the backup.
func restore(backupURL: URL, over storeURL: URL, coordinator: NSPersistentStoreCoordinator) throws {
    // The store open at storeURL, if any, is removed from the coordinator first: add it again afterwards.
    try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: backupURL, type: .sqlite)
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    // An SQLite store is emptied in place: its file (and -wal/-shm) stay until you delete them.
    try coordinator.destroyPersistentStore(at: backupURL, type: .sqlite)
    for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: backupURL.path + suffix)
    }
}
// snippet.end
