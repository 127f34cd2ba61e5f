extension NSPersistentStoreCoordinator {
    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL` (for SQLite, in one
    /// transaction with SQLite's backup API, so the destination is never half-written, and with its external
    /// binary data files); the destination is created if missing. Used after `NSMigrationManager.migrateStore` to put the migrated store in place.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.replacePersistentStore(at: storeURL, destinationOptions: nil, withPersistentStoreFrom: migratedURL,
    ///                                        sourceOptions: nil, ofType: NSSQLiteStoreType)
    /// ```
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
                                       sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String) throws {
        guard storeType == NSSQLiteStoreType else {
            // Other stores are single files: an atomic file replacement.
            let data: Data
            do { data = try Data(contentsOf: sourceURL) } catch {
                throw CoreDataError.make(NSPersistentStoreOperationError, "Can't read the store at \(sourceURL.path)", userInfo: [NSUnderlyingErrorKey: error])
            }
            try data.write(to: destinationURL, options: .atomic)
            return
        }
        guard FileManager.default.fileExists(atPath: sourceURL.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store at \(sourceURL.path)", userInfo: [NSFilePathErrorKey: sourceURL.path])
        }
        do {
            let source = try SQLiteConnection(path: sourceURL.path, configuration: .init(mode: .readOnly))
            defer { source.close() }
            try FileManager.default.createDirectory(at: destinationURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            let destination = try SQLiteConnection(path: destinationURL.path, configuration: .init(mode: .readWriteCreate))
            defer { destination.close() }
            try destination.replaceContents(with: source)
            try ExternalBinaryStorage.copyFiles(fromStoreAt: sourceURL.path, toStoreAt: destinationURL.path)
        } catch let error as NSError where error.code != NSPersistentStoreOperationError {
            throw CoreDataError.make(NSPersistentStoreOperationError, "Can't replace the store at \(destinationURL.path): \(error.localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: destinationURL.path])
        }
    }

    /// Replaces a store with another, in the iOS 15+ spelling.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
                                       sourceOptions: [AnyHashable: Any]? = nil, type storeType: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
                                   sourceOptions: sourceOptions, ofType: storeType.rawValue)
    }

    /// Deletes the store at `url`: its file, SQLite companions and external-data folder. A store of this
    /// coordinator at that URL is removed first.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: scratchURL, ofType: NSSQLiteStoreType, options: nil)
    /// ```
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        if let store = persistentStore(for: url) { try remove(store) }
        guard url.path != SQLiteStore.inMemoryPath else { return }
        NSMigrationManager.removeStoreFiles(at: url)
        if FileManager.default.fileExists(atPath: url.path) {
            throw CoreDataError.make(NSPersistentStoreOperationError, "Can't delete the store at \(url.path)", userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// Deletes a store, in the iOS 15+ spelling.
    public func destroyPersistentStore(at url: URL, type storeType: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: storeType.rawValue, options: options)
    }
}
