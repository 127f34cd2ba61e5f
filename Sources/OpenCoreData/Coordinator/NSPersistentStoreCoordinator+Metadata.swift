extension NSPersistentStoreCoordinator {
    /// The metadata of the store file at `url` (for the SQLite store: the `Z_METADATA` plist and `NSStoreUUID`),
    /// read without adding the store — to decide whether a model can open it.
    ///
    /// For example:
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { /* migrate */ }
    /// ```
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        guard let storeClass = storeClass(forType: storeType) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown persistent store type '\(storeType)'")
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store file at \(url.path)", userInfo: [NSFilePathErrorKey: url.path])
        }
        return try storeClass.metadataForPersistentStore(with: url)
    }

    /// The metadata of a store file, in the iOS 15+ spelling.
    public class func metadataForPersistentStore(type storeType: NSPersistentStore.StoreType, at storeURL: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: storeType.rawValue, at: storeURL, options: options)
    }

    /// Writes metadata into the store file at `url` without adding the store.
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws {
        guard let storeClass = storeClass(forType: storeType) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown persistent store type '\(storeType)'")
        }
        try storeClass.setMetadata(metadata, forPersistentStoreAt: url)
    }

    /// Writes metadata into a store file, in the iOS 15+ spelling.
    public class func setMetadata(_ metadata: [String: Any]?, type storeType: NSPersistentStore.StoreType, at storeURL: URL, options: [AnyHashable: Any]? = nil) throws {
        try setMetadata(metadata, forPersistentStoreOfType: storeType.rawValue, at: storeURL, options: options)
    }
}

