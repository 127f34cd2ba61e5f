/// Store option (an OpenCoreData addition): a `(Float) -> Void` closure called on the adding thread as an
/// automatic migration advances from 0 to 1 — for a progress bar. Apple reports progress only through
/// `NSMigrationManager.migrationProgress` and key-value observing, which Linux lacks.
///
/// For example:
/// ```swift
/// let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
///                                    NSInferMappingModelAutomaticallyOption: true,
///                                    OpenCoreDataMigrationProgressHandlerOption: { (progress: Float) in bar.update(progress) }]
/// ```
public let OpenCoreDataMigrationProgressHandlerOption = "OpenCoreDataMigrationProgressHandlerOption"

extension SQLiteStore {
    /// Whether the options ask for automatic migration (`NSMigratePersistentStoresAutomaticallyOption`).
    var migratesAutomatically: Bool { Self.flag(options?[NSMigratePersistentStoresAutomaticallyOption]) }

    /// Whether the options allow an inferred mapping (`NSInferMappingModelAutomaticallyOption`).
    var infersMappingModel: Bool { Self.flag(options?[NSInferMappingModelAutomaticallyOption]) }

    /// The migration progress handler of the options (`OpenCoreDataMigrationProgressHandlerOption`).
    var migrationProgressHandler: (Float) -> Void {
        (options?[OpenCoreDataMigrationProgressHandlerOption] as? (Float) -> Void) ?? { _ in }
    }

    /// Whether the options enable deferred lightweight migration (`NSPersistentStoreDeferredLightweightMigrationOptionKey`).
    var defersLightweightMigrationCleanup: Bool { Self.flag(options?[NSPersistentStoreDeferredLightweightMigrationOptionKey]) }

    static func flag(_ value: Any?) -> Bool {
        (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
    }

    /// Migrates the open store file from the model version that wrote it (found by its version hashes) to
    /// `model`, as `NSMigratePersistentStoresAutomaticallyOption` asks: with a mapping model found next to the
    /// model or in the bundles' resources, else — with `NSInferMappingModelAutomaticallyOption` — an inferred
    /// one, which runs in place with SQL. When no model version at hand wrote the store, the model the store
    /// carries (`Z_MODELCACHE`) is the source, as Apple's source model search does for SQLite stores. On failure the file is left as it was and the error says why (`NSMigrationMissingSourceModelError`,
    /// `NSMigrationMissingMappingModelError`, `NSInferredMappingModelError`, …).
    func migrateOpenStore(metadata: [String: Any], to model: NSManagedObjectModel) throws {
        let directories = ModelPackage.defaultSearchDirectories()
        guard let sourceModel = try MigrationModelLookup.sourceModel(forStoreMetadata: metadata, destination: model, directories: directories)
            ?? cachedSourceModel(metadata: metadata)
        else {
            throw CoreDataError.make(NSMigrationMissingSourceModelError, "Can't find the model for the source store at \(path): no model version has its entity version hashes, and the store carries no model of its own",
                                     userInfo: ["metadata": metadata, NSFilePathErrorKey: path])
        }
        let mapping: NSMappingModel
        if let explicit = MappingModelLookup.mappingModel(source: sourceModel, destination: model,
                                                         directories: MigrationModelLookup.mappingDirectories(destination: model, directories: directories)) {
            mapping = explicit
        } else if infersMappingModel {
            mapping = try NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: model)
        } else {
            throw CoreDataError.make(NSMigrationMissingMappingModelError, "Can't find a mapping model for the migration of \(path) (set NSInferMappingModelAutomaticallyOption to infer one)",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        if SQLiteLightweightMigration.canRun(mapping) {
            let migration = try SQLiteLightweightMigration(connection: connection, sourceModel: sourceModel, destinationModel: model, mapping: mapping, progress: migrationProgressHandler)
            migration.defersCleanup = defersLightweightMigrationCleanup
            try migration.run()
            return
        }
        try migrateWithManager(sourceModel: sourceModel, destinationModel: model, mapping: mapping)
    }
}

extension SQLiteStore {
    /// The model in the store's model cache, when it is the one that wrote the store (its entity version hashes are
    /// the metadata's); nil when there is no cache. A cache that cannot be decoded is an error
    /// (`NSMigrationMissingSourceModelError` with the decoding error as the cause).
    func cachedSourceModel(metadata: [String: Any]) throws -> NSManagedObjectModel? {
        let cached: NSManagedObjectModel?
        do {
            cached = try Self.cachedModel(on: connection)
        } catch {
            throw CoreDataError.make(NSMigrationMissingSourceModelError, "Can't find the model for the source store at \(path): no model version has its entity version hashes, and the store's own copy cannot be read",
                                     userInfo: [NSUnderlyingErrorKey: error, "metadata": metadata, NSFilePathErrorKey: path])
        }
        guard let cached, cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
        cached.sourceURL = URL(fileURLWithPath: path)
        return cached
    }

    /// Migrates with `NSMigrationManager` into a new file beside the store, then copies the result over the
    /// store in one transaction (SQLite's backup API) and removes the new file.
    func migrateWithManager(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel, mapping: NSMappingModel) throws {
        let storeURL = URL(fileURLWithPath: path)
        let scratch = storeURL.deletingLastPathComponent().appendingPathComponent(".\(storeURL.lastPathComponent).migration-\(UUID().uuidString)")
        defer { NSMigrationManager.removeStoreFiles(at: scratch) }
        let manager = NSMigrationManager(sourceModel: sourceModel, destinationModel: destinationModel)
        manager.progressHandler = migrationProgressHandler
        try manager.migrateStore(from: storeURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                                 toDestinationURL: scratch, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        if let lastTransaction = try Self.historyTransactionCounter(on: connection) {
            try Self.continueHistoryNumbering(after: lastTransaction, inStoreAt: scratch.path)
        }
        let migrated = try SQLiteConnection(path: scratch.path, configuration: .init(mode: .readOnly))
        defer { migrated.close() }
        try connection.replaceContents(with: migrated)
        try ExternalBinaryStorage.copyFiles(fromStoreAt: scratch.path, toStoreAt: path)
    }
}

extension SQLiteStore {
    /// The last transaction number the persistent history of the store on `connection` gave out (its `Z_PRIMARYKEY`
    /// counter, or the newest transaction; 0 when there is none yet), or nil when the store has no history tables.
    static func historyTransactionCounter(on connection: SQLiteConnection) throws -> Int64? {
        guard try connection.fetchValue("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ATRANSACTION'") != nil else { return nil }
        return try lastHistoryTransaction(on: connection)
    }

    /// Migrated object by object, a store's rows get new primary keys, so its history cannot describe them and
    /// starts anew (DEVIATIONS.md M8) — numbered after the old one with one number left out, so that a token from
    /// before the migration is expired (`NSPersistentHistoryTokenExpiredError`) instead of silently matching the
    /// new history's first transactions. Written into the migrated file before it replaces the store, so both
    /// land in one transaction.
    static func continueHistoryNumbering(after lastTransaction: Int64, inStoreAt path: String) throws {
        let migrated = try SQLiteConnection(path: path, configuration: .init(mode: .readWrite))
        defer { migrated.close() }
        try migrated.execute("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = \(historyTransactionEntity)")
        try migrated.execute("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(historyTransactionEntity), 'TRANSACTION', 0, \(lastTransaction + 1))")
    }

    /// Runs a staged migration (`NSPersistentStoreStagedMigrationManagerOptionKey`) from the version that wrote
    /// the store — known by its version checksum — to `model`.
    func runStagedMigration(_ manager: NSStagedMigrationManager, metadata: [String: Any], to model: NSManagedObjectModel) throws {
        let hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        let checksum = metadata[NSPersistentStoreModelVersionChecksumKey] as? String ?? ModelDigests.versionChecksum(hashes)
        let directories = ModelPackage.defaultSearchDirectories()
        var candidates = MigrationModelLookup.candidatePackages(destination: model, directories: directories).flatMap(MigrationModelLookup.versions(of:))
        // The store's own model resolves its version when no model version at hand has that checksum.
        if !candidates.contains(where: { $0.versionChecksum == checksum }), let cached = try cachedSourceModel(metadata: metadata) { candidates.append(cached) }
        try manager.migrateStore(at: URL(fileURLWithPath: path), currentChecksum: checksum, to: model, candidates: candidates, options: options)
    }
}
