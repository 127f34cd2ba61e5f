// Loading models: an Xcode model package shipped as a resource, a compiled model, or a store's own model.
import OpenCoreData

// snippet.package
/// The model in an `.xcdatamodeld` package: its current version, or a named one. In a package target that ships it
/// (`resources: [.copy("Resources/Moody.xcdatamodeld")]`), the URL is
/// `Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!`.
func loadModel(packageURL: URL) throws -> (current: NSManagedObjectModel, version3: NSManagedObjectModel) {
    let current = try NSManagedObjectModel(validatingContentsOf: packageURL)   // throws a descriptive NSError
    let version3 = try NSManagedObjectModel(validatingContentsOf: packageURL, versionName: "Moody 3")
    return (current, version3)
}

/// Apple's failable form: nil when the package is missing or damaged.
func loadModelIfPresent(packageURL: URL) -> NSManagedObjectModel? {
    NSManagedObjectModel(contentsOf: packageURL)
}
// snippet.end

// snippet.compiled
/// A compiled model (`coredata model compile Moody.xcdatamodeld Moody.momd`): its current version, from
/// `VersionInfo.plist`, and the checksum of every version.
func loadCompiledModel(momdURL: URL) throws -> (model: NSManagedObjectModel?, checksums: [String: String]) {
    let model = NSManagedObjectModel(contentsOf: momdURL)
    let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: momdURL)   // version name → checksum
    return (model, checksums)
}

/// The model a store carries in its model cache: a store opens without its source model.
func modelOfStore(at storeURL: URL) throws -> NSManagedObjectModel {
    try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: storeURL)
}
// snippet.end

// snippet.metadata
/// Whether a store was written with `model`, from its metadata alone.
func storeMatches(_ model: NSManagedObjectModel, storeURL: URL) throws -> Bool {
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL, options: nil)
    return model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
}
// snippet.end
