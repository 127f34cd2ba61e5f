extension NSPersistentStoreCoordinator {
    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`; the destination is created if
    /// missing ("replace emptiness to make a copy"). A store of this coordinator at `destinationURL` is removed from it
    /// first, as Apple's coordinator does: add it again to use the new contents. The source is left as it was.
    ///
    /// SQLite stores are replaced in place, through SQLite (one transaction with the backup API): the destination's
    /// file, `-wal` and `-shm` stay consistent and other connections to it see the whole copy or none of it; its
    /// external binary data becomes a copy of the source's. Other file stores are copied with `FileManager`. A missing
    /// source throws `NSFileReadNoSuchFileError`; in-memory stores have no files and throw `NSPersistentStoreOperationError`.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.replacePersistentStore(at: storeURL, destinationOptions: nil, withPersistentStoreFrom: backupURL,
    ///                                        sourceOptions: nil, ofType: NSSQLiteStoreType)
    /// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
    /// ```
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
                                       sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String) throws {
        guard let storeClass = Self.storeClass(forType: storeType) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown persistent store type '\(storeType)'")
        }
        try withLock {
            try removeStores(at: destinationURL, ofType: storeType)
            try storeClass.replaceStoreFiles(at: destinationURL, destinationOptions: destinationOptions, withStoreAt: sourceURL, sourceOptions: sourceOptions)
        }
    }

    /// Replaces a store with another, in the iOS 15+ spelling.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: backupURL, type: .sqlite)
    /// ```
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
                                       sourceOptions: [AnyHashable: Any]? = nil, type storeType: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
                                   sourceOptions: sourceOptions, ofType: storeType.rawValue)
    }

    /// Destroys the store at `url`. A store of this coordinator there is removed from it first.
    ///
    /// An SQLite store is emptied in place, as Apple's is ("it is not possible to unlink a database file safely out
    /// from underneath another thread or process, so this API performs a truncation"): its file stays, as an empty
    /// database, and so do its `-wal` and `-shm` if it had them — code that deletes them afterwards with `FileManager`
    /// keeps working; its external binary data is deleted. Another writer's lock is waited for (the store's
    /// `NSPersistentStoreTimeoutOption`) unless `NSPersistentStoreForceDestroyOption` is set. Other file stores (the
    /// binary store, custom stores) are deleted with `FileManager`. An in-memory store has no files: it is only removed.
    /// A missing store file throws `NSFileNoSuchFileError` (4).
    ///
    /// For example:
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: storeURL, ofType: NSSQLiteStoreType, options: nil)
    /// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)   // a new, empty store
    /// ```
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        guard let storeClass = Self.storeClass(forType: storeType) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown persistent store type '\(storeType)'")
        }
        try withLock {
            try storeClass.destroyStoreFiles(at: url, options: options) { try removeStores(at: url, ofType: storeType) }
        }
    }

    /// Destroys a store, in the iOS 15+ spelling.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: storeURL, type: .sqlite)
    /// ```
    public func destroyPersistentStore(at url: URL, type storeType: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: storeType.rawValue, options: options)
    }

    /// Removes this coordinator's stores at `url` (with the usual notifications); at `/dev/null`, where any number of
    /// in-memory stores live, only those of `storeType`.
    private func removeStores(at url: URL, ofType storeType: String) throws {
        for store in persistentStores where store.url?.standardizedFileURL == url.standardizedFileURL {
            if url.path == StoreLocations.inMemoryPath && store.type != storeType { continue }
            try remove(store)
        }
    }
}
