@_spi(OpenSwiftData) import OpenCoreDataSupport

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

    /// The metadata of the store file at `url`; with a nil type the type is recognised from the file (an SQLite or
    /// a binary store). Apple's older spelling.
    ///
    /// For example:
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
    /// metadata[NSStoreTypeKey]   // "SQLite"
    /// ```
    public class func metadataForPersistentStore(ofType storeType: String?, at url: URL) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: storeType ?? recognisedStoreType(at: url), at: url, options: nil)
    }

    /// Writes metadata into the store file at `url`; with a nil type the type is recognised from the file. Apple's
    /// older spelling.
    ///
    /// For example:
    /// ```swift
    /// try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: nil, at: url)
    /// ```
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String?, at url: URL) throws {
        try setMetadata(metadata, forPersistentStoreOfType: storeType ?? recognisedStoreType(at: url), at: url, options: nil)
    }

    /// The type of the store file at `url`, from its first bytes (SQLite's header or the binary store's signature).
    static func recognisedStoreType(at url: URL) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store file at \(url.path)", userInfo: [NSFilePathErrorKey: url.path])
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        if head == Data("SQLite format 3\u{0}".utf8) { return NSSQLiteStoreType }
        if head.prefix(BinaryStoreFile.magic.count) == BinaryStoreFile.magic { return NSBinaryStoreType }
        throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "The file at \(url.path) is not a store of a type that can be recognised; pass its type",
                                 userInfo: [NSFilePathErrorKey: url.path])
    }
}

extension NSPersistentStoreCoordinator {
    /// Notes that a store's metadata waits to be written (the store's `metadata` setter calls it).
    func noteMetadataNeedsWriting() {
        metadataMayNeedWriting.withLock { $0 = true }
    }

    /// Writes the metadata set on this coordinator's stores since they last wrote it: part of every save of a context
    /// of this coordinator (stores that save objects write it in the same transaction), even one with no changes.
    /// Read-only stores keep it in memory.
    func writePendingMetadata(for context: NSManagedObjectContext) throws {
        guard metadataMayNeedWriting.withLock({ pending in
            defer { pending = false }
            return pending
        }) else { return }
        do {
            try withLock {
                for case let store as SnapshotStore in persistentStores where store.metadataNeedsWriting && !store.isReadOnly {
                    try store.saveMetadata()
                }
            }
        } catch {
            noteMetadataNeedsWriting()   // try again with the next save
            throw error
        }
    }
}
