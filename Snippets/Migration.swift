// Migrating a store: automatic lightweight migration, and staged migration with a custom stage.
import OpenCoreData

/// Opens a store written with an older version of the model, migrating it in place.
func openMigrating(storeURL: URL, model: NSManagedObjectModel) throws -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: [
        NSMigratePersistentStoresAutomaticallyOption: true,
        NSInferMappingModelAutomaticallyOption: true,
    ])
    return coordinator
}

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
