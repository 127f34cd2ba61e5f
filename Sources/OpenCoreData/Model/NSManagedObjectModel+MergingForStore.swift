extension NSManagedObjectModel {
    /// Merges `models` (as `init(byMerging:)`) and returns the result only if a store with `metadata` can be opened
    /// with it: every entity of the merged model has the version hash the store's `NSStoreModelVersionHashes`
    /// records for it (`isConfiguration(withName: nil, compatibleWithStoreMetadata:)`). Nil when the models cannot
    /// be merged (two define the same entity) or the merged model is not the store's.
    ///
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL)
    /// let model = NSManagedObjectModel(byMerging: [coreModel, extrasModel], forStoreMetadata: metadata)
    /// ```
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        self.init(byMerging: models)
        guard isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
    }

    /// Apple's Objective-C-derived spelling of `init(byMerging:forStoreMetadata:)`.
    ///
    /// ```swift
    /// let model = NSManagedObjectModel(byMergingModels: [coreModel, extrasModel], forStoreMetadata: metadata)
    /// ```
    public convenience init?(byMergingModels models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        self.init(byMerging: models, forStoreMetadata: metadata)
    }
}
