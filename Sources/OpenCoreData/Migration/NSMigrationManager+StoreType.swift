extension NSMigrationManager {
    /// Migrates the store at `sourceURL` to a new store at `destinationURL` with `mapping`, in the iOS 15+ spelling
    /// with `NSPersistentStore.StoreType`; the same as
    /// `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`.
    ///
    /// ```swift
    /// let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
    /// try manager.migrateStore(from: oldURL, type: .sqlite, mapping: mapping, to: newURL, type: .sqlite)
    /// ```
    public func migrateStore(from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
                             mapping: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
                             options destinationOptions: [AnyHashable: Any]? = nil) throws {
        try migrateStore(from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mapping,
                         toDestinationURL: destinationURL, destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }
}
