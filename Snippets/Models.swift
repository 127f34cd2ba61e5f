// Loading models: an Xcode model package shipped as a resource, a compiled model, or a store's own model.
import OpenCoreData

/// The model in an `.xcdatamodeld` package (a target resource: `resources: [.copy("Moody.xcdatamodeld")]`), its
/// current version or a named one.
func loadModel(packageURL: URL) throws -> (current: NSManagedObjectModel, version3: NSManagedObjectModel) {
    let current = try NSManagedObjectModel(validatingContentsOf: packageURL)   // throws a descriptive NSError
    let version3 = try NSManagedObjectModel(validatingContentsOf: packageURL, versionName: "Moody 3")
    return (current, version3)
}

/// The model a store carries in its model cache: a store opens without its source model.
func modelOfStore(at storeURL: URL) throws -> NSManagedObjectModel {
    try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: storeURL)
}

/// Whether a store was written with `model`, from its metadata alone.
func storeMatches(_ model: NSManagedObjectModel, storeURL: URL) throws -> Bool {
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL, options: nil)
    return model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
}
