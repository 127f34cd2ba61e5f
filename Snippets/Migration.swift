// Migrating a store: automatic lightweight migration, explicit migration with a mapping model and a policy, and
// staged migration with a custom stage.
import OpenCoreData

// snippet.automatic
/// Opens a store written with an older version of the model, migrating it in place and reporting progress.
func openMigrating(storeURL: URL, model: NSManagedObjectModel) throws -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: [
        NSMigratePersistentStoresAutomaticallyOption: true,
        NSInferMappingModelAutomaticallyOption: true,
        OpenCoreDataMigrationProgressHandlerOption: { (progress: Float) in print("migrating: \(Int(progress * 100)) %") },
    ])
    return coordinator
}
// snippet.end

// snippet.deferred
/// Opens the store as soon as rows and relationships are migrated; builds indexes and drops old tables later.
func openDeferringCleanup(storeURL: URL, model: NSManagedObjectModel) throws -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: [
        NSMigratePersistentStoresAutomaticallyOption: true,
        NSInferMappingModelAutomaticallyOption: true,
        NSPersistentStoreDeferredLightweightMigrationOptionKey: true,
    ])
    return coordinator
}

/// Later, when the app is idle: the deferred work, all at once (`finishDeferredLightweightMigrationTask()` does one
/// index or table at a time).
func finishCleanup(of coordinator: NSPersistentStoreCoordinator) throws {
    try coordinator.finishDeferredLightweightMigration()
}
// snippet.end

// snippet.explicit
/// The mapping's custom policy. Linux cannot find classes by name: register it under the name the mapping stores.
final class Country5ToCountry6Policy: NSEntityMigrationPolicy {
    override func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
                                      manager: NSMigrationManager) throws {
        try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
        // … relate the new Continent objects
    }

    func continentCode(_ isoContinent: Any?) -> Any? { (isoContinent as? NSNumber).map { $0.int16Value } }
}

func registerMigrationCode() {
    NSEntityMigrationPolicy.register(Country5ToCountry6Policy.self, forClassName: "Moody.Country5ToCountry6Policy")
    // A value expression FUNCTION($entityPolicy, "continentCode:", $source.isoContinent) calls this.
    NSExpression.registerFunction("continentCode:", on: Country5ToCountry6Policy.self) { policy, arguments in
        policy.continentCode(arguments.first ?? nil)
    }
}

/// Migrates object by object with a mapping model (`.cdm` or `.xcmappingmodel`), then copies the result over the
/// old store in one transaction.
func migrate(storeURL: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel,
             mappingURL: URL, coordinator: NSPersistentStoreCoordinator) throws {
    guard let mapping = NSMappingModel(contentsOf: mappingURL)
        ?? NSMappingModel(from: nil, forSourceModel: source, destinationModel: destination) else { return }
    let newStoreURL = storeURL.deletingLastPathComponent().appendingPathComponent("Migrated.sqlite")
    let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
    try manager.migrateStore(from: storeURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                             toDestinationURL: newStoreURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)
    try coordinator.replacePersistentStore(at: storeURL, destinationOptions: nil, withPersistentStoreFrom: newStoreURL,
                                           sourceOptions: nil, ofType: NSSQLiteStoreType)
}
// snippet.end

// snippet.staged
/// Version 1 → 2 lightweight, then 2 → 3 with code that fills in a new attribute.
func stagedMigration(v1: NSManagedObjectModel, v2: NSManagedObjectModel, v3: NSManagedObjectModel) -> NSStagedMigrationManager {
    let lightweight = NSLightweightMigrationStage([v1.versionChecksum])
    let custom = NSCustomMigrationStage(
        migratingFrom: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
        to: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
    custom.didMigrateHandler = { manager, _ in
        guard let context = manager.container?.newBackgroundContext() else { return }
        try context.performAndWait {
            let moods = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Mood"))
            for mood in moods where mood.value(forKey: "summary") == nil {
                mood.setValue("rated \(mood.value(forKey: "rating") ?? 0)", forKey: "summary")
            }
            try context.save()
        }
    }
    return NSStagedMigrationManager([lightweight, custom])
}

/// The staged migration runs when the store is added with it.
func openStaged(storeURL: URL, v3: NSManagedObjectModel, manager: NSStagedMigrationManager) throws -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v3)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL,
                                       options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    return coordinator
}
// snippet.end
